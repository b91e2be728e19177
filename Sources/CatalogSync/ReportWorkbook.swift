import Foundation
import Manifest

/// `report.xlsx`: a first sheet a merchant can fix and import again (the failed rows,
/// each with its values and what went wrong), and every row of report.csv on a second
/// sheet, failed ones first. Read from the report's row file, so memory stays flat.
enum ReportWorkbook {
    /// The columns of the fix-and-import sheet: a manifest's, then what went wrong.
    static let manifestColumns = ["key", "id", "name", "description", "price", "currency", "discounted_price", "stock", "images"]
    static let rowColumns = ["row", "key", "name", "status", "product_id", "changes", "error", "attempts", "note"]

    /// `headers`: the merchant's own header of a column (`상품코드` for key), so that the sheet
    /// to fix reads like the one they sent.
    static func write(rows rowsFile: URL, to url: URL, imagesRoot: URL? = nil, headers: [String: String] = [:]) throws {
        let book = try SpreadsheetWriter(url: url, sheetName: "Fix and import")
        let fix = book.currentSheet
        book.widths([16, 10, 30, 40, 12, 9, 16, 8, 40, 60, 8])
        book.header(manifestColumns.map { headers[$0] ?? $0 } + [ManifestReader.errorsHeader, "row"])
        let all = try book.addSheet("All rows")
        book.widths([7, 16, 30, 12, 10, 40, 60, 8, 30])
        book.header(rowColumns)
        // Two passes over the row file: failed rows first, then the others.
        for failedPass in [true, false] {
            try eachRow(in: rowsFile) { object in
                let failed = (object["status"] as? String) == RowOutcome.Status.failed.rawValue
                guard failed == failedPass else { return }
                if failed {
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
                        cells.append(["price", "discounted_price", "stock"].contains(column) ? .number(value) : .text(value))
                    }
                    cells.append(.text(object["error"] as? String ?? ""))
                    cells.append(number(object["row"]))
                    book.select(fix)
                    try book.write(cells)
                }
                book.select(all)
                try book.write(rowColumns.map { column -> SpreadsheetWriter.Cell in
                    switch column {
                    case "row", "product_id", "attempts": return number(object[column])
                    default: return (object[column] as? String).map { .text($0) } ?? .empty
                    }
                })
            }
        }
        try book.close()
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
    private static func eachRow(in file: URL, _ body: ([String: Any]) throws -> Void) throws {
        let reader = try LineReader(url: file, file: file.lastPathComponent)
        while let (_, line) = try reader.next() {
            var text = Substring(line)
            while text.first == " " { text.removeFirst() }
            if text.last == "," { text.removeLast() }
            guard !text.isEmpty, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { continue }
            try body(object)
        }
    }
}
