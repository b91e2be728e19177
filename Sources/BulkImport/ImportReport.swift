import CSV
import Foundation
import Manifest
import Mustache

/// The run's report: `report.csv` and `report.json` (one line per row; the JSON
/// also holds the summary) and `report.html` (failures first, then the
/// products with their thumbnails). Never holds an identifier or a secret:
/// nothing here ever sees them.
public enum ImportReport {
    public static func write(summary: ImportSummary, rows: [RowOutcome], manifest: URL, to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try writeCSV(rows, to: directory.appendingPathComponent("report.csv"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        struct Document: Encodable { var summary: ImportSummary; var rows: [RowOutcome] }
        try encoder.encode(Document(summary: summary, rows: rows)).write(to: directory.appendingPathComponent("report.json"))
        try html(summary: summary, rows: rows, manifest: manifest)
            .write(to: directory.appendingPathComponent("report.html"), atomically: true, encoding: .utf8)
    }

    static func sizes(_ before: [Int], _ after: [Int]) -> String {
        zip(before, after).map { "\($0) → \($1)" }.joined(separator: "; ")
    }

    static func kilobytes(_ bytes: Int) -> String {
        bytes >= 1_048_576 ? String(format: "%.1f MB", Double(bytes) / 1_048_576) : "\(max(1, bytes / 1024)) KB"
    }

    static func writeCSV(_ rows: [RowOutcome], to url: URL) throws {
        guard let stream = OutputStream(url: url, append: false) else { throw CocoaError(.fileWriteUnknown) }
        stream.open()
        let csv = try CSVWriter(stream: stream, newline: .crlf)
        try csv.write(row: ["row", "key", "name", "status", "product_id", "error", "images (bytes before → after)", "attempts", "seconds", "note"])
        for row in rows {
            try csv.write(row: [String(row.row), row.key, row.name, row.status.rawValue, row.productID.map(String.init) ?? "",
                                row.error ?? "", sizes(row.imagesBefore, row.imagesAfter), String(row.attempts),
                                String(format: "%.3f", row.seconds), row.note ?? ""].map(CSVCell.neutralise))
        }
        stream.close()
    }

    static func html(summary: ImportSummary, rows: [RowOutcome], manifest: URL) throws -> String {
        let url = Bundle.module.url(forResource: "report.html", withExtension: "mustache")
        guard let url, let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: "report.html.mustache"])
        }
        let template = try MustacheTemplate(string: text)
        let failures = rows.filter(\.isFailure).map { row -> [String: Any] in
            ["row": row.row, "name": row.name, "error": row.error ?? "",
             "values": row.values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: " · ")]
        }
        let products = rows.filter { !$0.isFailure }.map { row -> [String: Any] in
            let images = zip(row.imagesBefore, row.imagesAfter).map { before, after in
                before == after ? kilobytes(after) : "\(kilobytes(before)) → \(kilobytes(after))"
            }.joined(separator: ", ")
            var item: [String: Any] = ["row": row.row, "name": row.name, "status": row.status.rawValue,
                                       "images": images, "note": row.note ?? ""]
            if let id = row.productID { item["product_id"] = id }
            if let thumbnail = row.thumbnail, thumbnail.hasPrefix("http://") || thumbnail.hasPrefix("https://") {
                item["thumbnail"] = thumbnail
            }
            return item
        }
        let context: [String: Any] = [
            "manifest": manifest.lastPathComponent, "server": summary.server, "mode": summary.mode.rawValue,
            "dry_run": summary.dryRun, "rows": summary.rows, "seconds": String(format: "%.1f", summary.seconds),
            "rate": String(format: "%.1f", summary.productsPerSecond), "stopped": summary.stopped ?? "",
            "counts": summary.counts.sorted { $0.key < $1.key }.map { ["status": $0.key, "count": $0.value] },
            "has_failures": !failures.isEmpty, "failure_count": failures.count, "failures": failures,
            "has_products": !products.isEmpty, "product_count": products.count, "products": products,
        ]
        return template.render(context)
    }
}
