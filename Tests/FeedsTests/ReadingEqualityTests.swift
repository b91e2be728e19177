@testable import Feeds
import Foundation
@testable import Manifest
import OpenMarketContract
import Testing
import TestSupport

/// What `validate` and `import` read from a file, row for row, is what the reading did before
/// the readers and the maps were made faster (issue 80): random sheets (seeded, so the same
/// every run) in each format of our own columns and in each shipped map's layout are read the
/// way `validate` reads them, and every row's values, photos, notes, draft and issues are
/// compared with what the reading made of them when the fixtures were recorded (at 043ced5,
/// before the change). `OPENMARKET_RECORD_READING=1 swift test --filter ReadingEquality`
/// records them again; a difference names the first row that differs.
// Serialized: eleven readings on the test process's threads, which the timing tests share.
@Suite("Reading every format and map: row for row as before", .serialized)
struct ReadingEqualityTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/reading-equality")
    static let rows = 240

    /// Cells as platforms and merchants write them: blanks, form words, prices with commas and
    /// units, options, photo lists, dates, HTML, quotes and line breaks.
    static let words = ["", "", "", " ", "필수", "입력해 주세요", "Y", "N", "T", "F", "판매중", "품절", "판매중지", "active", "draft",
                        "12,900", "1000", "25000", "1,000원", "$12.50", "7", "0", "-3", "+5", "0.5", "₩9,900", "10%", "원", "%",
                        "빨강,파랑", "0,500", "5,7", "색상{녹색|갈색}//용량{50g|100g}", "01\n02", "빨강|파랑\nS|M", "0|1000", "3|4",
                        "a.jpg", "a.jpg|b.jpg", "b.jpg,a.jpg", "https://example.com/p/1.jpg", "2020-01-01", "2099-12-31",
                        "코튼 티셔츠", "녹차 라떼 \"선물\"", "T-100", "t-100", "00120", "120", "<p>면 100%</p><br>세탁 주의",
                        "=SUM(A1)", "Default Title", "simple", "variable", "KRW", "USD", "개", "#N/A"]

    static func cell(_ generator: inout SplitMix) -> String {
        // A third of the cells a row number of their own (keys, names that differ).
        if generator.next() % 3 == 0 { return "K-\(generator.next() % 400)" }
        return words[Int(generator.next() % UInt64(words.count))]
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Every row read, one line each, in an order that does not depend on the process
    /// (dictionaries sorted).
    static func dump(_ url: URL, _ options: ValidationOptions) throws -> String {
        var lines: [String] = []
        let summary = try ManifestCheck.run(url, options: options, onFileIssue: { issue in
            lines.append("file \(issue.severity) \(issue.rule) \(issue.column ?? "-"): \(issue.message)")
        }) { raw, draft, issues in
            var line = "row \(raw.number)"
            line += " values[" + raw.values.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: "|") + "]"
            if let list = raw.imageList { line += " list\(list)" }
            for note in raw.notes { line += " note(\(note.rule) \(note.column ?? "-") \(note.value ?? "-"): \(note.message))" }
            if let origin = raw.origin {
                line += " origin(skipped \(origin.skipped ?? "-"), offSale \(origin.offSale.map { "\($0.column) \($0.value)" } ?? "-"),"
                line += " explained " + origin.explanations.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue): \($0.value)" }.joined(separator: "; ")
                line += ", protected \(origin.protected))"
            }
            if let draft {
                let fields = (try? JSONEncoder.sorted.encode(draft.fields)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
                line += " draft(key \(draft.key ?? "-") id \(draft.id.map(String.init) ?? "-") \(fields) images \(draft.images.map { "\($0)" })"
                line += " given \(draft.given) delta \(draft.stockDelta.map(String.init) ?? "-") needs \(draft.createProblems.map(\.rule))"
                line += " protected \(draft.protected) offSale \(draft.offSale.map { "\($0.column) \($0.value)" } ?? "-"))"
            }
            for issue in issues { line += " issue(\(issue.severity) \(issue.rule) \(issue.column ?? "-") \(issue.value ?? "-"): \(issue.message))" }
            lines.append(line)
        }
        lines.append("summary rows \(summary.rows) valid \(summary.valid) errors \(summary.withErrors) warnings \(summary.withWarnings) skipped \(summary.skipped) offSale \(summary.offSale) updateOnly \(summary.updateOnly)")
        // The sheet's folder differs every run: said as `FOLDER`.
        let folder = url.deletingLastPathComponent()
        return (lines.joined(separator: "\n") + "\n").replacingOccurrences(of: folder.absoluteString, with: "FOLDER/")
            .replacingOccurrences(of: folder.path, with: "FOLDER")
    }

    /// The dump compared with the fixture (or recorded as it).
    static func compare(_ text: String, fixture name: String) throws {
        let url = fixtures.appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["OPENMARKET_RECORD_READING"] == "1" {
            try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        let got = text.split(separator: "\n", omittingEmptySubsequences: false)
        let want = expected.split(separator: "\n", omittingEmptySubsequences: false)
        for (a, b) in zip(got, want) where a != b {
            Issue.record("\(name): read now\n  \(a)\nread before\n  \(b)")
            return
        }
        #expect(got.count == want.count, "\(name): \(got.count) lines now, \(want.count) before")
    }

    static func options() -> ValidationOptions {
        var options = ValidationOptions()
        options.checkImageFiles = false
        return options
    }

    @Test("each shipped map: random rows of its layout, read as before", arguments: ShippedMaps.names)
    func shippedMap(_ name: String) async throws {
        let map = try #require(ShippedMaps.named(name))
        let feed = map.mapping.feed
        var headers = (feed.detect?.headers ?? []) + feed.referencedHeaders.compactMap { ref -> String? in
            if case .header(let text) = ref { return text }
            return nil
        }
        var seen = Set<String>()
        headers = headers.filter { seen.insert($0).inserted } + ["메모"]
        var generator = SplitMix(seed: UInt64(name.utf8.reduce(7) { $0 &* 31 &+ UInt64($1) }))
        // Most rows on sale (the map's `active` value), so that their prices, photos and options are read too.
        var onSale: [String: String] = [:]
        for test in feed.filter.active { if case .header(let text) = test.source, let value = test.values.first { onSale[text] = value } }
        var text = headers.map(Self.csvField).joined(separator: ",") + "\n"
        for _ in 0..<Self.rows {
            text += headers.map { header in
                if let value = onSale[header], generator.next() % 5 != 0 { return value }
                return Self.csvField(Self.cell(&generator))
            }.joined(separator: ",") + "\n"
        }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("\(name).csv")
        try Data(text.utf8).write(to: url)
        var options = Self.options()
        options.platformMaps = ShippedMaps.all()
        options.currency = "KRW"
        let dumped = try await blocking { [options] in try Self.dump(url, options) }
        try Self.compare(dumped, fixture: "map-\(name)")
    }

    @Test("our own columns in CSV, JSON and JSON Lines: random rows, read as before", arguments: ["csv", "json", "jsonl"])
    func ownColumns(_ format: String) async throws {
        let columns = ["key", "name", "description", "price", "sale_price", "currency", "stock", "images", "메모"]
        var generator = SplitMix(seed: 80)
        // Every other row well formed (a draft is made), the others random.
        let rows = (0..<Self.rows).map { index in
            index % 2 == 0 ? ["SKU-\(index)", "상품 \(index), 녹차", "Row \(index)", "\(1000 + index)", index % 4 == 0 ? "900" : "",
                              "KRW", "\(index % 7)", index % 3 == 0 ? "a.jpg;b.jpg" : "a.jpg", ""]
                : columns.map { _ in Self.cell(&generator) }
        }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("own.\(format)")
        var text = ""
        switch format {
        case "csv":
            text = columns.joined(separator: ",") + "\n" + rows.map { $0.map(Self.csvField).joined(separator: ",") }.joined(separator: "\n") + "\n"
        default:
            let objects = rows.map { row in
                "{" + zip(columns, row).map { "\(Self.json($0)): \(Self.json($1))" }.joined(separator: ", ") + "}"
            }
            text = format == "json" ? "[\n" + objects.joined(separator: ",\n") + "\n]\n" : objects.joined(separator: "\n") + "\n"
        }
        try Data(text.utf8).write(to: url)
        let dumped = try await blocking { try Self.dump(url, Self.options()) }
        try Self.compare(dumped, fixture: "own-\(format)")
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reading-equality-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func json(_ text: String) -> String {
        String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
    }
}

private extension JSONEncoder {
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
