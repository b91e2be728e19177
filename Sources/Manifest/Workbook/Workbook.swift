import Foundation
import Support
import Zip

/// An .xlsx or .xlsm workbook opened for reading: its sheets (name, hidden or not,
/// part), which cell styles are dates, and the shared strings. Parts are inflated as
/// streams under a budget, so a zip bomb is refused before it costs memory or time.
/// Read-only once opened; the sheet is then inflated on one thread (`SheetRows`).
final class Workbook: @unchecked Sendable {
    struct Sheet: Equatable {
        var name: String
        var visible: Bool
        var path: String
    }

    let file: String
    private let archive: ZipParts
    private(set) var sheets: [Sheet] = []
    /// Indexes of cell formats (`s="N"` on a cell) that show a date or a time.
    private(set) var dateStyles: Set<Int> = []
    /// Serial day 0 is 1899-12-30 (or 1904-01-01 for workbooks made with that setting).
    private(set) var uses1904 = false
    private(set) var sharedStrings: [String] = []

    /// Limits on what inflating may produce.
    struct Budget {
        /// Any one small part (workbook, relationships, styles).
        var smallPart = 16 << 20
        /// The shared strings, which are kept in memory.
        var sharedStrings = 512 << 20
        /// A sheet (streamed, so this bounds time, not memory): Excel's 1,048,576 rows fit.
        var sheet = 4 << 30
        /// Past the first 16 MB, a part may not inflate to more than this many times its packed size.
        var ratio = 200
    }
    let budget: Budget

    init(url: URL, budget: Budget = Budget()) throws(ManifestError) {
        file = url.lastPathComponent
        self.budget = budget
        let head = (try? FileHandle(forReadingFrom: url)).flatMap { try? $0.read(upToCount: 8) } ?? Data()
        if head.starts(with: [0xD0, 0xCF, 0x11, 0xE0]) {
            throw ManifestError(file: file, say: "m_xls", message: "an Excel 97–2003 workbook (.xls) or a password-protected one: open it in Excel and save it as .xlsx without a password")
        }
        guard head.starts(with: [0x50, 0x4B]) else {
            throw ManifestError(file: file, say: "m_not_zip", message: "not an Excel workbook: the file is not a zip archive (an .xlsx file is one)")
        }
        do { archive = try ZipParts(url: url) } catch let damaged as ZipParts.Damaged {
            throw ManifestError(file: file, say: "m_zip_damaged", message: "not an Excel workbook: the zip archive cannot be read: \(damaged.reason)")
        } catch {
            throw ManifestError(file: file, message: "cannot be read: \(error.localizedDescription)")
        }
        do {
            try readStructure()
        } catch let error as ManifestError {
            throw error
        } catch {
            throw ManifestError(file: file, message: "not an Excel workbook: \(error)")
        }
    }

    /// Inflates one part in chunks, under the budget. `consumer` may throw to stop.
    func stream(_ path: String, limit: Int, _ consumer: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let entry = archive[path] else {
            throw ManifestError(file: file, message: "the workbook has no part \(path) (the file is damaged)")
        }
        let packed = max(entry.packedSize, 1)
        var inflated = 0
        // The checksum is ours (Zip.CRC32, sliced tables).
        var checksum = CRC32()
        do {
            try archive.inflate(entry) { data in
                inflated += data.count
                data.withUnsafeBytes { checksum.update($0) }
                if inflated > limit {
                    throw ManifestError(file: file, message: "part \(path) inflates to more than \(ByteCount.text(limit)); refused as a zip bomb")
                }
                if inflated > 16 << 20, inflated / packed > budget.ratio {
                    throw ManifestError(file: file, message: "part \(path) inflates more than \(budget.ratio) times its packed size; refused as a zip bomb")
                }
                try data.withUnsafeBytes(consumer)
            }
        } catch let error as ManifestError {
            throw error
        } catch let failure as XMLTokens.Failure {
            throw Self.describe(failure, part: path, file: file)
        } catch let stop as StopReading {
            throw stop
        } catch let damaged as RawInflate.Damaged {
            throw ManifestError(file: file, message: "part \(path) cannot be read: \(damaged.reason); the file is damaged")
        } catch {
            throw ManifestError(file: file, message: "part \(path) cannot be inflated (\(error)); the file is damaged")
        }
        guard checksum.value == entry.checksum else {
            throw ManifestError(file: file, message: "part \(path) does not match its checksum; the file is damaged")
        }
    }

