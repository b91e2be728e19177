import Foundation
import Testing
import TestSupport

/// No page of the console sends its reader to a terminal: every page and message, in English and
/// in 한국어, crawled after the things a merchant does (check, plan, apply with failed rows, undo,
/// feeds, backups, a snapshot that is not there, pages that are not there) names no `--flag` and
/// no `openmarket <command>`.
@Suite("The console names no terminal", .serialized)
struct ConsoleCrawlTests {
    static let commands = ["import", "validate", "undo", "runs", "snapshots", "export", "feed", "sandbox", "backup", "restore", "migrate",
                           "doctor", "template", "images", "list", "show", "delete", "health"]

    /// The words a reader sees: the page without its markup, script and style.
    static func visible(_ html: String) -> String {
        html.replacing(/<style>[\s\S]*?<\/style>/, with: " ").replacing(/<script[\s\S]*?<\/script>/, with: " ")
            .replacing(/<[^>]+>/, with: " ")
    }

    static func terminal(in text: String) -> [String] {
        text.matches(of: /(?:^|\s)--[a-z][a-z-]+/).map { String($0.0) } + commands.filter { text.contains("openmarket \($0)") }.map { "openmarket \($0)" }
    }

    @Test("every page and message in English and 한국어 after check, plan, apply, undo, feeds and backups: no --flag, no openmarket <command>")
    func crawl() async throws {
        var open = try await OpenConsole.start(rows: 3)
        let supplier = try await FeedSourceServer.start()
        supplier.serve("code,title,cost,qty,photo\nS1,Supplier tea,1000,2,\n")
        try open.writeFeed(source: supplier.feedURL)
        try Data("key,name,price,stock,images\nB1,Broken tea,abc,1,p.jpg\nB2,Good tea,5000,1,p.jpg\n".utf8)
            .write(to: open.files.directory.appendingPathComponent("broken.csv"))
        // UTF-16 without its mark, mostly Korean: its encoding cannot be told, so the page asks it.
        try "상품코드,상품명,판매가격,재고수량\n녹차01,보성녹차라떼,만,삼\n".data(using: .utf16LittleEndian)!
            .write(to: open.files.directory.appendingPathComponent("utf16.csv"))
        var seen: [String: String] = [:]
        func look(_ name: String, _ page: CurlResult) { seen[name + " (" + (open.language ?? "en") + ")"] = Self.visible(page.text) }

        for language in [nil, "ko"] {
            open.language = language
            for path in ["", "runs", "feeds", "backups", "no-such-page", "jobs/999999", "backups/diff?from=nope&to=latest"] {
                look(path.isEmpty ? "sheets" : path, try await open.get(path))
            }
            look("check", try await open.post("check", "sheet=products.csv"))
            look("check broken", try await open.post("check", "sheet=broken.csv"))
            let unknown = try await open.post("check", "sheet=utf16.csv")
            look("check utf16", unknown)
            #expect(unknown.text.contains("id=\"encoding\"") && unknown.text.contains("value=\"utf-16le\""), "the encoding asked: \(unknown.text.suffix(1500))")
            let chosen = try await open.post("check", "sheet=utf16.csv&encoding=utf-16le")
            look("check utf16 as utf-16le", chosen)
            #expect(chosen.status == 200 && (chosen.text.contains(">1 rows:") || chosen.text.contains(">1행:")) && chosen.text.contains("value=\"utf-16le\""),
                    "read in the encoding chosen: \(chosen.text.suffix(1500))")
            look("plan", try await open.run("plan", "sheet=products.csv"))
            let applied = try await open.start("apply", "sheet=broken.csv")
            look("apply broken", try await open.ended(applied))
            look("apply broken's report", try await open.get(applied + "/report.html"))
            look("feed run", try await open.run("feeds/run", "feed=acme"))
            look("restore-plan of no snapshot", try await open.post("backups/restore-plan", "snapshot=nope"))
            let runs = try await open.get("runs").text
            if let folder = runs.firstMatch(of: /name="run" value="([^"]+)"/).map({ String($0.1) }) {
                let encoded = folder.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? folder
                look("undo plan", try await open.run("undo-plan", "run=\(encoded)"))
            }
        }
        #expect(seen.count >= 26, "\(seen.keys.sorted())")
        for (name, text) in seen.sorted(by: { $0.key < $1.key }) {
            #expect(Self.terminal(in: text).isEmpty, "\(name) names a terminal: \(Self.terminal(in: text)) in \(text.prefix(1200))")
        }
        await supplier.stop()
        await open.close()
    }
}
