import Foundation

/// One row as read, before validation.
public struct RawRow: Sendable {
    /// The row number a spreadsheet shows (CSV: header = 1, first product = 2;
    /// JSON: the object's position from 1; JSON Lines: the line number).
    public var number: Int
    public var values: RowValues
    /// Images given as a JSON array.
    public var imageList: [String]?
    /// What reading found in the row's cells (a spreadsheet's date, formula or error cells).
    public var notes: [RowIssue] = []
    /// What a feed's map made of the row (a supplier's file), nil for a manifest in our columns.
    public var origin: RowOrigin?

    public init(number: Int, values: RowValues, imageList: [String]?, notes: [RowIssue] = [], origin: RowOrigin? = nil) {
        self.number = number
        self.values = values
        self.imageList = imageList
        self.notes = notes
        self.origin = origin
    }
}

extension RawRow {
    /// The cells and photos let go (`ManifestCheck.run(keepsContents: false)`): the number,
    /// the reading's notes and the map's word on the row stay.
    mutating func dropContents() {
        values = RowValues()
        imageList = nil
    }
}

/// Reads a manifest row by row. CSV and JSON Lines stream (memory stays flat
/// however long the file); a JSON array is read whole.
public final class ManifestReader {
    public let url: URL
    public let format: ManifestFormat
    public let encoding: TextEncoding
    public let delimiter: Character
    /// The columns present, and the headers that are no known column.
    public internal(set) var columns: ColumnSet = []
    /// The file's header of each of our columns, as written.
    var ownHeaders: [Column: String] = [:]
    public internal(set) var unknownColumns: [String] = []

    var csv: CSVRecords?
    var csvChunks: CSVChunks?
    var firstPieceRecords = 0
    /// About how many rows a CSV file has, from its size and its first piece.
    public internal(set) var estimatedRows: Int?
    private var columnIndex: [(Int, Column)] = []
    private var sheet: SheetManifest?
    /// The sheet read, for a workbook.
    public var sheetName: String? { sheet?.sheetName }
    var rowNumber = 1
    var jsonElements: JSONArrayElements?
    var firstJSON: JSONObject?
    /// JSON keys' columns (nil: none), learned once per key.
    var jsonColumns: [String: Column?] = [:]
    var lastJSONElementBytes = 0
    var jsonPosition = 0
    var lines: LineReader?
    /// The file read as UTF-8 on its first megabyte's word, the rest checked as it is read.
    var encodingCheck: EncodingCheck?
    private var temporary: URL?
    /// A supplier's file: its headers read through this map (see `HeaderMapping`); or the
    /// platform map its header chose.
    public internal(set) var mapping: (any HeaderMapping)?
    /// Maps a header chooses by itself (another platform's export), when no map is given.
    let platformMaps: [any PlatformMap]
    /// The platform map the header chose, if one did.
    public private(set) var platformMap: (any PlatformMap)?
    /// A grouped map's rows, made once the whole file is read (see `GroupedMapping`).
    private var assembled: IndexingIterator<[RawRow]>?
    /// A map that does not span rows: the products of the row last read.
    private var streamed: ArraySlice<RawRow> = []
    /// The header's row number (a row's place under it, for a form's guide rows).
    var headerRowNumber: Int {
        switch format {
        case .csv: csvHeaderRow
        case .xlsx: sheet?.headerRow ?? 1
        case .json, .jsonl: 0
        }
    }
    var csvHeaderRow = 1
    /// A map that does not span rows, for the rows read in pieces on several threads.
    var streamedMap: (any GroupedMapping)? {
        guard let grouped = bound as? any GroupedMapping, !grouped.spansRows else { return nil }
        return grouped
    }
    var bound: (any BoundHeaderMapping)?
    /// The header row's texts by position, to name a cell.
    private var headerTexts: [Int: String] = [:]
    /// A JSON file read through a map: the keys of its first object, as its header.
    var jsonHeaders: [String]?
    /// What the map found missing from the file that is not an error (a partial file).
    public var fileNotes: [RowIssue] { (bound?.fileNotes ?? []) + layoutNotes }
    /// Columns another platform's layout has that are not read (its own product numbers).
    var layoutNotes: [RowIssue] = []

    /// The file's own header of one of our columns when it is not our name (`이미지` for
    /// images, a supplier's `재고수량` for stock through a feed's map): messages name both.
    public func header(of column: Column) -> String? {
        let own = bound?.source(of: column) ?? ownHeaders[column]
        guard let own, Column.normalise(own) != Column.normalise(column.rawValue) else { return nil }
        return own
    }