    /// Thrown by a consumer that wants no more of a part (the reader was closed).
    struct StopReading: Error {}

    static func describe(_ failure: XMLTokens.Failure, part: String, file: String) -> ManifestError {
        switch failure {
        case .doctype:
            ManifestError(file: file, message: "part \(part) declares a document type (<!DOCTYPE or <!ENTITY); a workbook never does, refused")
        case .malformed(let what):
            ManifestError(file: file, message: "part \(part) is not well-formed XML: \(what)")
        }
    }

    /// Tokenizes a whole part into `handler`.
    func parse<Handler: XMLTokenHandler>(_ path: String, limit: Int, into handler: inout Handler) throws {
        var tokens = XMLTokens()
        try stream(path, limit: limit) { chunk in try tokens.feed(chunk, into: &handler) }
        do { try tokens.finish(into: &handler) } catch let failure as XMLTokens.Failure {
            throw Self.describe(failure, part: path, file: file)
        }
    }

    // MARK: - Structure

    private func readStructure() throws {
        if archive["xl/workbook.xml"] == nil, archive[ODSContent.part] != nil {
            // LibreOffice's (or Google Sheets') OpenDocument spreadsheet: every sheet in one part.
            var list = ODSTableList()
            try parse(ODSContent.part, limit: budget.sheet, into: &list)
            sheets = list.tables.enumerated().map { index, table in
                Sheet(name: table.name, visible: !list.hiddenStyles.contains(table.style), path: ODSContent.path(index))
            }
            return
        }
        guard archive["xl/workbook.xml"] != nil || archive["_rels/.rels"] != nil else {
            throw ManifestError(file: file, message: "a zip archive, but neither an Excel workbook (no xl/workbook.xml) nor an OpenDocument spreadsheet (no content.xml)")
        }
        var workbookPath = "xl/workbook.xml"
        if archive["_rels/.rels"] != nil {
            var rels = Relationships()
            try parse("_rels/.rels", limit: budget.smallPart, into: &rels)
            if let target = rels.target(ofType: "/officeDocument", base: "") { workbookPath = target }
        }
        guard archive[workbookPath] != nil else {
            throw ManifestError(file: file, message: "a zip archive, but not an Excel workbook (it has no \(workbookPath))")
        }
        let folder = (workbookPath as NSString).deletingLastPathComponent
        var rels = Relationships()
        let relsPath = folder + "/_rels/" + (workbookPath as NSString).lastPathComponent + ".rels"
        if archive[relsPath] != nil { try parse(relsPath, limit: budget.smallPart, into: &rels) }
        var list = SheetList()
        try parse(workbookPath, limit: budget.smallPart, into: &list)
        uses1904 = list.uses1904
        sheets = list.sheets.compactMap { sheet in
            let path = rels.byID[sheet.relationship].map { Relationships.resolve($0, base: folder) }
            return path.map { Sheet(name: sheet.name, visible: sheet.visible, path: $0) }
        }
        if let styles = rels.target(ofType: "/styles", base: folder), archive[styles] != nil {
            var reader = StyleReader()
            try parse(styles, limit: budget.smallPart, into: &reader)
            dateStyles = reader.dateStyles
        }
        if let strings = rels.target(ofType: "/sharedStrings", base: folder), archive[strings] != nil {
            var reader = SharedStringReader()
            try parse(strings, limit: budget.sharedStrings, into: &reader)
            sharedStrings = reader.strings
        }
    }
}

/// `<Relationship Id Type Target>` of a relationships part.
private struct Relationships: XMLTokenHandler {
    var byID: [String: String] = [:]
    var byType: [(type: String, target: String)] = []
    var wantsText: Bool { false }

    mutating func start(_ name: XMLBytes, attributes: XMLAttributes) throws {
        guard name.elementsEqual("Relationship".utf8) else { return }
        guard let id = try attributes.string("Id"), let target = try attributes.string("Target") else { return }
        byID[id] = target
        byType.append((try attributes.string("Type") ?? "", target))
    }
    mutating func end(_ name: XMLBytes) throws {}
    mutating func text(_ bytes: XMLBytes) throws {}

    func target(ofType suffix: String, base: String) -> String? {
        byType.first { $0.type.hasSuffix(suffix) }.map { Self.resolve($0.target, base: base) }
    }

