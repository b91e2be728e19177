import Foundation
import Support
import Manifest
import Words

/// `report.xlsx`: a first sheet a merchant can fix and import again (the failed rows,
/// each with its values and what went wrong), and every row of report.csv on a second
/// sheet, failed ones first. Read from the report's row file, so memory stays flat.
enum ReportWorkbook {
    /// The columns of the fix-and-import sheet: a manifest's, then what went wrong.
    static let manifestColumns = ["key", "id", "name", "description", "price", "currency", "discounted_price", "sale_price", "stock", "images"]
    static let rowColumns = ["row", "key", "name", "status", "product_id", "changes", "error", "attempts", "note"]

    /// `headers`: the merchant's own header of a column (`상품코드` for key), so that the sheet
    /// to fix reads like the one they sent.
    ///
    /// In Korean the sheets, their headers, the statuses (the CLI's word beside) and the broken
    /// rules are Korean; the sheet to fix keeps headers `import` reads (`상품코드`, `가격`…) and
    /// its values as they were.
    ///
    /// `original`: a platform's file's failed rows as the file has them; the sheet to fix is
    /// then in the file's own columns (the errors and the row number after them), one line a
    /// row of the file however many products it made.
    static func write(rows rowsFile: URL, to url: URL, imagesRoot: URL? = nil, headers: [String: String] = [:],
                      original: OriginalRows? = nil, language: Language = .en) throws {
        let book = try SpreadsheetWriter(url: url, sheetName: WordTable.text("sheet_fix", language))
        let fix = book.currentSheet
        book.widths([16, 10, 30, 40, 12, 9, 16, 12, 8, 40, 60, 8])
        let errorsHeader = language == .ko ? WordTable.text("cell_errors", language) : ManifestReader.errorsHeader
        book.header((original?.headers ?? manifestColumns.map { headers[$0] ?? RowProblem.header($0, language) }) + [errorsHeader, WordTable.text("cell_row", language)])
        // The file's own rows to fix: each once, with every error its products had.
        var originalErrors: [Int: [String]] = [:]
        var originalOrder: [Int] = []
        let all = try book.addSheet(WordTable.text("sheet_all", language))
        book.widths([7, 16, 30, 12, 10, 40, 60, 8, 30])
        book.header(rowColumns.map { WordTable.text("cell_\($0)", language) })
        // Two passes over the row file: failed rows first, then the others. The first parses
        // only the lines that can be a failed row's (a re-run of 20,000 unchanged rows spent a
        // seventh of its time parsing every line twice).
        for failedPass in [true, false] {
            try eachRow(in: rowsFile, only: failedPass ? Self.failedMark : nil) { object in
                let failed = (object["status"] as? String) == RowOutcome.Status.failed.rawValue
                guard failed == failedPass else { return }
                if failed, let original, let number = object["row"] as? Int, original.rows[number] != nil {
                    if originalErrors[number] == nil { originalOrder.append(number) }
                    let key = (object["key"] as? String).map { $0.isEmpty ? "" : "\($0): " } ?? ""
                    originalErrors[number, default: []].append(key + errorText(object, language))
                } else if failed {
                    let values = object["values"] as? [String: String] ?? [:]
                    var cells: [SpreadsheetWriter.Cell] = []
                    for column in manifestColumns {
                        let value: String?
                        switch column {
                        case "key": value = (object["key"] as? String).flatMap { $0.isEmpty ? nil : $0 }
                        case "id": value = (object["product_id"] as? Int).map(String.init)
                        case "images": value = values["images"].map { whole($0, under: imagesRoot) }
                        default: value = values[column]
                        }
                        guard let value, !value.isEmpty else { cells.append(.empty); continue }
                        cells.append(["price", "discounted_price", "sale_price", "stock"].contains(column) ? .number(value) : .text(value))
                    }
                    cells.append(.text(errorText(object, language)))
                    cells.append(number(object["row"]))
                    book.select(fix)
                    try book.write(cells)
                }
                book.select(all)
                try book.write(rowColumns.map { column -> SpreadsheetWriter.Cell in
                    switch column {
                    case "row", "product_id", "attempts": return number(object[column])
                    case "status": return (object[column] as? String).map { .text(StatusWords.label($0, language)) } ?? .empty
                    case "error": return object[column] == nil ? .empty : .text(errorText(object, language))
                    case "changes": return (object[column] as? String).map { .text(Self.changes(object, language) ?? $0) } ?? .empty
                    case "note": return (object[column] as? String).map { .text(Self.notes(object, language) ?? $0) } ?? .empty
                    default: return (object[column] as? String).map { .text($0) } ?? .empty
                    }
                })
            }
            if failedPass, let original, !originalOrder.isEmpty {
                book.select(fix)
                for number in originalOrder {
                    let cells = original.rows[number] ?? []
                    try book.write(cells.map { $0.isEmpty ? .empty : .text($0) }
                                   + [.text(originalErrors[number, default: []].joined(separator: "\n")), .number(String(number))])
                }
            }
        }
        try book.close()
    }

    /// The row numbers of the failed rows in a report's row file.
    static func failedRows(in rowsFile: URL) throws -> Set<Int> {
        var numbers = Set<Int>()
        try eachRow(in: rowsFile, only: failedMark) { object in
            if (object["status"] as? String) == RowOutcome.Status.failed.rawValue, let number = object["row"] as? Int { numbers.insert(number) }
        }
        return numbers
    }

