import Foundation
import OpenMarketAPI
import Testing
import TestSupport

@Suite("openmarket feed, and --feed on validate and import")
struct FeedCommandTests {
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
    static var template: String { root.appendingPathComponent("templates/feed.toml").path }
    static var supplier: String { root.appendingPathComponent("samples/supplier.csv").path }

    @Test("feed test on the sample supplier file: their cells, ours, the rule, the skipped rows; nothing sent, exit 0")
    func trial() async throws {
        let result = try await CLIProcess.run(["feed", "test", Self.template, Self.supplier, "--rows", "2"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("row 2\n  supplier  상품코드=SUP-101 · 상품명=제주 녹차 티백 50개입 · 공급가=8,200"), "\(result.stdout)")
        #expect(result.stdout.contains("price 10,700 (cost 8,200, markup 30 %, up to 100)"))
        #expect(result.stdout.contains("description 제주 유기농 녹차 티백. [protected: set on create only]"))
        #expect(result.stdout.contains("row 6: skipped by [filter] skip: 카테고리 is 샘플"))
        #expect(result.stdout.contains("Not used by the feed: 비고"))
        #expect(result.stdout.contains("supplier.csv: 7 rows, 5 valid, 0 with errors, 0 with warnings, 2 left out by the filter (feed feed; nothing was sent)"))
    }

    @Test("a feed file's mistake is exit 2 naming the file, the line and the key, for feed test, validate and import")
    func badFeedFile() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let feed = files.directory.appendingPathComponent("acme.toml")
        try Data("[columns]\nkey = \"상품코드\"\n\n[prices]\nmarkup = 30\n".utf8).write(to: feed)
        let expected = "\(feed.path), line 5, prices.markup: unknown key"
        for arguments in [["feed", "test", feed.path, Self.supplier], ["validate", Self.supplier, "--feed", feed.path],
                          ["import", Self.supplier, "--feed", feed.path, "--server", "http://127.0.0.1:9"]] {
            let result = try await CLIProcess.run(arguments)
            #expect(result.status == 2 && result.stderr.contains(expected), "\(arguments[0]): \(result.stderr)")
        }
    }

    @Test("a renamed supplier column: exit 2 with what was expected and the closest header, before anything is sent")
    func renamedColumn() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let text = try String(contentsOfFile: Self.supplier, encoding: .utf8).replacingOccurrences(of: "공급가", with: "공급 가격")
        let renamed = files.directory.appendingPathComponent("supplier.csv")
        try Data(text.utf8).write(to: renamed)
        let sandbox = try await TestSandbox.start()
        let result = try await CLIProcess.run(importArguments(renamed, sandbox, ["--feed", Self.template]))
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("공급가 (cost): not in the file; did you mean 공급 가격?"), "\(result.stderr)")
        #expect(sandbox.server.requests.writes == 0)
        await sandbox.stop()
    }

    @Test("import --feed by name from the feeds folder; feed test --live shows old → new from the shop")
    func importByName() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let feeds = files.directory.appendingPathComponent("config/openmarket/feeds")
        try FileManager.default.createDirectory(at: feeds, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.template, toPath: feeds.appendingPathComponent("acme.toml").path)
        let environment = ["XDG_CONFIG_HOME": files.directory.appendingPathComponent("config").path,
                           "XDG_STATE_HOME": files.directory.appendingPathComponent("state").path]
        // The supplier's file beside the sample photos (its image cells are relative to it).
        let sheet = Self.root.appendingPathComponent("samples/supplier.csv")
        let sandbox = try await TestSandbox.start()
        let credentials = sandbox.demoAccount
        let report = files.directory.appendingPathComponent("report")
        let first = try await CLIProcess.run(["import", sheet.path, "--feed", "acme", "--no-cache", "--report", report.path,
                                              "--journal", files.directory.appendingPathComponent("journal").path] + credentials,
                                             environment: environment)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("7 rows: 5 created, 2 skipped"), "\(first.stdout)")
        let products = try await allProducts(sandbox)
        #expect(products.count == 5 && products.first { $0.name == "제주 녹차 티백 50개입" }?.price == 10700)
        let writes = sandbox.server.requests.writes

        // The supplier's cost rises: feed test --live says what an import would change, and sends nothing.
        let text = try String(contentsOf: sheet, encoding: .utf8).replacingOccurrences(of: "\"8,200\",40", with: "\"9,000\",40")
        let next = files.directory.appendingPathComponent("supplier.csv")
        try Data(text.utf8).write(to: next)
        let live = try await CLIProcess.run(["feed", "test", "acme", next.path, "--rows", "1", "--live",
                                             "--images", Self.root.appendingPathComponent("samples").path] + credentials,
                                            environment: environment)
        #expect(live.status == 0, "\(live.stdout)\(live.stderr)")
        #expect(live.stdout.contains("  shop      would-update: price 10700 → 11700 (+9.3 %) (cost 9,000, markup 30 %, up to 100)"),
                "\(live.stdout)")
        #expect(sandbox.server.requests.writes == writes)
        await sandbox.stop()
    }
}
