import CatalogSync
import Foundation
import ImagePrep
import OpenMarketAPI
import Testing
import TestSupport
@testable import WebConsole

/// The console over loopback HTTP, against a sandbox, as a browser would drive it (forms
/// posted with the console's own Origin and cookie); the engine is the CLI's.
@Suite("The console: guarded, and the same engine", .serialized)
struct ConsoleTests {
    @Test("the console's runs use the shared photo cache it was given (--cache s3://…): what an apply prepares is in the bucket")
    func sharedPhotoCache() async throws {
        let s3 = try await TestS3.start(buckets: ["console-photos"])
        let bucket = S3Bucket(S3Location("s3://console-photos/shop")!, account: try S3Account.fromEnvironment(s3.environment))
        let scratch = try Scratch()
        defer { scratch.cleanup() }
        let cache = try ImageCache(directory: scratch.directory.appendingPathComponent("cache"), shared: S3ImageStore(bucket))
        let open = try await OpenConsole.start(rows: 4, photoCache: cache)
        // A photo that has to be made smaller (over 2048 px): prepared once, stored in the bucket.
        try Data(Fixtures.jpeg(width: 2400, height: 1200, quality: 80)).write(to: open.files.directory.appendingPathComponent("p.jpg"))
        let apply = try await open.run("apply", "sheet=products.csv")
        #expect(apply.text.contains("4 rows: 4 created"), "\(apply.text.prefix(400))")
        #expect(try await s3.keys("console-photos").filter { $0.hasPrefix("shop/images/") }.count == 1)
        #expect(cache.sharedCounts.stored == 1)
        await open.close()
        await s3.stop()
    }

    @Test("the token stays with the console: a loopback address of its own (the sandbox's pages at 127.0.0.1 are not sent its cookie), a cookie named by its port (a second console logs the first one out of nothing), no redirect off the console")
    func tokenStaysHome() async throws {
        let open = try await OpenConsole.start(rows: 2)
        let host = try #require(open.console.url.host)
        #expect(host.hasPrefix("127.") && host != "127.0.0.1" && host != URL(string: open.sandbox.url)?.host, "\(host)")
        // A browser's cookie jar (curl's): the cookie is the console's host's, and a page of the
        // sandbox on 127.0.0.1 is requested without it.
        let jar = open.files.directory.appendingPathComponent("jar").path
        let (entry, token, sandboxURL, consoleURL) = (open.console.entry.absoluteString, open.console.token, open.sandbox.url, open.console.url.absoluteString)
        let entered = try await blocking { try runToolOutput("/usr/bin/curl", ["-s", "-o", "/dev/null", "-c", jar, entry]) }
        #expect(entered.status == 0)
        let kept = try String(contentsOfFile: jar, encoding: .utf8).split(separator: "\n").filter { $0.contains(token) }
        #expect(kept.count == 1 && kept[0].hasPrefix("#HttpOnly_\(host)\t"), "\(kept)")
        let sandboxPage = try await blocking { try runToolOutput("/usr/bin/curl", ["-s", "-v", "-o", "/dev/null", "-b", jar, sandboxURL + "/"]) }
        #expect(!sandboxPage.output.contains(token), "the sandbox was sent the console's cookie: \(sandboxPage.output)")
        let again = try await blocking { try runToolOutput("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-b", jar, consoleURL]) }
        #expect(again.output == "200")

