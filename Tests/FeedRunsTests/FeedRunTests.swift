import CatalogSync
import FeedRuns
import Feeds
import Foundation
import OpenMarketAPI
import Sandbox
import ShopState
import Support
import Testing
import TestSupport

@Suite("feed run: fetched, checked, synced, recorded, told", .serialized)
struct FeedRunTests {
    @Test("a night that changes nothing: 304 from the supplier, not one request to the shop; the same bytes without an ETag, the same")
    func unchanged() async throws {
        let night = try await Night.open()
        night.supplier.serve(night.sheet(rows: 5))
        let feed = try night.feed()
        let first = try await night.run(feed)
        #expect(first.outcome == .done, "\(first.message)")
        #expect(first.message == "5 rows: 5 created", "\(first.message)")
        #expect(try await night.products()["상품 1번"]?.first?.price == 1300)

        let requests = night.requests
        let second = try await night.run(feed)
        #expect(second.outcome == .unchanged && second.message.contains("HTTP 304"), "\(second.message)")
        #expect(night.supplier.gets.all == 2 && night.supplier.gets.notModified == 1)
        #expect(night.requests == requests, "an unchanged source reads nothing from the shop")

        night.supplier.answerConditionalGets(false)
        let third = try await night.run(feed)
        #expect(third.outcome == .unchanged && third.message.contains("byte for byte"), "\(third.message)")
        #expect(night.requests == requests)
        await night.close()
    }

    @Test("a supplier restarting (503 twice) is asked again under the one retry policy: the night runs; one that stays down is unreachable")
    func flakySupplier() async throws {
        let night = try await Night.open()
        night.supplier.serve(night.sheet(rows: 2))
        night.supplier.fail(next: 2)
        let feed = try night.feed()
        let run = try await night.run(feed)
        #expect(run.outcome == .done && run.message == "2 rows: 2 created", "\(run.message)")
        #expect(night.supplier.gets.all == 3, "two 503s, then the file")
        night.supplier.serve(night.sheet(rows: 3))
        night.supplier.fail(next: 50)
        let down = try await night.run(feed)
        #expect(down.outcome == .unreachable && down.message.contains("503"), "\(down.message)")
        await night.close()
    }