    /// A target is relative to the folder of the part that names it, or absolute from the archive's root.
    static func resolve(_ target: String, base: String) -> String {
        if target.hasPrefix("/") { return String(target.dropFirst()) }
        var parts = base.isEmpty ? [] : base.split(separator: "/").map(String.init)
        for piece in target.split(separator: "/") {
            if piece == ".." { if !parts.isEmpty { parts.removeLast() } } else if piece != "." { parts.append(String(piece)) }
        }
        return parts.joined(separator: "/")
    }
}

/// `<sheet name state r:id>` and `<workbookPr date1904>` of the workbook part.
private struct SheetList: XMLTokenHandler {
    var sheets: [(name: String, visible: Bool, relationship: String)] = []
    var uses1904 = false
    var wantsText: Bool { false }

    mutating func start(_ name: XMLBytes, attributes: XMLAttributes) throws {
        if name.elementsEqual("sheet".utf8) {
            let state = try attributes.string("state") ?? "visible"
            sheets.append((try attributes.string("name") ?? "", state == "visible", try attributes.string("id") ?? ""))
        } else if name.elementsEqual("workbookPr".utf8) {
            let flag = try attributes.string("date1904")
            uses1904 = flag == "1" || flag == "true"
        }
    }
    mutating func end(_ name: XMLBytes) throws {}
    mutating func text(_ bytes: XMLBytes) throws {}
}

/// Which cell formats (`cellXfs`, by position) show dates: a built-in date format, or
/// a custom one whose code has day, month, year or time letters outside quotes.
private struct StyleReader: XMLTokenHandler {
    var custom: [Int: Bool] = [:]
    var dateStyles: Set<Int> = []
    private var inCellFormats = false
    private var position = 0
    var wantsText: Bool { false }

    /// Built-in formats that show dates or times (including the East Asian ones, 27–36 and 50–58).
    static let builtInDates: Set<Int> = Set(14...22).union(27...36).union(45...47).union(50...58)

    mutating func start(_ name: XMLBytes, attributes: XMLAttributes) throws {
        if name.elementsEqual("numFmt".utf8) {
            if let id = try attributes.string("numFmtId").flatMap({ Int($0) }), let code = try attributes.string("formatCode") {
                custom[id] = Self.isDateCode(code)
            }
        } else if name.elementsEqual("cellXfs".utf8) {
            inCellFormats = true
        } else if inCellFormats, name.elementsEqual("xf".utf8) {
            let id = try attributes.string("numFmtId").flatMap { Int($0) } ?? 0
            if custom[id] ?? Self.builtInDates.contains(id) { dateStyles.insert(position) }
            position += 1
        }
    }
    mutating func end(_ name: XMLBytes) throws {
        if name.elementsEqual("cellXfs".utf8) { inCellFormats = false }
    }
    mutating func text(_ bytes: XMLBytes) throws {}

    static func isDateCode(_ code: String) -> Bool {
        var quoted = false, bracket = false, escaped = false
        for character in code.lowercased() {
            if escaped { escaped = false; continue }
            switch character {
            case "\\": escaped = true
            case "\"": quoted.toggle()
            case "[" where !quoted: bracket = true
            case "]" where !quoted: bracket = false
            case "d", "m", "y", "h", "s": if !quoted && !bracket { return true }
            default: break
            }
        }
        return false
    }
}

/// The shared strings: each `<si>`'s text runs joined, phonetic guides (`<rPh>`) left out.
private struct SharedStringReader: XMLTokenHandler {
    var strings: [String] = []
    private var current: [UInt8] = []
    private var inItem = false
    private var inText = false
    private var inPhonetic = false
    var wantsText: Bool { inText && !inPhonetic }

    mutating func start(_ name: XMLBytes, attributes: XMLAttributes) throws {
        switch name.count {
        case 2 where name.elementsEqual("si".utf8): inItem = true; current.removeAll(keepingCapacity: true)
        case 1 where name.first == UInt8(ascii: "t"): inText = inItem
        case 3 where name.elementsEqual("rPh".utf8): inPhonetic = true
        default: break
        }
    }
    mutating func end(_ name: XMLBytes) throws {
        switch name.count {
        case 2 where name.elementsEqual("si".utf8):
            strings.append(String(decoding: current, as: UTF8.self))
            inItem = false
        case 1 where name.first == UInt8(ascii: "t"): inText = false
        case 3 where name.elementsEqual("rPh".utf8): inPhonetic = false
        default: break
        }
    }
    mutating func text(_ bytes: XMLBytes) throws { current.append(contentsOf: bytes) }
}