    /// A row's notes in `language`, from report.json's `notes` (nil: none kept there).
    private static func notes(_ object: [String: Any], _ language: Language) -> String? {
        guard let list = object["notes"], let data = try? JSONSerialization.data(withJSONObject: list),
              let phrases = try? JSONDecoder().decode([Phrase].self, from: data) else { return nil }
        return phrases.text(language)
    }

    /// A row's changes as phrases (report.json's `changes_said`), in `language`.
    private static func changes(_ object: [String: Any], _ language: Language) -> String? {
        guard language != .en, let said = object["changes_said"] else { return nil }
        guard let data = said as? Data ?? (try? JSONSerialization.data(withJSONObject: said)),
              let phrase = try? JSONDecoder().decode(Phrase.self, from: data) else { return nil }
        return phrase.text(language)
    }

    /// A row's error in `language`: its broken rules, else the error as it is.
    private static func errorText(_ object: [String: Any], _ language: Language) -> String {
        let english = object["error"] as? String ?? ""
        guard language != .en, let list = object["problems"] as? [[String: Any]], !list.isEmpty else { return english }
        return list.compactMap { item -> String? in
            guard let rule = item["rule"] as? String, let message = item["message"] as? String else { return nil }
            return RowProblem(column: item["column"] as? String, value: item["value"] as? String, rule: rule, message: message).text(language)
        }.joined(separator: "; ")
    }

    /// Relative file references made whole under `root` (URLs and absolute paths kept).
    static func whole(_ cell: String, under root: URL?) -> String {
        guard let root else { return cell }
        return ImageSource.references(inCell: cell)
            .map { reference in
                reference.hasPrefix("/") || reference.contains("://") ? reference : root.appendingPathComponent(reference).standardizedFileURL.path
            }
            .joined(separator: ";")
    }

    private static func number(_ value: Any?) -> SpreadsheetWriter.Cell {
        guard let number = value as? Int, number > 0 else { return .empty }
        return .number(String(number))
    }

    /// The report's row file: JSON objects, one per line (separated by `,` and a line break).
    /// How a failed row's status is written in the rows file (`RunReport`'s encoder: no spaces).
    static let failedMark = "\"status\":\"\(RowOutcome.Status.failed.rawValue)\""

    /// Each row of the rows file as a JSON object; with `only`, just the lines that hold it.
    private static func eachRow(in file: URL, only mark: String? = nil, _ body: ([String: Any]) throws -> Void) throws {
        let reader = try LineReader(url: file, file: file.lastPathComponent)
        let wanted = mark.map { Array($0.utf8) }
        while let (_, line) = try reader.nextBytes() {
            if let wanted, !contains(line, wanted) { continue }
            var text = line[...]
            while text.first == UInt8(ascii: " ") { text.removeFirst() }
            if text.last == UInt8(ascii: ",") { text.removeLast() }
            guard !text.isEmpty else { continue }
            let bytes = Data(text)
            guard let object = topLevel(bytes) ?? (try? JSONSerialization.jsonObject(with: bytes) as? [String: Any]) else { continue }
            try body(object)
        }
    }

    /// Whether `needle` is in `line`, byte for byte (String's `contains` went through NSString).
    private static func contains(_ line: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        guard line.count >= needle.count else { return false }
        return line.withUnsafeBufferPointer { hay in
            var at = 0
            let last = hay.count - needle.count
            while at <= last {
                guard let hit = memchr(hay.baseAddress! + at, Int32(first), last - at + 1) else { return false }
                let index = hay.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if hay[index..<(index + needle.count)].elementsEqual(needle) { return true }
                at = index + 1
            }
            return false
        }
    }

    /// A row's top-level strings and numbers, read without JSONSerialization (which was most of
    /// a 20,000-row workbook's time), when that is all the workbook needs of it: nil for a
    /// failed row (its values are wanted) or one with notes or broken rules (said in the
    /// reader's language), which JSONSerialization then reads whole.
    static func topLevel(_ line: Data) -> [String: Any]? {
        line.withUnsafeBytes { raw -> [String: Any]? in
            var text = FlatJSON(raw)
            var object: [String: Any] = [:]
            guard text.take(UInt8(ascii: "{")) else { return nil }
            if text.take(UInt8(ascii: "}")) { return text.atEnd ? object : nil }
            repeat {
                guard let name = text.string(), text.take(UInt8(ascii: ":")), let first = text.nextByte else { return nil }
                switch first {
                case UInt8(ascii: "\""):
                    guard let value = text.string() else { return nil }
                    object[name] = value
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    var probe = text
                    if let whole = probe.integer() {
                        text = probe
                        object[name] = whole
                    } else {
                        guard let value = text.number() else { return nil }
                        object[name] = value
                    }
                default:
                    if ["notes", "problems"].contains(name) { return nil }
                    let start = text.offset
                    guard text.skipValue() else { return nil }
                    // A change's phrase, kept as its bytes: decoded only for a reader of another language.
                    if name == "changes_said" { object[name] = Data(raw[start..<text.offset]) }
                }
            } while text.take(UInt8(ascii: ","))
            guard text.take(UInt8(ascii: "}")), text.atEnd else { return nil }
            if (object["status"] as? String) == RowOutcome.Status.failed.rawValue { return nil }
            return object
        }
    }
}