    @Test("a cut feed is held (nothing sent, the webhook told once with the numbers); --accept runs it; the full one again recovers")
    func cutFeed() async throws {
        let night = try await Night.open()
        night.supplier.serve(night.sheet(rows: 10))
        let feed = try night.feed("[checks]\nmax_drop_percent = 30\n[sync]\ndelete_missing = true\nmax_deletes = 10")
        #expect(try await night.run(feed).outcome == .done)
        #expect(night.supplier.hooks.isEmpty, "a success after none is no change of state")

        night.supplier.serve(night.sheet(rows: 4))
        let writes = night.sandbox.server.requests.writes
        let held = try await night.run(feed)
        #expect(held.outcome == .held)
        #expect(held.message == "the check max_drop_percent 30 failed: 4 rows against 10 in the last file that ran (-60 %); nothing was sent",
                "\(held.message)")
        #expect(night.sandbox.server.requests.writes == writes)
        #expect(try await night.products().count == 10)
        #expect(night.supplier.hooks.count == 1 && night.supplier.hooks[0].contains("openmarket feed acme: held: the check max_drop_percent 30"),
                "\(night.supplier.hooks)")
        // Held again: the same state, no second message.
        #expect(try await night.run(feed).outcome == .held)
        #expect(night.supplier.hooks.count == 1)

        night.supplier.serve(night.sheet(rows: 10))
        let recovered = try await night.run(feed)
        #expect(recovered.outcome == .unchanged, "the full file is the one that ran last: \(recovered.message)")
        #expect(night.supplier.hooks.count == 2 && night.supplier.hooks[1].contains("acme: recovered"), "\(night.supplier.hooks)")

        night.supplier.serve(night.sheet(rows: 9))
        let accepted = try await night.run(feed, accept: true)
        #expect(accepted.outcome == .done && accepted.message == "10 rows: 1 deleted, 9 unchanged", "\(accepted.message)")
        await night.close()
    }

    @Test("an empty feed, an HTML login page and a renamed column are held; --accept never takes a web page")
    func badFiles() async throws {
        let night = try await Night.open()
        let feed = try night.feed("[checks]\nmin_rows = 1")
        night.supplier.serve("상품코드,상품명,공급가,재고수량,이미지\n")
        let empty = try await night.run(feed)
        #expect(empty.outcome == .held && empty.message.contains("min_rows 1 failed: the file has 0 rows"), "\(empty.message)")

        night.supplier.serve("<!DOCTYPE html><html><body><form>Log in</form></body></html>", contentType: "text/html")
        for accept in [false, true] {
            let page = try await night.run(feed, accept: accept)
            #expect(page.outcome == .held && page.message.contains("HTML page, not a feed"), "\(page.message)")
        }
        night.supplier.serve(night.sheet(rows: 3).replacingOccurrences(of: "공급가", with: "공급 가격"))
        let renamed = try await night.run(feed)
        #expect(renamed.outcome == .held && renamed.message.contains("did you mean 공급 가격?"), "\(renamed.message)")
        // Unattended, a column that is simply gone holds the file too (import --feed reads it as a partial file).
        night.supplier.serve("상품코드,상품명,재고수량,이미지\nS1,상품 1번,1,\(night.photo)\n")
        let partial = try await night.run(feed)
        #expect(partial.outcome == .held && partial.message.contains("the check columns failed: 공급가 (cost) is not in the file"), "\(partial.message)")
        #expect(night.sandbox.server.requests.writes == 0)
        await night.close()
    }

    @Test("max_changed_percent holds a file that changes too much at once")
    func tooManyChanges() async throws {
        let night = try await Night.open()
        night.supplier.serve(night.sheet(rows: 10))
        let feed = try night.feed("[checks]\nmax_changed_percent = 25")
        #expect(try await night.run(feed).outcome == .done)
        night.supplier.serve(night.sheet(rows: 10, cost: { $0 <= 2 ? 1100 * $0 : 1000 * $0 }))
        #expect(try await night.run(feed).outcome == .done, "2 of 10 changed: 20 %")
        night.supplier.serve(night.sheet(rows: 10, cost: { 2000 * $0 }))
        let held = try await night.run(feed)
        #expect(held.outcome == .held && held.message.contains("10 of 10 rows changed, new or gone"), "\(held.message)")
        await night.close()
    }

    @Test("one run per account: a second is refused at once naming the first; a lock left by a dead process blocks nothing")
    func oneAtATime() async throws {
        let night = try await Night.open()
        night.supplier.serve(night.sheet(rows: 2))
        let feed = try night.feed()
        let runner = try night.runner(feed)
        let held = try RunLock(url: runner.lockURL, holder: "feed other")
        let refused = try await night.run(feed)
        #expect(refused.outcome == .busy)
        #expect(refused.message.contains("pid \(getpid()), feed other, since "), "\(refused.message)")
        #expect(night.supplier.gets.all == 0, "refused before anything is fetched")
        held.release()
        // The file is still there, with text in it: only the kernel's lock counts.
        try Data("pid 1, feed ghost, since yesterday\n".utf8).write(to: runner.lockURL)
        #expect(try await night.run(feed).outcome == .done)
        await night.close()
    }

    @Test("two pods run one shop's feed at once through the shared state: one runs, the other is refused naming it; after, the other runs and finds the file unchanged")
    func oneAtATimeAcrossMachines() async throws {
        let night = try await Night.open(latency: 120)
        let postgres = try await TestPostgres.start()
        night.supplier.serve(night.sheet(rows: 40))
        let feed = try night.feed()
        // Two pods: each its own feed memory (an empty home), one account in one database.
        func pod(_ name: String) throws -> FeedRunner {
            let client = try TestSupport.client(night.sandbox, night.sandbox.demo)
            let account = AccountState(shop: client, sandboxData: night.files.directory.appendingPathComponent("state-\(name)"),
                                       place: .database(postgres.address))
            var options = FeedRunOptions()
            options.jobs = 1
            return FeedRunner(feed: feed, client: client, account: account,
                              root: night.files.directory.appendingPathComponent("feeds-\(name)"), options: options)
        }
        let (first, second) = (try pod("a"), try pod("b"))
        async let running = blocking { first.run() }
        // Until the first pod's run holds the shop (its products appear).
        let deadline = Date().addingTimeInterval(60)
        while try await night.products().isEmpty, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        let refused = try await blocking { second.run() }
        #expect(refused.outcome == .busy && refused.message.contains("feed \(feed.name)") && refused.message.contains(" on "), "\(refused.message)")
        let done = try await running
        #expect(done.outcome == .done, "\(done.message)")
        #expect(try await night.products().count == 40)
        let after = try await blocking { second.run() }
        #expect(after.outcome == .unchanged, "the lock went with the first run, and the other pod knows the file it ran (the feed's memory is shared): \(after.message)")
        await postgres.stop()
        await night.close()
    }

    @Test("the feed's memory is in the shared state: a pod that starts empty knows the last file (unchanged; a file that lost most rows held against it, a changed one run)")
    func memoryAcrossPods() async throws {
        let night = try await Night.open()
        let postgres = try await TestPostgres.start()
        night.supplier.serve(night.sheet(rows: 20))
        let feed = try night.feed("[checks]\nmax_drop_percent = 30\nmax_changed_percent = 50")
        // Each pod an empty home: its own state folder and feed folders, one account in one database.
        func pod(_ name: String) throws -> FeedRunner {
            let client = try TestSupport.client(night.sandbox, night.sandbox.demo)
            let account = AccountState(shop: client, sandboxData: night.files.directory.appendingPathComponent("state-\(name)"),
                                       place: .database(postgres.address))
            return FeedRunner(feed: feed, client: client, account: account, root: night.files.directory.appendingPathComponent("feeds-\(name)"))
        }
        func run(_ runner: FeedRunner) async throws -> FeedRunResult { try await blocking { runner.run() } }
        let first = try await run(pod("monday"))
        #expect(first.outcome == .done, "\(first.message)")
        let same = try await run(pod("tuesday"))
        #expect(same.outcome == .unchanged, "a new pod knows the file that ran: \(same.message)")
        night.supplier.serve(night.sheet(rows: 5))
        let dropped = try await run(pod("wednesday"))
        #expect(dropped.outcome == .held && dropped.message.contains("5 rows against 20 in the last file that ran"), "\(dropped.message)")
        #expect(try await night.products().count == 20, "the held file sent nothing")
        night.supplier.serve(night.sheet(rows: 21))
        let grown = try await run(pod("thursday"))
        #expect(grown.outcome == .done && grown.message.contains("1 created"), "\(grown.message)")
        night.supplier.serve(night.sheet(rows: 21) { 2000 * $0 })
        let repriced = try await run(pod("friday"))
        #expect(repriced.outcome == .held && repriced.message.contains("21 of 21 rows changed"), "the rows' fingerprints are shared too: \(repriced.message)")
        // The memory is in the shared state only: a pod's folder keeps its fetched file and
        // reports, not the record or the fingerprints; `feed list --state` reads the record there.
        let monday = night.files.directory.appendingPathComponent("feeds-monday")
        let kept = try FileManager.default.subpathsOfDirectory(atPath: monday.path)
        #expect(!kept.contains { $0.hasSuffix("state.json") || $0.hasSuffix("rows.json") }, "\(kept)")
        let listed = try #require(FeedFolder.shops(of: feed, root: monday, state: .database(postgres.address)).first)
        #expect(try listed.record().lastOutcome == .held, "the last run (friday's), read from the state")
        #expect(try FeedFolder.shops(of: feed, root: monday).first?.record().lastOutcome == nil, "nothing kept in the folder")
        await postgres.stop()
        await night.close()
    }

    @Test("a supplier's price ×10 is held by the price guard (the row fails, counted as held, the rest go on); the same night with --force sends it")
    func priceGuard() async throws {
        let night = try await Night.open()
        night.supplier.serve(night.sheet(rows: 4))
        let feed = try night.feed("[checks]\nmax_changed_percent = 100")
        #expect(try await night.run(feed).outcome == .done)
        night.supplier.serve(night.sheet(rows: 4) { $0 == 2 ? 20000 : 1000 * $0 })
        let held = try await night.run(feed)
        #expect(held.outcome == .rowsFailed && held.summary?.priceGuarded == 1 && held.summary?.failed == 1, "\(held.message)")
        #expect(try await night.products()["상품 2번"]?.first?.price == 2600, "the held price is the shop's still")
        let forced = try await night.run(feed, force: true)
        #expect(forced.outcome == .done && forced.summary?.priceGuarded == 0 && forced.message.contains("1 updated"), "\(forced.message)")
        #expect(try await night.products()["상품 2번"]?.first?.price == 26000)
        await night.close()
    }

    @Test("a failing webhook never fails the run; keep_reports keeps the newest report folders; runs lists the feed")
    func webhookDownAndReports() async throws {
        let night = try await Night.open()
        night.supplier.answerHooks(with: 500)
        let feed = try night.feed()
        night.supplier.serve("not,a,feed\n")
        let broken = try await night.run(feed)
        #expect(broken.outcome == .held && broken.notifyProblems.count == 1 && broken.notifyProblems[0].contains("HTTP 500"),
                "\(broken.notifyProblems)")
        for rows in 1...3 {
            night.supplier.serve(night.sheet(rows: rows))
            #expect(try await night.run(feed).outcome == .done)
        }
        let folder = try night.folder(feed)
        let reports = try FileManager.default.contentsOfDirectory(atPath: folder.reports.path)
        #expect(reports.count == 2, "\(reports)")
        let record = try folder.record()
        #expect(record.lastOutcome == .done && record.rows == 3 && record.lastSuccess != nil)
        let client = try TestSupport.client(night.sandbox, night.sandbox.demo)
        let runs = try LinkStore.open(night.account(client).links).runs()
        #expect(runs.count == 3 && runs.allSatisfy { $0.kind == .feed && $0.source == "acme ← \(night.supplier.feedURL)" }, "\(runs)")
        await night.close()
    }

    @Test("a notify command gets the message on its standard input; one that fails or hangs never fails the run")
    func notifyCommand() async throws {
        let night = try await Night.open()
        let inbox = night.files.directory.appendingPathComponent("inbox.txt")
        night.supplier.serve("<html><body>Please log in</body></html>", contentType: "text/html")
        let feed = try night.feed("command = \"cat >> '\(inbox.path)'\"")
        #expect(try await night.run(feed).outcome == .held)
        let told = try String(contentsOf: inbox, encoding: .utf8)
        #expect(told.hasPrefix("openmarket feed acme: held: the check not data failed: the source sent an HTML page"), "\(told)")
        #expect(night.supplier.hooks.count == 1, "the webhook too")

        night.supplier.serve(night.sheet(rows: 1))
        let failing = try night.feed("command = \"exit 3\"")
        let result = try await night.run(failing)
        #expect(result.outcome == .done && result.notifyProblems == ["the notify command ended with status 3"], "\(result.notifyProblems)")
        await night.close()
    }

    @Test("a feed's run is taken back by undo as any run: the night's price changes restored")
    func undoANight() async throws {
        let night = try await Night.open()
        night.supplier.serve(night.sheet(rows: 3))
        let feed = try night.feed()
        #expect(try await night.run(feed).outcome == .done)
        night.supplier.serve(night.sheet(rows: 3, cost: { 1100 * $0 }))
        let changed = try await night.run(feed)
        #expect(changed.outcome == .done && changed.message == "3 rows: 3 updated", "\(changed.message)")
        #expect(try await night.products()["상품 1번"]?.first?.price == 1500)
        let client = try TestSupport.client(night.sandbox, night.sandbox.demo)
        let report = try #require(changed.report)
        var request = RunRequest(shop: client, account: night.account(client))
        request.choices.stopOnSignals = false
        let given = request
        let summary = try #require(try await blocking { try given.undo(folder: report) }.result).summary
        #expect(summary.counts == ["restored": 3], "\(summary.counts)")
        #expect(try await night.products()["상품 1번"]?.first?.price == 1300)
        await night.close()
    }

    @Test("a local file another program drops is read once it stops growing; its photos are beside it")
    func droppedFile() async throws {
        let night = try await Night.open()
        let drop = night.files.directory.appendingPathComponent("drop")
        try FileManager.default.createDirectory(at: drop, withIntermediateDirectories: true)
        _ = try night.files.write(try Fixtures.jpeg(width: 40, height: 30, seed: 9), named: "drop/s1.jpg")
        let file = drop.appendingPathComponent("feed.csv")
        try Data("상품코드,상품명,공급가,재고수량,이미지\nS1,상품 1번,1000,1,s1.jpg\n".utf8).write(to: file)
        let feed = try night.feed(source: "path = \"\(file.path)\"\nsettle_seconds = 1.5")
        // Still being written for a while: the run waits for it to settle. The writer is a
        // thread of its own with pauses far below settle_seconds: a task on the cooperative
        // pool could be held longer than that by a busy suite, and a pause longer than
        // settle_seconds does mean the file is done (CI once read 1 row of 4 so).
        let written = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for i in 2...4 {
                Thread.sleep(forTimeInterval: 0.1)
                if let handle = try? FileHandle(forWritingTo: file) {
                    _ = try? handle.seekToEnd()
                    try? handle.write(contentsOf: Data("S\(i),상품 \(i)번,1000,1,s1.jpg\n".utf8))
                    try? handle.close()
                }
            }
            written.signal()
        }
        let result = try await night.run(feed)
        try await blocking { written.wait() }
        #expect(result.outcome == .done && result.message == "4 rows: 4 created", "\(result.message)")
        await night.close()
    }
}