    var fileName: String { url.lastPathComponent }

    public init(url: URL, format: ManifestFormat? = nil, encoding: TextEncoding? = nil, delimiter: Character? = nil,
                sheet choice: SheetChoice = SheetChoice(), mapping: (any HeaderMapping)? = nil,
                platformMaps: [any PlatformMap] = [], speculativeEncoding: Bool = false) throws {
        self.url = url
        self.mapping = mapping
        self.platformMaps = mapping == nil ? platformMaps : []
        self.format = format ?? ManifestFormat(url: url)
        let file = url.lastPathComponent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw ManifestError(file: file, message: "no such file")
        }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw ManifestError(file: file, message: "cannot be read (permissions)")
        }
        // Excel 97–2003 (.xls) is an OLE2 compound file, not text: said so, not read as CSV.
        let head = (try? FileHandle(forReadingFrom: url)).flatMap { try? $0.read(upToCount: 8) }
        if head == Data([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
            throw ManifestError(file: file, message: "an Excel 97–2003 workbook (.xls), which openmarket does not read: save it as an Excel Workbook (.xlsx) or as CSV UTF-8 (Excel: File › Save As), then give that file")
        }
        if self.format == .xlsx {
            // A workbook is XML in a zip: UTF-8 by definition, no delimiter.
            self.encoding = .utf8
            self.delimiter = ","
            let maps = self.platformMaps
            let sheet = try SheetManifest(url: url, choice: choice, knows: mapping.map { map in { map.knows(header: $0) } },
                                          isPlatformHeader: maps.isEmpty ? nil : { headers in maps.contains { $0.matches(headers: headers) } })
            try mapHeaders(sheet.header)
            if !sheet.skippedSheets.isEmpty {
                let skipped = sheet.skippedSheets.map { "'\($0)'" }.joined(separator: ", ")
                layoutNotes.append(RowIssue(file: file, row: sheet.headerRow, column: nil, value: sheet.sheetName, severity: .warning,
                                            rule: "sheet-chosen",
                                            message: "read sheet '\(sheet.sheetName)': \(skipped) before it \(sheet.skippedSheets.count == 1 ? "has" : "have") no header row (instructions?); --sheet names another"))
            }
            sheet.use(columnIndex, bound: bound)
            estimatedRows = sheet.estimatedRows
            self.sheet = sheet
            return
        }
        // Told by the first megabyte where it can be (`TextEncoding.sniff`) when the door confirms
        // the rest at the end (`encodingFailure`); else by reading the whole file first.
        let detected: TextEncoding
        if let encoding {
            detected = encoding
        } else if speculativeEncoding, let sniffed = try TextEncoding.sniff(url, file: file) {
            detected = sniffed.encoding
            if sniffed.speculative { encodingCheck = EncodingCheck() }
        } else {
            detected = try TextEncoding.detect(url, file: file)
        }
        self.encoding = detected
        // Everything is read as UTF-8: CP949 and UTF-16 go through iconv into a temporary file.
        var source = url
        if detected != .utf8 {
            let converted = FileManager.default.temporaryDirectory.appendingPathComponent("openmarket-manifest-\(UUID().uuidString).utf8")
            do { try Transcoder.transcode(url, from: detected, to: converted) } catch let error as ManifestError {
                try? FileManager.default.removeItem(at: converted)
                throw ManifestError(file: file, message: error.message)
            }
            temporary = converted
            source = converted
        }
        self.delimiter = delimiter ?? (self.format == .csv ? Self.sniffDelimiter(source) : ",")
        switch self.format {
        case .csv: try openCSV(source)
        case .json: try openJSON(source)
        case .jsonl:
            lines = try LineReader(url: source, file: file)
            lines?.check = encodingCheck
        case .xlsx: break
        }
    }

    deinit {
        sheet?.close()
        if let temporary { try? FileManager.default.removeItem(at: temporary) }
    }

    /// The column of report.xlsx that says what went wrong: ignored without a warning
    /// when that file is imported again.
    public static let errorsHeader = "errors"
    private static let reportHeaders: Set<String> = [errorsHeader, "row", "오류", "행"]

    func mapHeaders(_ headers: [(Int, String)]) throws {
        headerTexts = Dictionary(headers, uniquingKeysWith: { first, _ in first })
        if mapping == nil, let chosen = platformMaps.first(where: { $0.matches(headers: headers.map(\.1)) }) {
            mapping = chosen
            platformMap = chosen
            var note = RowIssue(file: fileName, row: 1, column: nil, value: nil, severity: .warning, rule: "platform-map",
                                message: "\(chosen.title): read with the \(chosen.mapName) map; descriptions in HTML are sent as the text a buyer reads (--keep-html: as they are); --map FILE reads it with another map, --map none as our own columns")
            note.terms = [chosen.koreanTitle ?? chosen.title, chosen.mapName]
            layoutNotes.append(note)
        }
        if let mapping {
            let bound = try mapping.bind(headers: headers, file: fileName)
            columns = bound.columns
            self.bound = bound
            return
        }
        // Another platform's layout read as our columns: its own numbers are left out (the maps say which).
        let present = Set(headers.map { PlatformColumns.normalise($0.1) })
        let layout = platformMaps.lazy.compactMap(\.platformColumns).first { $0.matches(present) }
        for (index, header) in headers {
            let trimmed = header.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !Self.reportHeaders.contains(Column.normalise(trimmed)) else { continue }
            var known = Column(header: trimmed)
            switch layout?.reading(PlatformColumns.normalise(trimmed)) {
            case .ignored?:
                layoutNotes.append(layout!.note(header: trimmed, file: fileName))
                continue
            case .column(let column)?: known = column
            case nil: break
            }
            if let column = known {
                if columns.contains(column) {
                    throw ManifestError(file: fileName, message: "two columns mean \(column.rawValue) ('\(trimmed)' and another); keep one")
                }
                columns.insert(column)
                columnIndex.append((index, column))
                ownHeaders[column] = trimmed
            } else {
                unknownColumns.append(trimmed)
            }
        }
    }


    /// The next row, or nil at the end.
    public func next() throws -> RawRow? {
        guard let grouped = bound as? any GroupedMapping else { return try nextRow() }
        guard grouped.spansRows else {
            // Each row's products as it is read (an option a product): memory stays flat.
            while streamed.isEmpty {
                guard let row = try nextRow() else { return nil }
                streamed = grouped.assemble([row], firstPosition: row.number - headerRowNumber - 1)[...]
            }
            return streamed.popFirst()
        }
        if assembled == nil {
            var rows: [RawRow] = []
            while let row = try nextRow() { rows.append(row) }
            assembled = grouped.assemble(rows, firstPosition: 0).makeIterator()
        }
        return assembled?.next()
    }

    private func nextRow() throws -> RawRow? {
        switch format {
        case .csv: return nextCSV()
        case .json: return try nextJSON()
        case .jsonl: return try nextJSONLine()
        case .xlsx: return try sheet?.next().map { Self.capped($0, file: fileName) }
        }
    }

    /// A CSV record as a row, or nil when every cell is blank. Reads only what
    /// the header fixed, so pieces can be turned into rows on several threads.
    func row(_ fields: consuming [String], number: Int) -> RawRow? {
        // Taken, not borrowed: the cells are moved out of the record's own array (a shared one was copied, each cell retained).
        guard case (var fields, let notes)? = cells(fields, number: number) else { return nil }
        if let bound { return bound.row(fields, number: number, notes: notes) }
        return RawRow(number: number, values: RowValues(moving: &fields, columns: columnIndex), imageList: nil, notes: notes)
    }

    /// A row's cells with none past `CellLimit.bytes` (each such cell emptied, a note naming
    /// it), or nil for a blank row.
    func cells(_ fields: consuming [String], number: Int) -> (fields: [String], notes: [RowIssue])? {
        guard fields.contains(where: { !Self.isBlank($0) }) else { return nil }
        let notes = fields.contains(where: { $0.utf8.count > CellLimit.bytes })
            ? CellLimit.cap(&fields, file: fileName, row: number, headers: headerTexts) : []
        return (fields, notes)
    }

    /// A row of a JSON file or a workbook with no value past `CellLimit.bytes` (each such
    /// value emptied, the row failed naming it).
    static func capped(_ row: RawRow, file: String) -> RawRow {
        guard row.values.contains(where: { $0.value.utf8.count > CellLimit.bytes }) else { return row }
        var row = row
        for (column, value) in row.values where value.utf8.count > CellLimit.bytes {
            row.values[column] = ""
            row.notes.append(CellLimit.issue(file: file, row: row.number, column: column.rawValue, value))
        }
        return row
    }

    /// Spaces only (any Unicode space but line breaks), checked without allocating.
    static func isBlank(_ field: String) -> Bool {
        for byte in field.utf8 {
            if byte >= 0x80 { break }
            if byte != 0x20 && byte != 0x09 { return false }
        }
        for scalar in field.unicodeScalars where !scalar.properties.isWhitespace || scalar == "\n" || scalar == "\r" {
            return false
        }
        return true
    }
}
