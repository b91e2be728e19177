import Foundation
import Testing
import TestSupport
@testable import WebConsole

// What the console answers besides its pages' work: its headers, its export, its error pages,
// a stopped job's progress (the items, each over real HTTP where there is a request).

@Suite("The console's headers", .serialized)
struct ConsoleHeaderTests {
    @Test("every page says: scripts from the console only (none inline), framed by no page, no referrer, no sniffing; its report framed by itself only")
    func securityHeaders() async throws {
        let open = try await OpenConsole.start(rows: 2)
        for path in ["", "runs", "feeds", "backups"] {
            let page = try await open.get(path)
            #expect(page.status == 200, "/\(path)")
            let policy = page.headers["content-security-policy"] ?? ""
            #expect(policy.contains("script-src 'self';") && policy.contains("frame-ancestors 'none'"), "/\(path): \(policy)")
            #expect(!policy.contains("script-src 'self' 'unsafe-inline'"), "/\(path): \(policy)")
            #expect(page.headers["referrer-policy"] == "no-referrer" && page.headers["x-content-type-options"] == "nosniff", "/\(path): \(page.headers)")
            // No inline script or handler: the one script is a file.
            let inline = page.text.components(separatedBy: "<script").dropFirst().filter { !$0.hasPrefix(" src=") }
            #expect(inline.isEmpty && !page.text.contains("onchange=") && !page.text.contains("onclick="), "/\(path)")
        }
        let script = try await open.get("console.js")
        #expect(script.status == 200 && script.headers["content-type"]?.hasPrefix("text/javascript") == true && script.text.contains("EventSource"))
        // With no referrer, the browser's own form says Origin null and Sec-Fetch-Site same-origin;
        // another site's form says cross-site, and is refused.
        let cross = try await curl(["-H", "Cookie: \(open.cookie)", "-H", "Origin: null", "-H", "Sec-Fetch-Site: cross-site",
                                    "--data", "sheet=products.csv", open.console.url.absoluteString + "check"])
        #expect(cross.status == 403, "\(cross.text)")
        let own = try await curl(["-H", "Cookie: \(open.cookie)", "-H", "Origin: null", "-H", "Sec-Fetch-Site: same-origin",
                                  "--data", "sheet=products.csv", open.console.url.absoluteString + "check"])
        #expect(own.status == 200 && own.text.contains("2 rows"), "\(own.text.prefix(300))")
        // A refusal carries them too.
        let refused = try await curl([open.console.url.absoluteString])
        #expect(refused.status == 403 && refused.headers["x-content-type-options"] == "nosniff")
        await open.close()
    }
}

@Suite("The console's export", .serialized)
struct ConsoleExportTests {
    @Test("a shop that refuses the credentials: a page saying so in the page's language, never an empty 200 file; a good export starts with a BOM")
    func refusedAndBOM() async throws {
        var refused = try await OpenConsole.start(rows: 2, wrongSecret: true)
        let english = try await refused.get("export")
        #expect(english.status == 502 && english.headers["content-disposition"] == nil, "\(english.status) \(english.headers)")
        #expect(english.text.contains("The shop refused this profile") && english.text.contains("HTTP 4"), "\(english.text.suffix(800))")
        refused.language = "ko"
        let korean = try await refused.get("export")
        #expect(korean.status == 502 && korean.text.contains("쇼핑몰이 이 프로필의 자격 증명"), "\(korean.text.prefix(600))")
        await refused.close()

        let open = try await OpenConsole.start(rows: 2)
        _ = try await open.run("apply", "sheet=products.csv")
        let export = try await open.get("export")
        #expect(export.status == 200 && export.body.starts(with: [0xEF, 0xBB, 0xBF]), "\(export.body.prefix(8).map { $0 })")
        await open.close()
    }
}

@Suite("The console's error pages", .serialized)
struct ConsoleErrorPageTests {
    @Test("an unknown page or job, a bad form, a refusal: each a console page in the page's language, never a blank one")
    func errorPages() async throws {
        var open = try await OpenConsole.start(rows: 1)
        let unknown = try await open.get("jobs/no-such-job")
        #expect(unknown.status == 404 && unknown.text.contains("404 · not found") && unknown.text.contains("There is no such page here"), "\(unknown.text.suffix(600))")
        #expect(unknown.text.contains("href=\"/runs\""), "the menu is there: a way on")
        let report = try await open.get("runs/nothing/report.html")
        #expect(report.status == 404 && report.text.contains("There is no such page here"))
        let badForm = try await open.post("check", "sheet=../../etc/passwd")
        #expect(badForm.status == 400 && badForm.text.contains("cannot use"), "\(badForm.text.suffix(400))")
        open.language = "ko"
        let korean = try await open.get("jobs/no-such-job")
        #expect(korean.status == 404 && korean.text.contains("그런 페이지가 없습니다"), "\(korean.text.suffix(600))")
        // A bad form in Korean: what was wrong said in Korean, no folder path of the machine's.
        let koreanForm = try await open.post("check", "sheet=../../etc/passwd")
        #expect(koreanForm.status == 400 && koreanForm.text.contains("시트가 콘솔 폴더에 없습니다")
                && !koreanForm.text.contains(open.files.directory.path) && !koreanForm.text.contains("no such sheet"), "\(koreanForm.text.suffix(600))")
        let koreanCurrency = try await open.post("plan", "sheet=products.csv&currency=XYZ")
        #expect(koreanCurrency.status == 400 && koreanCurrency.text.contains("통화는 KRW, USD, JPY 중 하나입니다"), "\(koreanCurrency.text.suffix(600))")
        // Refused before the console knows whose page it is: a page of its own, in the reader's language.
        let noToken = try await curl(["-H", "Accept-Language: ko-KR,ko;q=0.9", open.console.url.absoluteString])
        #expect(noToken.status == 403 && noToken.headers["content-type"]?.hasPrefix("text/html") == true
                && noToken.text.contains("콘솔의 키가 필요합니다"), "\(noToken.text)")
        let english = try await curl([open.console.url.absoluteString + "?token=wrong"])
        #expect(english.status == 403 && english.text.contains("is not this console"), "\(english.text)")
        await open.close()
    }
}

@Suite("A stopped job's progress")
struct ConsoleStopProgressTests {
    @Test("after Stop the progress says the rows done and in flight, not the rows the stop counts through unsent")
    func progressAfterStop() {
        let job = ConsoleJob(id: "j", kind: .apply, subject: "products.csv")
        job.count(done: 72, total: 300)
        #expect(job.progress.done == 72)
        job.stop()
        // The run counts the rest through as not sent: 296 of 300 would read as almost all done.
        job.count(done: 296, total: 300)
        #expect(job.progress.done == 72 && job.progress.stopping, "\(job.progress)")
    }
}