@Suite("feed run over SFTP from a real sshd")
struct SFTPFeedTests {
    @Test("a feed fetched over SFTP with a key and known hosts; the same bytes again sends nothing; a server with another host key is refused",
          .enabled(if: SSHServer.available, "sshd runs this way as root only"))
    func sftp() async throws {
        let night = try await Night.open()
        let ssh = try SSHServer.start(in: night.files.directory.appendingPathComponent("ssh"))
        defer { ssh.stop() }
        let remote = night.files.directory.appendingPathComponent("out/feed.csv")
        try FileManager.default.createDirectory(at: remote.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(night.sheet(rows: 3).utf8).write(to: remote)
        let url = "sftp://\(ssh.user)@127.0.0.1:\(ssh.port)\(remote.path)"
        let feed = try night.feed(source: "url = \"\(url)\"\nkey_file = \"\(ssh.clientKey.path)\"\nknown_hosts = \"\(ssh.knownHosts.path)\"")
        let first = try await night.run(feed)
        #expect(first.outcome == .done && first.message == "3 rows: 3 created", "\(first.message)")
        let requests = night.requests
        let second = try await night.run(feed)
        #expect(second.outcome == .unchanged && second.message.contains("byte for byte") && night.requests == requests, "\(second.message)")

        let impostor = try night.feed(source: "url = \"\(url)\"\nkey_file = \"\(ssh.clientKey.path)\"\nknown_hosts = \"\(try ssh.wrongKnownHosts().path)\"")
        let refused = try await night.run(impostor)
        #expect(refused.outcome == .unreachable && refused.message.contains("the server's host key is not the one"), "\(refused.message)")
        await night.close()
    }

    @Test("a fetched file's relative photo names are read at its URL, as a browser reads a page's links; [source] images sets another base")
    func relativePhotos() async throws {
        let night = try await Night.open()
        _ = night.supplier.servePhoto("q.jpg", try Fixtures.jpeg(width: 40, height: 30, seed: 9))
        night.supplier.serve("상품코드,상품명,공급가,재고수량,이미지\nR1,상대 경로 1,1000,1,photos/p.jpg\nR2,상대 경로 2,2000,2,/photos/q.jpg\n")
        let done = try await night.run(try night.feed())
        #expect(done.outcome == .done && done.summary?.count(.created) == 2, "\(done.message)")
        let made = try await night.products()
        #expect(made["상대 경로 1"]?.count == 1 && made["상대 경로 2"]?.count == 1)

        // Photos elsewhere: [source] images is their base; names are relative to it.
        night.supplier.serve("상품코드,상품명,공급가,재고수량,이미지\nR3,상대 경로 3,3000,3,q.jpg\n")
        let based = try await night.run(try night.feed("", source: "url = \"\(night.supplier.feedURL)\"\nimages = \"http://127.0.0.1:\(night.supplier.port)/photos\""))
        #expect(based.outcome == .done && based.summary?.count(.created) == 1, "\(based.message)")
        await night.close()
    }

    @Test("the same feed pointed at a second shop sends everything there: its memory (last file, ETag) is per feed and shop")
    func secondShop() async throws {
        let night = try await Night.open()
        night.supplier.serve(night.sheet(rows: 3))
        let feed = try night.feed()
        #expect(try await night.run(feed).summary?.count(.created) == 3)
        let again = try await night.run(feed)
        #expect(again.outcome == .unchanged, "\(again.message)")
        let other = try await night.run(feed, vendor: night.sandbox.other)
        #expect(other.outcome == .done && other.summary?.count(.created) == 3, "\(other.outcome) \(other.message)")
        let shops = FeedFolder.shops(of: feed, root: night.feedsRoot)
        #expect(shops.count == 2 && shops.allSatisfy { (try? $0.record())?.shop == "built-in sandbox" }, "\(shops.map { (try? $0.record()) })")
        #expect(FeedFolder.knownFeedFiles(root: night.feedsRoot).map(\.path) == [feed.url.standardizedFileURL.path])
        await night.close()
    }
}
