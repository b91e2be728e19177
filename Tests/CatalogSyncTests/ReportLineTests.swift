@testable import CatalogSync
import Foundation
import Testing
import Words

@Suite("report.json's rows written by hand")
struct ReportLineTests {
    /// The encoder the report used for every row (and still uses for rows with notes or problems).
    private func encoded(_ row: RowOutcome) throws -> Any {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try JSONSerialization.jsonObject(with: try encoder.encode(row))
    }

    @Test("each row's line is the object JSONEncoder wrote: quotes, backslashes, control characters, Korean, slashes, absent fields")
    func sameObject() throws {
        let awkward = "따옴표 \"quoted\" back\\slash / slash\ttab\nline\r\u{01}\u{1F}é 🍵"
        var rows = [
            RowOutcome(row: 2, key: "TEA-001", name: "Green tea", status: .unchanged, productID: 41, seconds: 0),
            RowOutcome(row: 3, key: awkward, name: awkward, status: .failed, error: awkward,
                       imagesBefore: [1_200_000, 5], imagesAfter: [280_000, 5], attempts: 3, seconds: 1.234567,
                       thumbnail: "https://example.com/a/b.jpg", values: ["name": awkward, "price": "1,000", "images": "a/b.jpg;c.jpg"]),
            RowOutcome(row: 0, key: "", name: "", status: .created, productID: 9, seconds: 12),
            RowOutcome(row: 4, key: "k", name: "n", status: .updated, productID: 1, seconds: 1e-05),
        ]
        rows[3].changes = "price, stock"
        rows[2].changesSaid = .list([Phrase("change_line", [" (+3.1 %)"], parts: [Phrase("field:price"), .verbatim("1000"), Phrase("value_empty")]),
                                     Phrase("h_first", count: 2, "k", "따옴표 \"q\"", "2")], separator: "; ")
        for row in rows {
            let line = try #require(row.reportLine())
            #expect(!line.contains(0x0A), "one line a row: the workbook reads the rows file line by line")
            let mine = try JSONSerialization.jsonObject(with: Data(line)) as? NSDictionary
            #expect(mine == (try encoded(row) as? NSDictionary), "\(String(decoding: line, as: UTF8.self))")
        }
        let failed = try #require(rows[1].reportLine())
        #expect(String(decoding: failed, as: UTF8.self).contains(ReportWorkbook.failedMark))
    }

    @Test("the workbook reads a row's own fields as JSONSerialization does; failed rows and rows with notes are read whole")
    func workbookFields() throws {
        let awkward = "따옴표 \"quoted\" back\\slash / slash\ttab\nline\r\u{01} 🍵"
        var rows = [
            RowOutcome(row: 2, key: awkward, name: awkward, status: .unchanged, productID: 41, imagesBefore: [1, 2], imagesAfter: [3, 4],
                       attempts: 2, seconds: 0.25, thumbnail: "http://x/y.jpg", values: ["name": awkward, "nested": "{\"a\": [1]}"]),
            RowOutcome(row: 3, key: "k", name: "n", status: .updated, productID: 7, seconds: 3),
        ]
        rows[1].changes = "price"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for row in rows {
            for line in [Data(try #require(row.reportLine())), try encoder.encode(row)] {
                let fast = try #require(ReportWorkbook.topLevel(line))
                let whole = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
                for field in ReportWorkbook.rowColumns {
                    #expect((fast[field] as? String) == (whole[field] as? String) && (fast[field] as? Int) == (whole[field] as? Int), "\(field)")
                }
            }
        }
        var failed = rows[1]
        failed.status = .failed
        #expect(ReportWorkbook.topLevel(Data(try #require(failed.reportLine()))) == nil)
        var noted = rows[1]
        noted.notes = [Phrase("n_done_before")]
        #expect(ReportWorkbook.topLevel(try encoder.encode(noted)) == nil)
    }

    @Test("rows with notes or broken rules go to the encoder")
    func leftToTheEncoder() {
        var noted = RowOutcome(row: 2, key: "k", name: "n", status: .unchanged)
        noted.notes = [Phrase("t_report_problem", "x")]
        #expect(noted.reportLine() == nil)
        var broken = RowOutcome(row: 2, key: "k", name: "n", status: .failed)
        broken.problems = [RowProblem(column: "price", value: "x", rule: "money", message: "not a number")]
        #expect(broken.reportLine() == nil)
    }

    @Test("report.csv's seconds as %.3f wrote them")
    func milliseconds() {
        var generator = SystemRandomNumberGenerator()
        let samples: [Double] = [0, 0.0004, 0.001, 0.0996, 1, 1.5, 59.9999, 123.456, 86_400.25]
            + (0..<2_000).map { _ in Double.random(in: 0..<1_000, using: &generator) }
        for value in samples {
            let thousandths = value * 1000
            // Exactly half a thousandth apart the two may round differently; never elsewhere.
            guard abs(thousandths - thousandths.rounded(.down) - 0.5) > 1e-6 else { continue }
            #expect(JSONText.milliseconds(value) == String(format: "%.3f", value), "\(value)")
        }
    }
}
