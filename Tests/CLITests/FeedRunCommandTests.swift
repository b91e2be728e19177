import Foundation
import OpenMarketAPI
import Testing
import TestSupport

/// A merchant's machine for scheduled feeds: a config folder with the feed file, a state
/// folder, the supplier's web server and the shop.
struct FeedMachine {
    let files: Scratch
    let supplier: FeedSourceServer
    let sandbox: TestSandbox
    let photo: String

    static func open(latency: Int = 0) async throws -> FeedMachine {
        let files = try Scratch()
        let supplier = try await FeedSourceServer.start()
        let photo = supplier.servePhoto("p.jpg", try Fixtures.jpeg(width: 48, height: 36, seed: 5))
        let sandbox = try await TestSandbox.start { $0.faults.latencyMilliseconds = latency }
        let machine = FeedMachine(files: files, supplier: supplier, sandbox: sandbox, photo: photo)
        try FileManager.default.createDirectory(at: machine.feeds, withIntermediateDirectories: true)
        return machine
    }

    func close() async {
        await supplier.stop()
        await sandbox.stop()
        files.cleanup()
    }

    var config: URL { files.directory.appendingPathComponent("config") }
    var feeds: URL { config.appendingPathComponent("openmarket/feeds") }
    var environment: [String: String] {
        ["XDG_CONFIG_HOME": config.path, "XDG_STATE_HOME": files.directory.appendingPathComponent("state").path]
    }
    var shop: [String] { sandbox.demoAccount }

    func writeFeed(_ extra: String = "") throws {
        let text = Fixtures.feedText(source: supplier.feedURL, markup: 50, "[notify]\nwebhook = \"\(supplier.hookURL)\"\n\(extra)")
        try Data(text.utf8).write(to: feeds.appendingPathComponent("acme.toml"))
    }

    func sheet(rows: Int) -> String {
        "code,title,cost,qty,photo\n" + (1...rows).map { "C\($0),Product number \($0),\(1000 + $0),\($0),\(photo)\n" }.joined()
    }

    func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await CLIProcess.run(arguments, environment: environment)
    }

    /// The config file with the shop as [profiles.shop] (mode 600).
    func writeConfig() throws {
        let file = config.appendingPathComponent("openmarket/config.toml")
        try Data("""
            [profiles.shop]
            server = "\(sandbox.url)"
            identifier = "\(sandbox.demo.identifier)"
            secret = "\(sandbox.demo.secret)"
            """.utf8).write(to: file)
        chmod(file.path, 0o600)
    }
}

@Suite("openmarket feed run, schedule, list, status", .serialized)
struct FeedRunCommandTests {
    @Test("exit codes a scheduler can trust: done 0, unchanged 0, held 4, source unreachable 6; list and status say how it went")
    func exitCodes() async throws {
        let machine = try await FeedMachine.open()
        try machine.writeFeed("[checks]\nmin_rows = 3")
        machine.supplier.serve(machine.sheet(rows: 4))
        let done = try await machine.run(["feed", "run", "acme"] + machine.shop)
        #expect(done.status == 0, "\(done.stdout)\(done.stderr)")
        #expect(done.stdout.contains("acme: done: 4 rows: 4 created") && done.stdout.contains("to take it back: openmarket undo "), "\(done.stdout)")
        let unchanged = try await machine.run(["feed", "run", "--all"] + machine.shop)
        #expect(unchanged.status == 0 && unchanged.stdout.contains("acme: unchanged: the server says the file has not changed"), "\(unchanged.stdout)")

        machine.supplier.serve(machine.sheet(rows: 2))
        let held = try await machine.run(["feed", "run", "acme"] + machine.shop)
        #expect(held.status == 4 && held.stdout.contains("acme: held: the file has 2 rows, fewer than min_rows 3"), "\(held.stdout)")
        #expect(machine.supplier.hooks.count == 1)

        let status = try await machine.run(["feed", "status", "--max-age", "1h"])
        #expect(status.status == 0 && status.stdout.contains("1 feed succeeded within 1h"), "\(status.stdout)")
        let list = try await machine.run(["feed", "list"])
        #expect(list.stdout.contains("acme  \(machine.supplier.feedURL)  not scheduled\n")
                && list.stdout.contains("    shop \(machine.sandbox.url): held "), "\(list.stdout)")

