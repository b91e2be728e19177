import Foundation
import Sandbox
import Testing
import TestSupport

/// `feed run --all --state postgres://…` on several machines at once: a fleet's feeds shared
/// through the database, each run by one machine.
@Suite("Feed rounds shared by machines", .serialized)
struct FeedRoundTests {
    /// Four shops (two sandboxes × two vendors), a feed for each, the same config on every machine.
    struct Fleet {
        let files: Scratch
        let supplier: FeedSourceServer
        let sandboxes: [TestSandbox]
        let postgres: TestPostgres
        let photo: String

        static func open() async throws -> Fleet {
            let files = try Scratch()
            let supplier = try await FeedSourceServer.start()
            let photo = supplier.servePhoto("p.jpg", try Fixtures.jpeg(width: 48, height: 36, seed: 9))
            let sandboxes = [try await TestSandbox.start { $0.faults.latencyMilliseconds = 30 },
                             try await TestSandbox.start { $0.faults.latencyMilliseconds = 30 }]
            return Fleet(files: files, supplier: supplier, sandboxes: sandboxes, postgres: try await TestPostgres.start(), photo: photo)
        }

        func close() async {
            for sandbox in sandboxes { await sandbox.stop() }
            await supplier.stop()
            await postgres.stop()
            files.cleanup()
        }

        /// The shops as (sandbox, vendor) pairs: shop-1 … shop-4.
        var shops: [(TestSandbox, String, String)] {
            sandboxes.flatMap { sandbox in [sandbox.demo, sandbox.other].map { (sandbox, $0.identifier, $0.secret) } }
        }

        /// A machine: an empty home with the fleet's config file and feed files, the state shared.
        func machine(_ name: String, round: String) throws -> [String: String] {
            let home = SharedStateTests.home(name, in: files)
            let config = URL(fileURLWithPath: home["XDG_CONFIG_HOME"]!).appendingPathComponent("openmarket")
            try FileManager.default.createDirectory(at: config.appendingPathComponent("feeds"), withIntermediateDirectories: true)
            var profiles = ""
            for (index, shop) in shops.enumerated() {
                profiles += "[profiles.shop-\(index + 1)]\nserver = \"\(shop.0.url)\"\nidentifier = \"\(shop.1)\"\nsecret = \"\(shop.2)\"\n"
                let feed = Fixtures.feedText(source: supplier.feedURL, markup: 20, "[target]\nprofile = \"shop-\(index + 1)\"")
                try Data(feed.utf8).write(to: config.appendingPathComponent("feeds/feed-\(index + 1).toml"))
            }
            try Data(profiles.utf8).write(to: config.appendingPathComponent("config.toml"))
            chmod(config.appendingPathComponent("config.toml").path, 0o600)
            return home.merging(["OPENMARKET_STATE": postgres.address.absoluteString, "OPENMARKET_ROUND": round]) { $1 }
        }

        func sheet(rows: Int) -> String {
            "code,title,cost,qty,photo\n" + (1...rows).map { "R\($0),Fleet product \($0),\(1000 + $0),\($0),\(photo)\n" }.joined()
        }

        /// Products of each shop, in the order of `shops`.
        func counts() async throws -> [Int] {
            var counts: [Int] = []
            for (sandbox, identifier, _) in shops {
                let vendor = sandbox.demo.identifier == identifier ? sandbox.demo : sandbox.other
                counts.append(try await allProducts(sandbox).filter { $0.vendorId == vendor.id }.count)
            }
            return counts
        }
    }

    @Test("two machines run one round at once: each of four feeds runs once, on one of them; a third machine finds the round finished; a machine killed mid-feed leaves its feed to the next")
    func sharedRound() async throws {
        let fleet = try await Fleet.open()
        fleet.supplier.serve(fleet.sheet(rows: 20))
        let a = try CLIProcess(["feed", "run", "--all", "--jobs", "2"], environment: try fleet.machine("a", round: "night-1"))
        let b = try CLIProcess(["feed", "run", "--all", "--jobs", "2"], environment: try fleet.machine("b", round: "night-1"))
        // Alone this test takes 17 s; in the whole suite on 2 cores a machine's round took past 120 s once.
        let statuses = [try await a.exit(timeout: .seconds(300)), try await b.exit(timeout: .seconds(300))]
        let output = a.stdout + b.stdout
        #expect(statuses == [0, 0], "\(a.stdout)\(a.stderr)\(b.stdout)\(b.stderr)")
        for feed in 1...4 {
            #expect(output.components(separatedBy: "feed-\(feed): done: 20 rows: 20 created").count - 1 == 1, "feed-\(feed) ran once: \(output)")
        }
        #expect(try await fleet.counts() == [20, 20, 20, 20])
        let ranHere = [a.stdout, b.stdout].map { $0.firstMatch(of: /round night-1: ([0-9]+) run here/).flatMap { Int($0.1) } ?? -1 }
        #expect(ranHere.reduce(0, +) == 4 && ranHere.allSatisfy { $0 >= 0 }, "\(ranHere)")
        let late = try await CLIProcess.run(["feed", "run", "--all"], environment: try fleet.machine("c", round: "night-1"), timeout: .seconds(300))
        #expect(late.status == 0 && late.stdout.contains("round night-1: 0 run here; 4 of 4 finished in all"), "\(late.stdout)\(late.stderr)")

        // The next night: a machine killed in the middle of a feed; the next machine takes that
        // feed (its claim died with the session) and the rest, each once.
        fleet.supplier.serve(fleet.sheet(rows: 60))
        let killed = try CLIProcess(["feed", "run", "--all", "--jobs", "1"], environment: try fleet.machine("d", round: "night-2"))
        let deadline = ContinuousClock.now + .seconds(60)
        while try await fleet.counts().reduce(0, +) < 84, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(30)) }
        try await killed.kill()
        #expect(try await fleet.counts().reduce(0, +) < 240, "killed mid-round")
        let next = try await CLIProcess.run(["feed", "run", "--all"], environment: try fleet.machine("e", round: "night-2"), timeout: .seconds(300))
        #expect(next.status == 0 && next.stdout.contains("4 of 4 finished in all"), "\(next.stdout)\(next.stderr)")
        #expect(try await fleet.counts() == [60, 60, 60, 60], "every shop synced once, none twice")
        await fleet.close()
    }
}
