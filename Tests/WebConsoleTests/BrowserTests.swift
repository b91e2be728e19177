import Foundation
import Testing
import TestSupport

/// The console in a real browser (Debian's headless Chromium through chromedriver): the page's
/// forms, redirects, cookie, script and event stream as a merchant's browser runs them. Each
/// screen is photographed at 1280 px (and the sheets at a phone's width); with
/// `OPENMARKET_SCREENSHOTS=FOLDER` the pictures are kept there (docs/console/ is made so).
@Suite("The console in Chromium", .serialized)
struct BrowserTests {
    /// Where the screenshots go, and a check that each is a picture of a page, not an empty one.
    struct Camera {
        let folder: URL
        let keep: Bool

        init(_ scratch: Scratch) throws {
            if let kept = startEnvironment["OPENMARKET_SCREENSHOTS"] {
                folder = URL(fileURLWithPath: kept)
                keep = true
            } else {
                folder = scratch.directory.appendingPathComponent("screenshots")
                keep = false
            }
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }

        func take(_ name: String, _ browser: WebDriver) async throws {
            let png = try await browser.screenshot()
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 10_000, "\(name): a PNG of a drawn page (\(png.count) bytes)")
            try png.write(to: folder.appendingPathComponent(name + ".png"))
        }
    }

    static let sheetRow = "//tr[td[text()='products.csv']]"

    /// A browser on the console for `body`; both closed after, whatever happened.
    static func session(_ open: OpenConsole, width: Int = 1280, height: Int = 900, _ body: (WebDriver) async throws -> Void) async throws {
        let browser: WebDriver
        do { browser = try await WebDriver.start(width: width, height: height) } catch {
            await open.close()
            throw error
        }
        do { try await body(browser) } catch {
            await browser.quit()
            await open.close()
            throw error
        }
        await browser.quit()
        await open.close()
    }

    @Test("products.csv: Plan says 20 would-create and the shop is untouched; Apply, 20 created; the undo planned, then 20 deleted; a broken sheet's errors shown")
    func planApplyUndo() async throws {
        let open = try await OpenConsole.start()
        try Data("sku,name,price,stock,images\nA1,Tea,abc,1,a.jpg\nA2,,5000,x,\n".utf8)
            .write(to: open.files.directory.appendingPathComponent("broken.csv"))
        let camera = try Camera(open.files)
        try await Self.session(open) { browser in
            try await browser.go(open.console.entry.absoluteString)
            _ = try await browser.find(Self.sheetRow)
            #expect(try await !browser.currentURL.contains("token="), "the token left the address bar for a cookie")
            // A sheet and a zip of its photos picked in the page's file box (as dropping them does).
            let (sheet, zip) = try OpenConsole.zippedPhotos()
            let desktop = open.files.directory.appendingPathComponent(".desktop")
            try FileManager.default.createDirectory(at: desktop, withIntermediateDirectories: true)
            try sheet.write(to: desktop.appendingPathComponent("zipped.csv"))
            try zip.write(to: desktop.appendingPathComponent("photos.zip"))
            try await browser.type("//input[@id='files']", desktop.appendingPathComponent("photos.zip").path + "\n" + desktop.appendingPathComponent("zipped.csv").path)
            _ = try await browser.find("//tr[td[text()='zipped.csv']]")
            #expect(FileManager.default.fileExists(atPath: open.files.directory.appendingPathComponent("photos/z2.jpg").path))
            try await camera.take("sheets", browser)

            try await browser.click(Self.sheetRow + "//button[text()='Plan']")
            try await browser.wait("//p[@id='summary']") { $0.contains("20 rows: 20 would-create") }
            #expect(try await open.products() == 0, "a plan sends nothing")
            try await camera.take("plan", browser)

            try await browser.click("//button[@id='apply']")
            try await browser.wait("//p[@id='summary']") { $0.contains("20 rows: 20 created") }
            #expect(try await open.products() == 20)
            // The report inline, its thumbnails drawn from the console (lazy: those in view load;
            // a broken link would be complete with no width).
            var drawn: [Int] = []
            for _ in 0..<100 {
                drawn = try await browser.run("""
                    const images = [...document.querySelector('iframe').contentDocument.images];
                    return [images.filter(i => i.complete && i.naturalWidth > 0).length, images.filter(i => i.complete && i.naturalWidth == 0).length];
                    """) as? [Int] ?? []
                if drawn.first ?? 0 >= 3 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(drawn.count == 2 && drawn[0] >= 3 && drawn[1] == 0, "thumbnails drawn, broken: \(drawn)")
            try await camera.take("apply", browser)

            try await browser.click("//header/a[@href='/backups']")
            try await browser.click("//button[@id='snapshot']")
            try await browser.wait("//p[@id='summary']") { $0.contains(": 20 products") }
            try await browser.click("//header/a[@href='/backups']")
            _ = try await browser.find("//table[@id='snapshots']")
            try await camera.take("backups", browser)
            try open.writeFeed(source: "http://127.0.0.1:9/supplier.csv")
            try await browser.click("//header/a[@href='/feeds']")
            _ = try await browser.find("//table[@id='feeds']//td[text()='acme']")
            try await camera.take("feeds", browser)
            try await browser.go(open.console.url.absoluteString + "runs")
            try await browser.click("//table[@id='runs']//button[text()='Undo']")
            try await browser.wait("//p[@id='summary']") { $0.contains("20 rows: 20 would-delete") }
            #expect(try await open.products() == 20, "the undo's plan deletes nothing")
            try await camera.take("undo-plan", browser)
            try await browser.click("//button[@id='undo']")
            try await browser.wait("//p[@id='summary']") { $0.contains("20 rows: 20 deleted") }
            #expect(try await open.products() == 0)
            try await camera.take("undo", browser)

            try await browser.click("//header/a[@href='/runs']")
            _ = try await browser.find("//table[@id='runs']//td[text()='undo']")
            try await camera.take("runs", browser)

            try await browser.click("//header/a[@href='/']")
            try await browser.click("//tr[td[text()='broken.csv']]//button[text()='Check']")
            let problems = try await browser.text("//table[@id='problems']")
            #expect(problems.contains("abc") && problems.contains("price-format") && problems.contains("stock"), "\(problems)")
            try await camera.take("check", browser)

            for page in ["", "runs"] {
                try await browser.go(open.console.url.absoluteString + page)
                let html = try await browser.source
                #expect(!html.contains(open.sandbox.demo.secret) && !html.contains(open.sandbox.demo.identifier))
            }
            try await browser.click("//a[@href='/language/ko']")
            _ = try await browser.find("//button[text()='미리보기']")
            try await camera.take("sheets-korean", browser)
            try await browser.resize(width: 390, height: 844)
            try await browser.click("//a[@href='/language/en']")
            _ = try await browser.find(Self.sheetRow + "//button[text()='Apply']")
            try await camera.take("sheets-phone", browser)
        }
    }

    @Test("At a phone's 390 × 844, in English and in 한국어, no page is wider than the screen: Sheets, Check, Plan, Apply, Runs, Feeds, Backups")
    func phoneWidth() async throws {
        let open = try await OpenConsole.start(rows: 3)
        // A broken sheet with long cells (a URL, a long message) and a feed with a long source.
        try Data("sku,name,price,stock,images\nA1,Tea,abc,1,https://images.example.com/a/very/long/path/to/a/photo/of/green-tea-0001-front.jpg\nA2,,5000,x,\n".utf8)
            .write(to: open.files.directory.appendingPathComponent("broken-sheet-with-a-long-name-from-the-supplier.csv"))
        try open.writeFeed(source: "https://supplier.example.com/exports/daily/products-feed-for-our-shop-2026.csv")
        let camera = try Camera(open.files)
        let browser = try await WebDriver.start(width: 390, height: 844)
        func fits(_ page: String) async throws {
            let sizes = try await browser.run("return [document.documentElement.scrollWidth, window.innerWidth]") as? [Int] ?? []
            #expect(sizes.count == 2 && sizes[0] <= sizes[1], "\(page): \(sizes) (page width, window width)")
            // Words wrap between words (Korean by 어절): no word under 30 letters is cut over two lines.
            let broken = try await browser.run("""
                const broken = [];
                for (const cell of document.querySelectorAll('td:not(.value), th, button, h2, p')) {
                  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
                  let node;
                  while ((node = walker.nextNode())) {
                    const words = /\\S+/g; let m;
                    while ((m = words.exec(node.textContent))) {
                      if (m[0].length >= 30) continue;
                      const range = document.createRange(); range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
                      const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
                      if (lines.size > 1) broken.push(m[0]);
                    }
                  }
                }
                return broken;
                """) as? [String] ?? ["?"]
            #expect(broken.isEmpty, "\(page): words cut: \(broken.prefix(12))")
        }
        do {
            try await browser.go(open.console.entry.absoluteString)
            for language in ["en", "ko"] {
                try await browser.go(open.console.url.absoluteString + "language/\(language)")
                _ = try await browser.find(Self.sheetRow)
                try await fits("sheets \(language)")
                try await browser.click("//tr[td[text()='broken-sheet-with-a-long-name-from-the-supplier.csv']]//form[@action='/check']/button")
                _ = try await browser.find("//table[@id='problems']")
                try await fits("check \(language)")
                if language == "ko" { try await Self.inKorean("check", browser, expect: ["검사 ·", "오류 2"]) }
                try await camera.take("check-phone-\(language)", browser)
                try await browser.go(open.console.url.absoluteString)
                try await browser.click(Self.sheetRow + "//form[@action='/plan']/button")
                try await browser.wait("//p[@id='summary']") { $0.contains("3") }
                try await fits("plan \(language)")
                if language == "ko" {
                    try await Self.inKorean("plan", browser, expect: ["미리보기 ·", "3행: 변경 없음 3 (unchanged)", "미리보기: 쇼핑몰에 아무것도 보내지 않았습니다"])
                    try await camera.take("plan-phone-ko", browser)
                    // A plan with nothing to write offers no Apply; the sheet's own Apply still runs it.
                    #expect(try await !browser.source.contains("id=\"apply\""), "nothing to apply: no Apply")
                    try await browser.go(open.console.url.absoluteString)
                    try await browser.click(Self.sheetRow + "//form[@action='/apply']/button")
                    // The Apply's report, in the page's frame, is in Korean too.
                    try await browser.wait("//p[@id='summary']") { $0.contains("변경 없음 3") }
                    try await fits("apply ko")
                    #expect(try await !browser.source.contains("id=\"plan-undo\""), "an apply that changed nothing offers no undo")
                    var inner = ""
                    for _ in 0..<50 {
                        inner = try await browser.run("""
                            const inner = document.querySelector('iframe').contentDocument;
                            return inner && inner.body && inner.documentElement.lang === 'ko' ? inner.body.innerText : '';
                            """) as? String ?? ""
                        if !inner.isEmpty { break }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    #expect(inner.contains("products.csv 가져오기") && inner.contains("변경 없음 (unchanged)") && inner.contains("3행"), "\(inner.prefix(600))")
                    for english in ["Import of", " rows ·", "Unchanged", "mode sync"] { #expect(!inner.contains(english), "the report says \(english)") }
                    try await camera.take("apply-phone-ko", browser)
                }
                if language == "en" {
                    try await browser.click("//button[@id='apply']")
                    try await browser.wait("//p[@id='summary']") { $0.contains("3 created") }
                    try await fits("apply \(language)")
                    // The report in the page's frame fits it too (its tables become rows of cells).
                    var report: [Int] = []
                    for _ in 0..<50 {
                        report = try await browser.run("""
                            const frame = document.querySelector('iframe'); const inner = frame.contentDocument;
                            return inner && inner.body && inner.querySelector('table') ? [inner.documentElement.scrollWidth, frame.clientWidth] : [];
                            """) as? [Int] ?? []
                        if report.count == 2 { break }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    #expect(report.count == 2 && report[0] <= report[1], "the report in the frame: \(report) (its width, the frame's)")
                    try await camera.take("apply-phone", browser)
                }
                for page in ["runs", "feeds", "backups"] {
                    try await browser.go(open.console.url.absoluteString + page)
                    _ = try await browser.find("//h2 | //table | //p")
                    try await fits("\(page) \(language)")
                    if page == "runs", language == "ko" {
                        _ = try await browser.find("//table[@id='runs']")
                        try await Self.inKorean("runs", browser, expect: ["생성됨 3 (created)"])
                        // The kind's column is on the page at a phone's width too.
                        #expect(try await browser.text("//table[@id='runs']").contains("가져오기 (import)"))
                    }
                    if language == "ko" { try await camera.take("\(page)-phone-ko", browser) }
                }
                if language == "ko" {
                    // The sheets and the undo's plan at a phone's width in 한국어 too.
                    try await browser.go(open.console.url.absoluteString)
                    _ = try await browser.find(Self.sheetRow)
                    try await camera.take("sheets-phone-ko", browser)
                    try await browser.go(open.console.url.absoluteString + "runs")
                    try await browser.click("(//form[contains(@action,'/undo-plan')]/button)[1]")
                    try await browser.wait("//p[@id='summary']") { !$0.isEmpty }
                    try await fits("undo plan ko")
                    try await Self.inKorean("undo plan", browser, expect: ["되돌리기 미리보기 ·", "삭제 예정"])
                    try await camera.take("undo-plan-phone-ko", browser)
                }
                try await camera.take("backups-phone-\(language)", browser)
            }
        } catch {
            await browser.quit()
            await open.close()
            throw error
        }
        await browser.quit()
        await open.close()
    }

    /// The page as a Korean reader sees it: none of the English phrases the pages had
    /// (`rows:`, `must be`, `needs a`, `nothing was sent`, `Plan ·`, a status with no Korean word).
    @Test("Every error page at a phone's 390 × 844 in 한국어 is a console page that fits and says the way on: an unknown page, an unknown job, an export the shop refuses, a wrong token")
    func errorPagesOnAPhone() async throws {
        let open = try await OpenConsole.start(rows: 1, wrongSecret: true)
        let camera = try Camera(open.files)
        try await Self.session(open, width: 390, height: 844) { browser in
            try await browser.go(open.console.entry.absoluteString)
            try await browser.go(open.console.url.absoluteString + "language/ko")
            let pages: [(name: String, path: String, expect: [String])] = [
                ("error-404-ko", "no-such-page", ["그런 페이지가 없습니다", "시트"]),
                ("error-job-ko", "jobs/999999", ["그런 페이지가 없습니다"]),
                ("error-export-ko", "export", ["쇼핑몰이 이 프로필의 자격 증명", "위에서 프로필을 고르세요"]),
                ("error-token-ko", "?token=not-this-consoles", ["주소의 키가 이 콘솔의 것이 아닙니다"]),
            ]
            for page in pages {
                try await browser.go(open.console.url.absoluteString + page.path)
                let text = try await browser.run("return document.body.innerText") as? String ?? ""
                for wanted in page.expect { #expect(text.contains(wanted), "\(page.name) lacks '\(wanted)': \(text.prefix(600))") }
                let commands = ["import", "validate", "undo", "runs", "snapshots", "export", "feed", "sandbox", "backup", "restore", "migrate", "doctor"]
                #expect(!text.contains(" --") && !commands.contains { text.contains("openmarket \($0)") }, "\(page.name) names a terminal: \(text.prefix(600))")
                let sizes = try await browser.run("return [document.documentElement.scrollWidth, window.innerWidth]") as? [Int] ?? []
                #expect(sizes.count == 2 && sizes[0] <= sizes[1], "\(page.name): \(sizes)")
                try await camera.take(page.name, browser)
            }
            // A plan with the refused secret: its job page says so in 한국어, with the way on.
            try await browser.go(open.console.url.absoluteString)
            try await browser.click(Self.sheetRow + "//form[@action='/plan']/button")
            var text = ""
            for _ in 0..<150 {
                text = try await browser.run("return document.body.innerText") as? String ?? ""
                if text.contains("자격 증명(식별자와 비밀키)을 거부해") { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(text.contains("자격 증명(식별자와 비밀키)을 거부해") && text.contains("아무것도 읽거나 보내지 않았습니다")
                    && text.contains("위에서 프로필을 고르세요")
                    && !text.contains("refused") && !text.contains(" --"), "plan refused: \(text.prefix(800))")
            let sizes = try await browser.run("return [document.documentElement.scrollWidth, window.innerWidth]") as? [Int] ?? []
            #expect(sizes.count == 2 && sizes[0] <= sizes[1], "plan refused: \(sizes)")
            try await camera.take("error-plan-ko", browser)
        }
    }

    static func inKorean(_ page: String, _ browser: WebDriver, expect: [String]) async throws {
        let text = try await browser.run("return document.body.innerText") as? String ?? ""
        for phrase in ["rows:", "must be", "needs a", "nothing was sent", "Plan ·", "Check ·", "valid,"] {
            #expect(!text.contains(phrase), "\(page) in 한국어 says '\(phrase)': \(text.prefix(1500))")
        }
        #expect(!text.contains("would-create") || text.contains("생성 예정"), "\(page): a status with no Korean word")
        for wanted in expect { #expect(text.contains(wanted), "\(page) in 한국어 lacks '\(wanted)': \(text.prefix(800))") }
    }

    @Test("Apply's progress streams to the page; Stop ends it part way; Apply again makes the rest, each product once")
    func stopFromThePage() async throws {
        // The sandbox answers 12 writes (two a row) and holds the rest, so that the click on Stop lands part way
        // however loaded the machine (60 rows at 150 ms each were all made before the click, once
        // in a fresh clone, when latency was what made the run long).
        let open = try await OpenConsole.start(rows: 120, holdWritesAfter: 12)
        let camera = try Camera(open.files)
        try await Self.session(open) { browser in
            try await browser.go(open.console.entry.absoluteString)
            try await browser.click(Self.sheetRow + "//button[text()='Apply']")
            // Only the page's event stream changes this line: the page is not reloaded while the job runs.
            try await browser.wait("//p[@id='progress']") { line in
                (line.firstMatch(of: /^([0-9]+)\/120 rows/).flatMap { Int($0.1) } ?? 0) >= 4
            }
            try await camera.take("apply-running", browser)
            try await browser.click("//button[@id='stop']")
            // The stop has reached the console before the held writes are let go.
            try await browser.wait("//p[@id='progress']") { $0.contains("stopping") }
            open.release()
            try await browser.wait("//p[@id='summary']") { $0.contains("stopped (stopped from the console)") }
            let made = try await open.products()
            #expect(made > 0 && made < 120, "stopped part way: \(made)")
            try await browser.click("//button[@id='apply-again']")
            try await browser.wait("//p[@id='summary']") { $0.contains("120 rows:") && $0.contains("\(120 - made) created") }
            let names = try await blocking { [client = open.client] in try client.allProducts().products.map(\.name) }
            #expect(names.count == 120 && Set(names).count == 120, "each row once")
        }
    }

    @Test("In Chromium: the console's token reaches no other local server the browser visits (127.0.0.1, localhost); //evil.example/?token=… stays on the console; a held feed is accepted from its page; an empty sheet's Check says it is empty")
    func noDeadEndsNoLeak() async throws {
        let open = try await OpenConsole.start(rows: 1)
        let other = try await CookieWitness.start()
        let supplier = try await FeedSourceServer.start()
        let photo = supplier.servePhoto("p.jpg", try Fixtures.jpeg(width: 48, height: 36, seed: 5))
        supplier.serve("code,title,cost,qty,photo\n" + (1...5).map { "S\($0),Tea \($0),\(1000 * $0),\($0),\(photo)\n" }.joined())
        try open.writeFeed(source: supplier.feedURL, "[checks]\nmin_rows = 10")
        try Data().write(to: open.files.directory.appendingPathComponent("empty.csv"))
        let base = String(open.console.url.absoluteString.dropLast())
        let consoleHost = try #require(open.console.url.host)
        try await Self.session(open) { browser in
            try await browser.go(open.console.entry.absoluteString)
            _ = try await browser.find(Self.sheetRow)
            // The browser holds the console's cookie; another local app, by address and by name, is sent none of it.
            let port = try #require(other.url.port)
            for address in ["http://127.0.0.1:\(port)/", "http://localhost:\(port)/", "http://127.0.0.1:\(port)/runs?x=1"] {
                try await browser.go(address)
                _ = try await browser.find("//p[@id='other']")
            }
            let seen = other.cookies
            #expect(seen.requests >= 3, "the other server was visited")
            #expect(!seen.headers.contains { $0.contains(open.console.token) }, "the token leaked: \(seen.headers)")
            try await browser.go(open.console.url.absoluteString)
            _ = try await browser.find(Self.sheetRow)

            // A link that would leave the console with the token: the browser stays on the console.
            for path in ["//evil.example/", "//evil.example/runs", "/\\evil.example/"] {
                try await browser.go(base + path + "?token=" + open.console.token)
                let now = try #require(URL(string: try await browser.currentURL))
                #expect(now.host == consoleHost && !now.absoluteString.contains("evil") && !now.absoluteString.contains("token="), "\(path) → \(now)")
            }

            // A feed held by its check: the page shows the numbers and an Accept button; Accept runs it once.
            try await browser.go(open.console.url.absoluteString + "feeds")
            try await browser.click("//table[@id='feeds']//tr[td[text()='acme']]//button[text()='Run now']")
            let held = try await browser.wait("//p[@id='summary']") { $0.contains("held") }
            #expect(held.contains("min_rows 10") && held.contains("5 rows"), "\(held)")
            #expect(try await open.products() == 0)
            try await browser.click("//button[@id='accept']")
            try await browser.wait("//p[@id='summary']") { $0.contains("done") }
            #expect(try await open.products() == 5)

            // An empty sheet: its Check is a page that says so, not an error.
            try await browser.go(open.console.url.absoluteString)
            try await browser.click("//tr[td[text()='empty.csv']]//button[text()='Check']")
            let said = try await browser.text("//p[@id='summary']")
            #expect(said.contains("empty.csv") && said.contains("the file is empty"), "\(said)")
        }
        await other.stop()
        await supplier.stop()
    }
}