        // A second feed whose supplier is down: exit 6, and status names it (exit 1).
        let text = try String(contentsOf: machine.feeds.appendingPathComponent("acme.toml"), encoding: .utf8)
            .replacingOccurrences(of: machine.supplier.feedURL, with: "http://127.0.0.1:9/feed.csv")
        try Data(text.utf8).write(to: machine.feeds.appendingPathComponent("other.toml"))
        let unreachable = try await machine.run(["feed", "run", "other"] + machine.shop)
        #expect(unreachable.status == 6 && unreachable.stdout.contains("other: unreachable: the source cannot be fetched"), "\(unreachable.stdout)")
        let late = try await machine.run(["feed", "status", "--max-age", "1h"])
        #expect(late.status == 1 && late.stdout.contains("other (shop \(machine.sandbox.url)): never succeeded; last run: unreachable"), "\(late.stdout)")
        #expect(!late.stdout.contains("acme"), "acme succeeded within the hour")
        let both = try await machine.run(["feed", "run", "--all"] + machine.shop)
        #expect(both.status == 6, "with several feeds, the highest code: \(both.stdout)")
        await machine.close()
    }

    @Test("two overlapping runs: the second is refused at once (exit 5) naming the first; kill -9 the first, the next run finishes it exactly once")
    func overlapAndKill() async throws {
        // 30 rows, 2 at a time at 400 ms: 6 s or more, longer than the refused second process takes to start.
        let machine = try await FeedMachine.open(latency: 400)
        try machine.writeFeed()
        machine.supplier.serve(machine.sheet(rows: 30))
        let first = try CLIProcess(["feed", "run", "acme", "--jobs", "2"] + machine.shop, environment: machine.environment)
        // Wait until it writes to the shop.
        for _ in 0..<600 where machine.sandbox.server.requests.writes < 4 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(machine.sandbox.server.requests.writes >= 4)
        let second = try await machine.run(["feed", "run", "acme"] + machine.shop)
        #expect(second.status == 5, "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains("acme: busy: another run of this account is running (pid "), "\(second.stdout)")
        #expect(second.stdout.contains("feed acme, since "))

        try await first.kill()
        let written = machine.sandbox.server.requests.writes
        #expect(written < 30, "killed half way (\(written) writes)")

        let again = try await machine.run(["feed", "run", "acme"] + machine.shop)
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        let products = try await allProducts(machine.sandbox)
        #expect(products.count == 30, "\(products.count) products")
        #expect(Set(products.map(\.name)).count == 30, "every key exactly one product")
        await machine.close()
    }

    @Test("schedule: a systemd user timer and service that systemd-analyze accepts; without a user systemd, the crontab line; --remove")
    func schedule() async throws {
        let machine = try await FeedMachine.open()
        try machine.writeFeed("[target]\nprofile = \"shop\"")
        try machine.writeConfig()
        let daily = try await machine.run(["feed", "schedule", "acme", "--daily", "03:30"])
        #expect(daily.status == 0, "\(daily.stdout)\(daily.stderr)")
        let units = machine.config.appendingPathComponent("systemd/user")
        let service = units.appendingPathComponent("openmarket-feed-acme.service")
        let timer = units.appendingPathComponent("openmarket-feed-acme.timer")
        let serviceText = try String(contentsOf: service, encoding: .utf8)
        #expect(serviceText.contains("ExecStart=\(CLIProcess.binary.resolvingSymlinksInPath().path) feed run \(machine.feeds.path)/acme.toml"),
                "\(serviceText)")
        #expect(serviceText.contains("Environment=XDG_STATE_HOME=\(machine.files.directory.path)/state"))
        #expect(try String(contentsOf: timer, encoding: .utf8).contains("OnCalendar=*-*-* 03:30:00\nPersistent=true"))
        if !FileManager.default.fileExists(atPath: "/run/systemd/system") {
            // cron starts a command with almost no environment: the line carries the folders the service has.
            #expect(daily.stdout.contains("30 3 * * * XDG_CONFIG_HOME=\(machine.config.path) XDG_STATE_HOME=\(machine.files.directory.path)/state ")
                    && daily.stdout.contains(" \(CLIProcess.binary.resolvingSymlinksInPath().path) feed run "), "\(daily.stdout)")
            let listed = try await machine.run(["feed", "list"])
            #expect(listed.stdout.contains("(written, not enabled: no user systemd here"), "\(listed.stdout)")
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") {
            #expect(try Self.verify([timer, service]) == 0)
            // The check can fail: a timer whose calendar systemd cannot read.
            try Data("[Timer]\nOnCalendar=every night please\n".utf8).write(to: units.appendingPathComponent("openmarket-feed-bad.timer"))
            #expect(try Self.verify([units.appendingPathComponent("openmarket-feed-bad.timer")]) != 0)
        }
        let every = try await machine.run(["feed", "schedule", "acme", "--every", "2h"])
        #expect(every.status == 0 && every.stdout.contains("OnCalendar=*-*-* 00/2:00:00"))
        let list = try await machine.run(["feed", "list"])
        #expect(list.stdout.contains("timer *-*-* 00/2:00:00"), "\(list.stdout)")
        let wrong = try await machine.run(["feed", "schedule", "acme", "--every", "7h"])
        #expect(wrong.status == 64)
        let removed = try await machine.run(["feed", "schedule", "acme", "--remove"])
        #expect(removed.status == 0 && !FileManager.default.fileExists(atPath: timer.path) && !FileManager.default.fileExists(atPath: service.path))
        await machine.close()
    }

    static func verify(_ units: [URL]) throws -> Int32 {
        try runTool("/usr/bin/systemd-analyze", ["verify"] + units.map(\.path))
    }

    @Test("unattended, a feed never writes into a throwaway sandbox: a run or a schedule with no shop is refused, saying how to name it; a status that watches nothing fails; feed test tries the feed's own source")
    func noShop() async throws {
        let machine = try await FeedMachine.open()
        let empty = try await machine.run(["feed", "status", "--max-age", "1h"])
        #expect(empty.status == 1 && empty.stdout.contains("No feeds to watch"), "\(empty.stdout)")

        try machine.writeFeed()
        machine.supplier.serve(machine.sheet(rows: 2))
        // As cron runs it: no options, nothing in the environment, no config file.
        let run = try await machine.run(["feed", "run", "acme"])
        #expect(run.status == 2 && run.stderr.contains("no shop to write to") && run.stderr.contains("[target] profile"), "\(run.stdout)\(run.stderr)")
        #expect(!run.stdout.contains("created"))
        let scheduled = try await machine.run(["feed", "schedule", "acme", "--daily", "03:00"])
        #expect(scheduled.status == 2 && scheduled.stderr.contains("names no shop"), "\(scheduled.stdout)\(scheduled.stderr)")
        try machine.writeFeed("[target]\nprofile = \"missing\"")
        let unknown = try await machine.run(["feed", "schedule", "acme", "--daily", "03:00"])
        #expect(unknown.status == 2 && unknown.stderr.contains("[profiles.missing]"), "\(unknown.stderr)")

        // feed test FEED: the source fetched and tried; nothing recorded (the run after still sends).
        try machine.writeFeed("[target]\nprofile = \"shop\"")
        try machine.writeConfig()
        let trial = try await machine.run(["feed", "test", "acme"])
        #expect(trial.status == 0 && trial.stdout.contains("Fetched \(machine.supplier.feedURL)") && trial.stdout.contains("2 rows, 2 valid"),
                "\(trial.stdout)\(trial.stderr)")
        // Run from a path outside the feeds folder: list and status know it all the same.
        let elsewhere = machine.files.directory.appendingPathComponent("acme.toml")
        try FileManager.default.moveItem(at: machine.feeds.appendingPathComponent("acme.toml"), to: elsewhere)
        let real = try await machine.run(["feed", "run", elsewhere.path])
        #expect(real.status == 0 && real.stdout.contains("acme: done: 2 rows: 2 created"), "\(real.stdout)\(real.stderr)")
        let list = try await machine.run(["feed", "list"])
        #expect(list.stdout.contains("file: \(elsewhere.path)") && list.stdout.contains("shop \(machine.sandbox.url): done"), "\(list.stdout)")
        let status = try await machine.run(["feed", "status", "--max-age", "1h"])
        #expect(status.status == 0 && status.stdout.contains("1 feed succeeded within 1h"), "\(status.stdout)")
        await machine.close()
    }
}
