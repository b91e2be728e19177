import CatalogSync
import Foundation
import Testing
import TestSupport
@testable import WebConsole
import Words
import Zip

/// The console and the reports it writes in the reader's language: one table of words, every
/// rule in Korean, a page's language carried to its run's report and to a running job.
@Suite("The console in English and 한국어", .serialized)
struct ConsoleLanguageTests {
    @Test("In 한국어: a running Apply's progress line (page and event stream), the refusal of a second write, the stop and the way on are said in Korean")
    func koreanProgress() async throws {
        // The sandbox answers 10 writes (a row is a register and, for its undo, a delete key) and holds the rest: the run is still going when it is
        // looked at, however late the test's polls come back on a loaded machine.
        var open = try await OpenConsole.start(rows: 200, holdWritesAfter: 10)
        open.language = "ko"
        let job = try await open.start("apply", "sheet=products.csv")
        var line = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            try await Task.sleep(for: .milliseconds(200))
            line = try await open.get(job).text.firstMatch(of: /id="progress">([^<]*)</).map { String($0.1) } ?? ""
            if let done = line.firstMatch(of: /^([0-9]+)\/200행/).flatMap({ Int($0.1) }), done >= 3 { break }
        }
        // A job that ended before it was looked at says why on its page (its summary or its error).
        let shown = line.isEmpty ? (try await open.get(job).text.firstMatch(of: /id="(?:summary|message)">([^<]*)</).map { String($0.1) } ?? "") : ""
        #expect(line.contains("/200행 (") && line.contains("실패 0") && !line.contains("rows") && !line.contains("failed"), "\(line) \(shown)")
        let busy = try await open.post("apply", "sheet=products.csv")
        #expect(busy.status == 409 && busy.text.contains("한 번에 하나씩") && !busy.text.contains("one write at a time"), "\(busy.text.suffix(500))")
        #expect(try await open.post(job + "/stop", "").status == 303)
        open.release()
        let stopped = try await open.ended(job)
        let said = stopped.text.firstMatch(of: /id="summary">([^<]*)</).map { String($0.1) } ?? ""
        #expect(said.contains("멈춤 (콘솔에서 멈춤)") && said.contains("다시 적용하면") && !said.contains("stopped"), "\(said)")
        #expect(stopped.text.contains("id=\"apply-again\""))
        let events = try await open.get(job + "/events")
        #expect(events.text.contains("\"ended\":true") && events.text.contains("행"), "\(events.text.prefix(300))")
        await open.close()
    }

    @Test("Every word the page names is in the table, in English and Korean")
    func words() {
        let named = Set(ConsolePages.sources.values.joined().matches(of: /w\.([a-z_]+)/).map { String($0.1) })
        #expect(named.count > 20)
        #expect(named.subtracting(ConsoleWords.table.keys).isEmpty, "missing: \(named.subtracting(ConsoleWords.table.keys))")
        // Every word differs between the languages, but words given as they are (a server's).
        // A message of values and punctuation only (`{1} {2}: {3}: {4}`) is the same in every language.
        let wordless = { (text: String) in text.replacing(/\{[0-9]+\}/, with: "").allSatisfy { !$0.isLetter } }
        let same = ConsoleWords.table.filter { !$0.value.en.isEmpty && $0.value.en == $0.value.ko && !wordless($0.value.en) }.keys
        #expect(ConsoleWords.table.values.allSatisfy { !$0.en.isEmpty && !$0.ko.isEmpty } && Set(same).isEmpty, "\(same)")
    }

    @Test("The pages are template files: no HTML document and no Korean word in WebConsole's Swift files, the script a file of its own")
    func pagesAreFiles() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folder = root.appendingPathComponent("Sources/WebConsole")
        for file in try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil) where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8).lowercased()
            #expect(!text.contains("<!doctype") && !text.contains("<html"), "\(file.lastPathComponent) holds a page")
            let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined()
            #expect(code.unicodeScalars.allSatisfy { !(0xAC00...0xD7A3).contains($0.value) }, "\(file.lastPathComponent) says Korean outside the words table")
        }
        for resource in ["pages/layout.mustache", "pages/check.mustache", "plain.html.mustache", "console.js"] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Resources/\(resource)").path), "\(resource)")
        }
    }

    @Test("One table for the pages and the reports: every word the report's template and the code name is in it, in both languages, with the same blanks; every status has its section and its Korean word")
    func reportWords() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let template = try String(contentsOf: root.appendingPathComponent("Sources/CatalogSync/Resources/report.html.mustache"), encoding: .utf8)
        var named = Set(template.matches(of: /w\.([a-z_]+)/).map { String($0.1) })
        // And every key the code looks up by name.
        for folder in ["CatalogSync", "CatalogExport", "WebConsole", "Words", "openmarket"] {
            let files = try FileManager.default.contentsOfDirectory(at: root.appendingPathComponent("Sources/\(folder)"), includingPropertiesForKeys: nil)
            for file in files where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                named.formUnion(text.matches(of: /(?:WordTable\.text|WordTable\.filled|filled|Console\.say|Phrase|ExportError|say:)\(?\s?"([a-z][a-z_]*_[a-z_]+)"/).map { String($0.1) })
            }
        }
        #expect(named.count > 25, "\(named)")
        #expect(named.subtracting(WordTable.table.keys).isEmpty, "missing: \(named.subtracting(WordTable.table.keys))")
        for (key, pair) in WordTable.table {
            #expect(pair.en.components(separatedBy: "{}").count == pair.ko.components(separatedBy: "{}").count, "\(key): the blanks differ")
        }
        for status in ["created", "updated", "unchanged", "skipped", "failed", "replaced", "linked", "deleted", "restored",
                       "would-create", "would-update", "would-delete", "would-restore", "not-sent"] {
            #expect(WordTable.table["section_\(status)"] != nil && StatusWords.korean[status] != nil, "\(status)")
        }
    }

    @Test("Every rule the sheet readers, the feeds and the planner name has its Korean message")
    func everyRuleInKorean() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        // Names of the same shape that are not rules: the OpenDocument's XML, encodings.
        let notRules: Set<String> = ["boolean-value", "covered-table-cell", "date-value", "euc-kr", "line-break", "number-columns-repeated",
                                     "number-rows-repeated", "style-name", "table-cell", "table-properties", "table-row", "value-type",
                                     "unicode-path"]
        var named = Set<String>()
        for folder in ["Manifest", "Manifest/Workbook", "Feeds", "CatalogSync"] {
            let files = try FileManager.default.contentsOfDirectory(at: root.appendingPathComponent("Sources/\(folder)"), includingPropertiesForKeys: nil)
            for file in files where file.pathExtension == "swift" && (folder != "CatalogSync" || file.lastPathComponent.hasPrefix("SyncPlanner")) {
                let text = try String(contentsOf: file, encoding: .utf8)
                named.formUnion(text.matches(of: /"([a-z]+(?:-[a-z]+)+)"/).map { String($0.1) })
            }
        }
        named.subtract(notRules)
        #expect(named.count > 50, "\(named.count)")
        let missing = named.subtracting(RuleWords.korean.keys)
        #expect(missing.isEmpty, "rules without Korean: \(missing.sorted())")
    }

    @Test("A plan from a page in 한국어 writes its report in Korean (report.html and report.xlsx); the same plan from an English page, in English")
    func reportInPageLanguage() async throws {
        var open = try await OpenConsole.start(rows: 3)
        open.language = "ko"
        let korean = try await open.run("plan", "sheet=products.csv")
        #expect(korean.text.contains("생성 예정 3"), "\(korean.text.prefix(800))")
        // The plans' report folders, each a folder of its own.
        func plans() throws -> Set<URL> {
            let folder = open.files.directory.appendingPathComponent("reports")
            return Set(try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
                .filter { $0.lastPathComponent.hasPrefix("plan") })
        }
        let before = try plans()
        let first = try #require(before.first)
        #expect(before.count == 1)
        let html = try String(contentsOf: first.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("<html lang=\"ko\">") && html.contains("products.csv 가져오기 — 미리보기") && html.contains("생성 예정 (would-create)"))
        #expect(!html.contains("Would create") && !html.contains("Import of"))
        let book = try ZipParts(url: first.appendingPathComponent("report.xlsx"))
        let sheets = try book.data(try #require(book["xl/workbook.xml"]))
        let names = String(decoding: sheets, as: UTF8.self)
        #expect(names.contains("고쳐서 가져오기") && names.contains("모든 행") && !names.contains("All rows"), "\(names)")
        open.language = "en"
        let english = try await open.run("plan", "sheet=products.csv")
        #expect(english.text.contains("3 would-create"))
        let made = try plans().subtracting(before)
        #expect(made.count == 1)
        let second = try #require(made.first)
        let text = try String(contentsOf: second.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(text.contains("<html lang=\"en\">") && text.contains("Would create") && !text.contains("생성 예정"))
        await open.close()
    }
}