        // A second console: its own address and cookie; neither cookie opens the other, and the first still works.
        let second = try await ConsoleServer.start(ConsoleEngine(folder: open.files.directory, shop: open.client,
                                                                 account: AccountState(shop: open.client, sandboxData: open.files.directory.appendingPathComponent("state")),
                                                                 reports: open.files.directory.appendingPathComponent("reports")))
        #expect(second.url != open.console.url && second.cookie.split(separator: "=").first != open.cookie.split(separator: "=").first)
        #expect(try await curl(["-H", "Cookie: \(second.cookie)", second.url.absoluteString]).status == 200)
        #expect(try await curl(["-H", "Cookie: \(open.cookie)", second.url.absoluteString]).status == 403)
        #expect(try await curl(["-H", "Cookie: \(second.cookie); \(open.cookie)", open.console.url.absoluteString]).status == 200,
                "both cookies held: each console finds its own")
        await second.stop()

        // The token's redirect stays on the console, however the path is written.
        let base = String(open.console.url.absoluteString.dropLast())
        for path in ["//evil.example/", "/\\evil.example/", "//evil.example/runs"] {
            let answer = try await curl(["--path-as-is", base + path + "?token=" + open.console.token])
            #expect(answer.status == 303 && answer.headers["location"] == "/", "\(path): \(answer.headers)")
        }
        let runs = try await curl([base + "/runs?token=" + open.console.token])
        #expect(runs.status == 303 && runs.headers["location"] == "/runs")
        await open.close()
    }

    @Test("without the token, with a foreign Host, or a write from a foreign Origin: 403 before any route; the token is traded for a cookie")
    func guarded() async throws {
        let open = try await OpenConsole.start(rows: 2)
        let url = open.console.url.absoluteString
        #expect(try await curl([url]).status == 403)
        #expect(try await curl([url + "?token=wrong"]).status == 403)
        let entry = try await curl([open.console.entry.absoluteString])
        #expect(entry.status == 303 && entry.headers["set-cookie"]?.contains(open.console.cookie) == true
                && entry.headers["set-cookie"]?.contains("HttpOnly") == true, "\(entry.headers)")
        #expect(try await open.get("").status == 200)
        #expect(try await curl(["-H", "Cookie: \(open.cookie)", "-H", "Host: evil.example:\(open.console.url.port!)", url]).status == 403,
                "DNS rebinding: another name for 127.0.0.1")
        #expect(try await curl(["-H", "Cookie: \(open.cookie)", "-H", "Origin: http://evil.example", "--data", "sheet=products.csv",
                                url + "apply"]).status == 403)
        #expect(try await curl(["-H", "Cookie: \(open.cookie)", "--data", "sheet=products.csv", url + "apply"]).status == 403,
                "a write with no Origin")
        #expect(try await open.products() == 0, "nothing refused reached the shop")
        await open.close()
    }

    @Test("a price change over the guard is held with a button, not a terminal flag: the plan and the apply offer to send it (with the count); the button sends it and nothing else")
    func heldPriceChange() async throws {
        let open = try await OpenConsole.start(rows: 3)
        #expect(try await open.run("apply", "sheet=products.csv").text.contains("3 rows: 3 created"))
        // K2's price ×10 (a misplaced digit, or a real change), K3's a little.
        let sheet = open.files.directory.appendingPathComponent("products.csv")
        let text = try String(contentsOf: sheet, encoding: .utf8).replacingOccurrences(of: "K2,Item number 2,1002,", with: "K2,Item number 2,10020,")
            .replacingOccurrences(of: "K3,Item number 3,1003,", with: "K3,Item number 3,1100,")
        try Data(text.utf8).write(to: sheet)
        let plan = try await open.run("plan", "sheet=products.csv")
        #expect(plan.text.contains("1 would-update") && plan.text.contains("1 failed"), "\(plan.text.prefix(600))")
        #expect(plan.text.contains("id=\"accept-prices\"") && plan.text.contains("(1)") && plan.text.contains("name=\"force\" value=\"1\""),
                "the held change has its button: \(plan.text.suffix(1500))")
        let apply = try await open.run("apply", "sheet=products.csv")
        #expect(apply.text.contains("1 updated") && apply.text.contains("1 failed") && apply.text.contains("id=\"accept-prices\""), "\(apply.text.prefix(600))")
        // The run's report names the page's button, not a terminal flag.
        let reports = open.files.directory.appendingPathComponent("reports")
        let written = try FileManager.default.contentsOfDirectory(atPath: reports.path).compactMap {
            try? String(contentsOf: reports.appendingPathComponent($0).appendingPathComponent("report.html"), encoding: .utf8)
        }.filter { $0.contains("max-price-change") }
        #expect(!written.isEmpty && written.allSatisfy { $0.contains("the page&#39;s button") || $0.contains("the page's button") }
                && !written.contains { $0.contains("--force") }, "\(written.map { $0.components(separatedBy: "max-price-change").dropFirst().first?.prefix(160) ?? "" })")
        func prices() async throws -> [String: Money] {
            try await blocking { [client = open.client] in
                Dictionary(uniqueKeysWithValues: try client.allProducts().products.map { ($0.name, $0.price) })
            }
        }
        let afterApply = try await prices()
        #expect(afterApply["Item number 2"] == 1002 && afterApply["Item number 3"] == 1100, "\(afterApply)")
        let forced = try await open.run("apply", "sheet=products.csv&force=1")
        let said = forced.text.firstMatch(of: /id="summary">([^<]*)</).map { String($0.1) } ?? ""
        #expect(said.contains("1 updated") && !said.contains("failed") && !forced.text.contains("id=\"accept-prices\""), "\(said)")
        #expect(try await prices() == ["Item number 1": 1001, "Item number 2": 10020, "Item number 3": 1100])
        await open.close()
    }

    @Test("without --repo the Backups page offers a folder to choose (no restart, no terminal): a file or a folder of other files refused, saying why; an empty one taken, a snapshot made there, and the next console opens it")
    func chooseBackupFolder() async throws {
        var open = try await OpenConsole.start(rows: 2, backups: false)
        let page = try await open.get("backups")
        #expect(page.status == 200 && page.text.contains("id=\"choose-repository\"") && page.text.contains("openmarket-backups")
                && !page.text.contains("--repo"), "\(page.text.suffix(800))")
        let other = open.files.directory.appendingPathComponent("photos-of-mine")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: other.appendingPathComponent("a.txt"))
        let refused = try await open.post("backups/repository", "folder=" + other.path)
        #expect(refused.status == 422 && refused.text.contains("holds other files and no backups"), "\(refused.status) \(refused.text.suffix(500))")
        #expect(try await open.post("backups/repository", "folder=relative/path").text.contains("whole path"))
        open.language = "ko"
        let korean = try await open.post("backups/repository", "folder=" + other.path)
        #expect(korean.status == 422 && korean.text.contains("백업이 아닌 다른 파일이 있습니다") && !korean.text.contains("holds other files"), "\(korean.text.suffix(500))")
        open.language = nil
        let chosen = open.files.directory.appendingPathComponent("kept-backups")
        let taken = try await open.post("backups/repository", "folder=" + chosen.path)
        #expect(taken.status == 303 && taken.headers["location"] == "/backups")
        #expect(try await open.run("apply", "sheet=products.csv").text.contains("2 created"))
        let snapshot = try await open.run("backups/snapshot", "")
        #expect(snapshot.text.contains("2 products"), "\(snapshot.text.prefix(500))")
        #expect(FileManager.default.fileExists(atPath: chosen.appendingPathComponent("config.json").path))
        // The next console of this account opens the same folder.
        let account = AccountState(shop: open.client, sandboxData: open.files.directory.appendingPathComponent("state"))
        #expect(BackupChoice(given: nil, account: account).current?.repository.url.path == chosen.path)
        await open.close()
    }

    @Test("the report's product links go to the built-in sandbox's catalog page of the product (HTML), not the API's JSON")
    func productLinks() async throws {
        let open = try await OpenConsole.start(rows: 2, sandboxPages: true)
        let apply = try await open.run("apply", "sheet=products.csv")
        #expect(apply.status == 200 && apply.text.contains("2 rows: 2 created"), "\(apply.text.prefix(400))")
        let job = try #require(apply.text.firstMatch(of: /href="\/jobs\/([0-9]+)\/report.html"/).map { String($0.1) })
        let report = try await open.get("jobs/\(job)/report.html")
        let links = report.text.matches(of: /href="(http[^"]+)"/).map { String($0.1) }.filter { $0.contains("/products/") }
        #expect(links.count == 2 && links.allSatisfy { $0.hasPrefix(open.sandbox.url + "/products/") } && !links.contains { $0.contains("/api/") }, "\(links)")
        for link in links {
            let page = try await curl([link])
            #expect(page.status == 200 && page.headers["content-type"]?.hasPrefix("text/html") == true && page.text.contains("Item number"),
                    "\(link): \(page.status) \(page.headers)")
        }
        await open.close()
    }

    @Test("Plan says 20 would-create and the shop is untouched; Apply makes 20; Undo deletes 20; runs lists both; no secret in any page")
    func planApplyUndo() async throws {
        let open = try await OpenConsole.start()
        let list = try await open.get("")
        #expect(list.status == 200 && list.text.contains("products.csv") && list.text.contains(">Plan<"))
        let plan = try await open.run("plan", "sheet=products.csv")
        #expect(plan.status == 200 && plan.text.contains("20 rows: 20 would-create"), "\(plan.text.prefix(400))")
        #expect(try await open.products() == 0)
        let apply = try await open.run("apply", "sheet=products.csv")
        #expect(apply.status == 200 && apply.text.contains("20 rows: 20 created"), "\(apply.text.prefix(400))")
        #expect(try await open.products() == 20)
        let job = try #require(apply.text.firstMatch(of: /href="\/jobs\/([0-9]+)\/report.html"/).map { String($0.1) })
        let report = try await open.get("jobs/\(job)/report.html")
        let thumbnail = try #require(report.text.firstMatch(of: /<img src="(thumbnails\/[^"]+)"/).map { String($0.1) }, "the report inline, with its thumbnails")
        let picture = try await open.get("jobs/\(job)/" + thumbnail)
        #expect(picture.status == 200 && picture.headers["content-type"] == "image/jpeg" && picture.body.starts(with: [0xFF, 0xD8]))
        #expect(try await open.get("jobs/\(job)/thumbnails/..%2F..%2Freport.csv").status == 404)
        // The catalog out as a sheet, and that sheet planned back: one key is one product.
        let export = try await open.get("export")
        #expect(export.status == 200 && export.headers["content-disposition"]?.contains("attachment") == true
                && export.text.split(whereSeparator: \.isNewline).count == 21 && export.text.contains("K20"), "\(export.text.prefix(300))")
        try export.body.write(to: open.files.directory.appendingPathComponent("catalog.csv"))
        let back = try await open.run("plan", "sheet=catalog.csv")
        #expect(back.text.contains("20 rows: 20 unchanged"), "\(back.text.prefix(600))")
        let workbook = try await open.get("jobs/\(job)/report.xlsx")
        #expect(workbook.status == 200 && workbook.body.starts(with: Data("PK".utf8)) && workbook.headers["content-disposition"]?.contains("attachment") == true)
        // Undo from the apply's page: its plan first (nothing deleted), then the undo.
        let folder = try #require(apply.text.firstMatch(of: /name="run" value="([^"]+)"/).map { String($0.1) })
        let form = "run=" + (folder.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? folder)
        let undoPlan = try await open.run("undo-plan", form)
        #expect(undoPlan.text.contains("20 rows: 20 would-delete") && undoPlan.text.contains("id=\"undo\""), "\(undoPlan.text.prefix(600))")
        #expect(try await open.products() == 20, "a plan of the undo deletes nothing")
        let undo = try await open.run("undo", form)
        #expect(undo.status == 200 && undo.text.contains("20 rows: 20 deleted"), "\(undo.text.prefix(400))")
        #expect(try await open.products() == 0)
        // Undone: a form sent again is refused, saying so (the runs page offers no Undo for it).
        let twice = try await open.post("undo", form)
        #expect(twice.status == 409 && twice.text.contains("already undone"), "\(twice.text.prefix(600))")
        let runs = try await open.get("runs")
        #expect(runs.text.contains(">undo<") && runs.text.contains(">import<"))
        let tags = runs.text.matches(of: /href="\/runs\/([0-9a-f]+)\/report.html"/).map { String($0.1) }
        #expect(tags.count == 2 && Set(tags).count == 2, "each run's report, the undo's too")
        for tag in tags {
            let runReport = try await open.get("runs/\(tag)/report.html")
            #expect(runReport.status == 200 && runReport.text.contains("20 rows"))
        }
        #expect(try await open.get("runs/0/report.html").status == 404)
        for page in [list, plan, apply, report, undoPlan, undo, runs] {
            #expect(!page.text.contains(open.sandbox.demo.secret) && !page.text.contains(open.sandbox.demo.identifier))
        }
        await open.close()
    }

    @Test("Apply streams its progress; Stop ends it with rows left; a second write meanwhile is refused; Apply again sends nothing twice")
    func stopAndApplyAgain() async throws {
        // The sandbox answers 12 writes (two a row: a register and its delete key) and holds the rest: still going after the page's polls,
        // however loaded the machine and however many writes the pace puts in flight.
        let open = try await OpenConsole.start(rows: 60, holdWritesAfter: 12)
        let job = try await open.start("apply", "sheet=products.csv")
        // The page's event stream, as the browser reads it, until some rows are done.
        var seen = 0
        let deadline = Date().addingTimeInterval(60)
        while seen < 4 && Date() < deadline {
            try await Task.sleep(for: .milliseconds(200))
            let page = try await open.get(job)
            seen = page.text.firstMatch(of: /id="progress">([0-9]+)\/60 rows/).flatMap { Int($0.1) } ?? 0
        }
        #expect(seen >= 4, "rows counted on the page as they are done")
        let busy = try await open.post("apply", "sheet=products.csv")
        #expect(busy.status == 409 && busy.text.contains("one write at a time"), "\(busy.text.prefix(300))")
        let stop = try await open.post(job + "/stop", "")
        #expect(stop.status == 303)
        open.release()
        let stopped = try await open.ended(job)
        #expect(stopped.text.contains("stopped (stopped from the console)") && stopped.text.contains("id=\"apply-again\""), "\(stopped.text.prefix(600))")
        let events = try await open.get(job + "/events")
        #expect(events.headers["content-type"]?.hasPrefix("text/event-stream") == true && events.text.contains("\"ended\":true"), "\(events.text)")
        let made = try await open.products()
        #expect(made > 0 && made < 60, "stopped part way: \(made)")
        let again = try await open.run("apply", "sheet=products.csv")
        #expect(again.text.contains("60 rows:") && again.text.contains("\(60 - made) created"), "\(again.text.prefix(600))")
        let names = try await blocking { [client = open.client] in try client.allProducts().products.map(\.name) }
        #expect(names.count == 60 && Set(names).count == 60, "each row once")
        await open.close()
    }

    @Test("Feeds: listed with their last run; Run now holds a file the checks stop (the numbers said); Accept runs it once; the run is in runs")
    func feeds() async throws {
        var open = try await OpenConsole.start(rows: 1)
        let supplier = try await FeedSourceServer.start()
        let photo = supplier.servePhoto("p.jpg", try Fixtures.jpeg(width: 48, height: 36, seed: 3))
        supplier.serve("code,title,cost,qty,photo\n" + (1...5).map { "S\($0),Tea \($0),\(1000 * $0),\($0),\(photo)\n" }.joined())
        try open.writeFeed(source: supplier.feedURL, "[checks]\nmin_rows = 10")
        let list = try await open.get("feeds")
        #expect(list.text.contains(">acme<") && list.text.contains(supplier.feedURL) && list.text.contains("not scheduled")
                && list.text.contains(">never run<"), "\(list.text.suffix(900))")
        let held = try await open.run("feeds/run", "feed=acme")
        #expect(held.text.contains("acme: held: the check min_rows 10 failed: the file has 5 rows; nothing was sent") && held.text.contains("id=\"accept\""), "\(held.text.split(separator: "<h2>").last?.prefix(700) ?? "")")
        #expect(try await open.products() == 0, "a held file sends nothing")
        #expect(try await open.get("feeds").text.contains("class=\"status held\""))
        // In 한국어: the hold with its numbers, on the job's page and the Feeds page.
        open.language = "ko"
        let korean = try await open.run("feeds/run", "feed=acme")
        #expect(korean.text.contains("acme: 보류됨 (held): 파일에 5행뿐입니다 (min_rows 10보다 적음); 아무것도 보내지 않았습니다"), "\(korean.text.split(separator: "<h2>").last?.prefix(700) ?? "")")
        let listed = try await open.get("feeds").text
        #expect(listed.contains("class=\"status held\">보류됨 (held)</span>") && listed.contains("파일에 5행뿐입니다") && !listed.contains("nothing was sent"))
        let accepted = try await open.run("feeds/run", "feed=acme&accept=1")
        #expect(accepted.text.contains("acme: 완료 (done): 5행: 생성됨 5 (created)") && accepted.text.contains("id=\"plan-undo\""), "\(accepted.text.split(separator: "<h2>").last?.prefix(700) ?? "")")
        #expect(try await open.products() == 5)
        open.language = nil
        #expect(try await open.get("feeds").text.contains("class=\"status done\">done</span>"))
        let runs = try await open.get("runs")
        #expect(runs.text.contains(">feed<"), "the feed's run is the account's run, as from the CLI")
        #expect(try await open.post("feeds/run", "feed=..%2Fetc").status == 400)
        await supplier.stop()
        await open.close()
    }

    @Test("Backups: a snapshot taken, the shop emptied by an undo, a second snapshot, their diff; the restore planned (nothing written), then run; each product back once")
    func backups() async throws {
        var open = try await OpenConsole.start()
        let apply = try await open.run("apply", "sheet=products.csv")
        #expect(apply.text.contains("20 created"))
        let first = try await open.run("backups/snapshot", "")
        let firstID = try #require(first.text.firstMatch(of: /snapshot ([0-9a-f-]+): 20 products/).map { String($0.1) }, "\(first.text.split(separator: "<h2>").last?.prefix(600) ?? "")")
        let folder = try #require(apply.text.firstMatch(of: /name="run" value="([^"]+)"/).map { String($0.1) })
        let undone = try await open.run("undo", "run=" + (folder.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? folder))
        #expect(undone.text.contains("20 deleted"))
        let second = try await open.run("backups/snapshot", "")
        let secondID = try #require(second.text.firstMatch(of: /snapshot ([0-9a-f-]+): 0 products/).map { String($0.1) }, "\(second.text.suffix(700))")
        let list = try await open.get("backups")
        #expect(list.text.contains(firstID) && list.text.contains(secondID) && list.text.contains("value=\"\(firstID)\""))
        let diff = try await open.get("backups/diff?from=\(firstID)&to=\(secondID)")
        #expect(diff.text.contains("0 created, 20 deleted, 0 changed"), "\(diff.text.suffix(900))")
        // In 한국어: the diff's numbers, and a snapshot's.
        open.language = "ko"
        #expect(try await open.get("backups/diff?from=\(firstID)&to=\(secondID)").text.contains("생성 0, 삭제 20, 변경 0"))
        let third = try await open.run("backups/snapshot", "")
        #expect(third.text.contains(": 상품 0개 (신규 0, 사진 0장 추가)"), "\(third.text.split(separator: "<h2>").last?.prefix(600) ?? "")")
        open.language = nil
        let plan = try await open.run("backups/restore-plan", "snapshot=\(firstID)")
        #expect(plan.text.contains("20 rows: 20 would-") && plan.text.contains("id=\"restore\""), "\(plan.text.split(separator: "<h2>").last?.prefix(600) ?? "")")
        #expect(try await open.products() == 0, "a plan of the restore writes nothing")
        let restored = try await open.run("backups/restore", "snapshot=\(firstID)")
        #expect(restored.text.contains("20 rows: 20 ") && restored.text.contains("id=\"plan-undo\""), "\(restored.text.split(separator: "<h2>").last?.prefix(600) ?? "")")
        let names = try await blocking { [client = open.client] in try client.allProducts().products.map(\.name) }
        #expect(names.count == 20 && Set(names).count == 20)
        // The merchant's sheet again after the restore: the keys were linked back, nothing to send.
        let again = try await open.run("plan", "sheet=products.csv")
        #expect(again.text.contains("20 rows: 20 unchanged"), "\(again.text.split(separator: "<h2>").last?.prefix(600) ?? "")")
        await open.close()
    }

    @Test("A sheet and a .zip of its photos dropped on the page land in the folder and plan; names that leave the folder, links and other files are refused")
    func upload() async throws {
        var open = try await OpenConsole.start(rows: 1)
        let (sheet, zip) = try OpenConsole.zippedPhotos()
        let photos = try await open.upload("photos.zip", zip)
        #expect(photos.status == 200 && photos.text.contains("photos/z1.jpg") && !photos.text.contains("MACOSX"), "\(photos.text)")
        let kept = try await open.upload("C:\\Users\\kim\\Desktop\\zipped.csv", sheet)
        #expect(kept.status == 200 && kept.text.contains("zipped.csv"), "\(kept.text)")
        #expect(FileManager.default.fileExists(atPath: open.files.directory.appendingPathComponent("zipped.csv").path), "a Windows path: its last part")
        #expect(try await open.get("").text.contains(">zipped.csv<"))
        let plan = try await open.run("plan", "sheet=zipped.csv")
        #expect(plan.text.contains("2 rows: 2 would-create"), "\(plan.text.split(separator: "<h2>").last?.prefix(600) ?? "")")
        let climbing = try await open.upload("evil.zip", try OpenConsole.zip([("../outside.txt", Data("x".utf8))]))
        #expect(climbing.status == 400 && climbing.text.contains("outside the folder"), "\(climbing.text)")
        #expect(!FileManager.default.fileExists(atPath: open.files.directory.deletingLastPathComponent().appendingPathComponent("outside.txt").path))
        #expect(try await open.upload(".bashrc", Data("x".utf8)).status == 400)
        #expect(try await open.upload("tool.exe", Data("x".utf8)).status == 400)
        #expect(try await open.upload("broken.zip", Data("not a zip".utf8)).text.contains("not a zip file"))
        // In 한국어, the refusals too.
        open.language = "ko"
        let korean = try await open.upload("evil.zip", try OpenConsole.zip([("../outside.txt", Data("x".utf8))]))
        #expect(korean.status == 400 && korean.text.contains("evil.zip: ../outside.txt이(가) 폴더 밖으로 풀립니다"), "\(korean.text)")
        #expect(try await open.upload("tool.exe", Data("x".utf8)).text.contains("tool.exe: 시트(CSV, Excel, JSON, JSON Lines)나 사진 .zip 파일을 놓으세요"))
        open.language = nil
        let foreign = try await curl(["-H", "Cookie: \(open.cookie)", "-H", "Origin: http://evil.example", "--data-binary", "x",
                                      open.console.url.absoluteString + "upload?name=x.csv"])
        #expect(foreign.status == 403)
        await open.close()
    }

    @Test("Profiles in a menu: the sheet applied on the profile picked lands in that vendor's shop; runs are each shop's; a profile that cannot open is said")
    func profiles() async throws {
        let open = try await OpenConsole.start(rows: 3, profiles: ["other", "retired"])
        let first = try await open.get("")
        #expect(first.text.contains("<option value=\"other\">other</option>") && first.text.contains("<option value=\"\" selected>"), "\(first.text.suffix(2000))")
        let picked = try await open.get("shop?name=other")
        let choice = try #require(picked.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        #expect(picked.status == 303 && choice == "openmarket-console-shop=other")
        let cookie = "\(open.cookie); \(choice)"
        let started = try await curl(["-H", "Cookie: \(cookie)", "-H", "Origin: \(open.origin)", "--data", "sheet=products.csv",
                                      open.console.url.absoluteString + "apply"])
        let job = try #require(started.headers["location"])
        var page = ""
        for _ in 0..<300 where !page.contains("id=\"summary\"") {
            try await Task.sleep(for: .milliseconds(100))
            page = try await curl(["-H", "Cookie: \(cookie)", open.console.url.absoluteString + job.dropFirst()]).text
        }
        #expect(page.contains("3 rows: 3 created") && page.contains("<option value=\"other\" selected>"))
        let vendors = try await blocking { [client = open.client] in try client.allProducts().products.map(\.vendorId) }
        #expect(vendors == Array(repeating: open.sandbox.other.id, count: 3), "written as the profile's vendor: \(vendors)")
        #expect(try await curl(["-H", "Cookie: \(cookie)", open.console.url.absoluteString + "runs"]).text.contains(">import<"))
        #expect(try await open.get("runs").text.contains("No runs yet"), "the first shop's runs are its own")
        let retired = try await curl(["-H", "Cookie: \(open.cookie); openmarket-console-shop=retired", open.console.url.absoluteString])
        #expect(retired.status == 502 && retired.text.contains("The profile retired cannot be opened"), "\(retired.text.suffix(600))")
        #expect(!first.text.contains(open.sandbox.other.secret) && !page.contains(open.sandbox.other.secret))
        await open.close()
    }

    /// The Shopify export fixture in the console's folder as products_export.csv, its photos
    /// served by a local "CDN" (the server returned, to stop).
    static func shopifyExport(_ open: OpenConsole) async throws -> FeedSourceServer {
        let cdn = try await FeedSourceServer.start()
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/platforms/shopify-products_export.csv")
        var prefix = ""
        let names = ["tee-front", "tee-back", "tee-side", "tee-green", "tee-blue", "mug", "mug-handle", "hat"] + (1...7).map { "poster-\($0)" }
        for (index, name) in names.enumerated() {
            let url = cdn.servePhoto(name + ".jpg", try Fixtures.jpeg(width: 40, height: 30, seed: UInt64(index + 1)))
            prefix = String(url.dropLast(name.count + 4))
        }
        let text = try String(contentsOf: fixture, encoding: .utf8)
            .replacingOccurrences(of: "https://cdn.shopify.com/s/files/1/0000/0001/products/", with: prefix)
        try Data(text.utf8).write(to: open.files.directory.appendingPathComponent("products_export.csv"))
        return cdn
    }

    @Test("A Shopify export in the console: recognised, its currency and stock asked on the page (no flag), planned, applied as planned")
    func platformExport() async throws {
        let open = try await OpenConsole.start(rows: 1)
        let cdn = try await Self.shopifyExport(open)
        let check = try await open.post("check", "sheet=products_export.csv")
        #expect(check.status == 200 && check.text.contains("a Shopify product export") && check.text.contains("id=\"ask\"")
                && check.text.contains("currency-unstated"), "\(check.text.suffix(1200))")
        // The page asks; it names no terminal flag.
        #expect(check.text.contains("choose above the currency") && !check.text.contains("--currency") && !check.text.contains("--default-stock"),
                "\(check.text.suffix(1500))")
        // Planned without them: every row says what is missing, and the page asks for it.
        let unasked = try await open.run("plan", "sheet=products_export.csv")
        #expect(unasked.text.contains("id=\"ask\"") && unasked.text.contains("6 failed"), "\(unasked.text.split(separator: "<h2>").last?.prefix(900) ?? "")")
        let plan = try await open.run("plan", "sheet=products_export.csv&currency=USD&default_stock=4")
        #expect(plan.text.contains("6 would-create") && !plan.text.contains("id=\"ask\""), "\(plan.text.split(separator: "<h2>").last?.prefix(900) ?? "")")
        // Apply carries what the plan was read with.
        let form = try #require(plan.text.firstMatch(of: /<form method="post" action="\/apply">(.*?)<\/form>/).map { String($0.1) })
        #expect(form.contains("name=\"currency\" value=\"USD\"") && form.contains("name=\"default_stock\" value=\"4\""), "\(form)")
        let apply = try await open.run("apply", "sheet=products_export.csv&currency=USD&default_stock=4")
        #expect(apply.text.contains("6 created"), "\(apply.text.split(separator: "<h2>").last?.prefix(900) ?? "")")
        let shop = try await blocking { [client = open.client] in try client.page(1, perPage: 100).pages }
        #expect(shop.count == 6 && shop.allSatisfy { $0.currency == "USD" } && shop.first { $0.name == "Plain Mug" }?.stock == 4)
        #expect(try await open.post("plan", "sheet=products_export.csv&currency=XYZ").status == 400)
        await cdn.stop()
        await open.close()
    }

    @Test("How the sheet is read, chosen on the page as --map and --include-inactive choose it: checked again, carried to Plan and Apply; a map that does not fit says so with the choice still there")
    func readAs() async throws {
        let open = try await OpenConsole.start(rows: 1)
        let cdn = try await Self.shopifyExport(open)
        /// The form with this id, whole.
        func form(_ page: String, _ id: String) -> String {
            guard let named = page.range(of: "id=\"\(id)\""), let start = page[..<named.lowerBound].range(of: "<form", options: .backwards),
                  let end = page[named.upperBound...].range(of: "</form>") else { return "" }
            return String(page[start.lowerBound..<end.upperBound])
        }
        // As its header says: a draft and an archived product left out, each saying so.
        let check = try await open.post("check", "sheet=products_export.csv")
        let reading = form(check.text, "read-as")
        #expect(reading.contains("<option value=\"auto\" selected>as its header says</option>") && reading.contains(">Shopify</option>")
                && reading.contains(">openmarket&#39;s own columns only</option>") && !reading.contains("checked"), "\(reading)")
        #expect(check.text.components(separatedBy: ">row-off-sale<").count - 1 == 2 && check.text.contains("2 not on sale")
                && check.text.contains("tick “rows not on sale too” above") && !check.text.contains("--include-inactive"), "\(check.text.suffix(1500))")

        // The rows not on sale too: none left out, and the plan's form carries the choice.
        let all = try await open.post("check", "sheet=products_export.csv&include_inactive=1")
        #expect(!all.text.contains("row-off-sale") && form(all.text, "read-as").contains("id=\"include-inactive\" checked"), "\(all.text.suffix(1500))")
        #expect(form(all.text, "ask").contains("name=\"include_inactive\" value=\"1\""), "the currency question carries it: \(form(all.text, "ask"))")
        let plan = try await open.run("plan", "sheet=products_export.csv&currency=USD&default_stock=4&include_inactive=1")
        #expect(plan.text.contains("7 would-create"), "\(plan.text.split(separator: "<h2>").last?.prefix(900) ?? "")")
        let applyForm = try #require(plan.text.firstMatch(of: /<form method="post" action="\/apply">(.*?)<\/form>/).map { String($0.1) })
        #expect(applyForm.contains("name=\"include_inactive\" value=\"1\"") && applyForm.contains("name=\"currency\" value=\"USD\""), "\(applyForm)")
        let apply = try await open.run("apply", "sheet=products_export.csv&currency=USD&default_stock=4&include_inactive=1")
        #expect(apply.text.contains("7 created"), "\(apply.text.split(separator: "<h2>").last?.prefix(900) ?? "")")
        let made = try await blocking { [client = open.client] in try client.page(1, perPage: 100).pages }
        #expect(made.count == 7)

        // Our own columns only: Shopify's rows are not ours, every one says what it lacks.
        let own = try await open.post("check", "sheet=products_export.csv&map=none")
        #expect(own.text.contains("16 rows") && !own.text.contains("a Shopify product export")
                && form(own.text, "read-as").contains("<option value=\"none\" selected>"), "\(own.text.suffix(1500))")
        // Another platform's map on it: what is missing said, the choice still on the page.
        let wrong = try await open.post("check", "sheet=products_export.csv&map=cafe24")
        #expect(form(wrong.text, "read-as").contains("<option value=\"cafe24\" selected>Cafe24</option>"), "\(wrong.status) \(wrong.text.suffix(1500))")
        #expect(try await open.post("check", "sheet=products_export.csv&map=etsy").status == 400)
        await cdn.stop()
        await open.close()
    }

    @Test("Check shows each error with its row, the sheet's own header, the value and the rule")
    func check() async throws {
        let open = try await OpenConsole.start(rows: 2)
        try Data("sku,name,price,stock,images\nA1,Tea,abc,1,a.jpg\n".utf8).write(to: open.files.directory.appendingPathComponent("broken.csv"))
        let check = try await open.post("check", "sheet=broken.csv")
        #expect(check.status == 200 && check.text.contains("price-format") && check.text.contains("abc") && check.text.contains(">2</td>"),
                "\(check.text.suffix(900))")
        #expect(try await open.post("check", "sheet=..%2F..%2Fetc%2Fpasswd").status == 400, "only the folder's sheets")
        // An empty sheet: the page says it is empty (an answer, 200), in validate's words.
        try Data().write(to: open.files.directory.appendingPathComponent("empty.csv"))
        let empty = try await open.post("check", "sheet=empty.csv")
        // (`openmarket validate empty.csv` says: "empty.csv: the file is empty: it needs a header row naming the columns …", exit 2.)
        #expect(empty.status == 200 && empty.text.contains("id=\"summary\"")
                && empty.text.contains("empty.csv: the file is empty: it needs a header row naming the columns"), "\(empty.status) \(empty.text.suffix(600))")
        await open.close()
    }
}
