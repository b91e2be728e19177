import CatalogSync
import Foundation
import OpenMarketAPI
import Testing
import TestSupport
@testable import WebConsole

/// The console's runs come from the one run request the CLI uses: what `undo --run` finds the
/// console finds, and what `feed run --cacert` fetches the console fetches.
@Suite("The console and the one run request", .serialized)
struct ConsoleRunRequestTests {
    @Test("a sharded run made from two other homes: listed once with its shards summed, planned and undone whole from the console, as undo --run does; then no Undo for it")
    func shardedRunUndone() async throws {
        let postgres = try await TestPostgres.start()
        let open = try await OpenConsole.start(rows: 12, state: postgres.address)
        let sheet = open.files.directory.appendingPathComponent("products.csv")
        // Two pods, each with an empty home of its own, one shard each.
        for index in 0..<2 {
            var choices = RunChoices()
            choices.shard = ShardRun(run: "night-1", shard: try #require(Shard(index: index, count: 2)))
            choices.useCaches = false
            choices.stopOnSignals = false
            let home = open.files.directory.appendingPathComponent("pod-\(index)")
            let request = RunRequest(shop: open.client, account: AccountState(shop: open.client, sandboxData: home, place: .database(postgres.address)),
                                     choices: choices)
            let result = try await blocking { try request.run(ManifestRows(sheet)) }
            #expect(result.summary.failed == 0 && result.summary.count(.created) > 0, "\(result.summary.counts)")
        }
        #expect(try await open.products() == 12)
        let runs = try await open.get("runs")
        #expect(runs.text.components(separatedBy: "run night-1 (2 shards)").count - 1 == 1 && runs.text.contains("12 created"),
                "one line for the run, its shards summed: \(runs.text.suffix(1200))")
        #expect(runs.text.contains("value=\"run:night-1\""), "with its Undo: \(runs.text.suffix(1200))")
        let plan = try await open.run("undo-plan", "run=run%3Anight-1")
        #expect(plan.text.contains("shard 0/2") && plan.text.contains("would-delete") && plan.text.contains("id=\"undo\""),
                "\(plan.text.split(separator: "<h2>").last?.prefix(900) ?? "")")
        #expect(try await open.products() == 12, "a plan writes nothing")
        let undone = try await open.run("undo", "run=run%3Anight-1")
        #expect(undone.text.contains("shard 1/2") && undone.text.contains("deleted"), "\(undone.text.split(separator: "<h2>").last?.prefix(900) ?? "")")
        #expect(try await open.products() == 0, "every shard's products deleted")
        // Undone: the runs page no longer offers it, and a form sent anyway is refused with the reason.
        #expect(!(try await open.get("runs")).text.contains("value=\"run:night-1\""))
        let again = try await open.post("undo-plan", "run=run%3Anight-1")
        #expect(again.status == 409 && again.text.contains("undone already"), "\(again.status) \(again.text.suffix(400))")
        await open.close()
        await postgres.stop()
    }

    @Test("an empty run and an undone run have no Undo on the runs page; the undo of a run made here still works")
    func undoOnlyWhereItCan() async throws {
        let open = try await OpenConsole.start(rows: 3)
        let applied = try await open.run("apply", "sheet=products.csv")
        #expect(applied.text.contains("3 created"))
        let nothing = try await open.run("apply", "sheet=products.csv")
        #expect(nothing.text.contains("3 unchanged"), "\(nothing.text.suffix(600))")
        let runs = try await open.get("runs")
        let offered = runs.text.matches(of: /action="\/undo-plan"><input type="hidden" name="run" value="([^"]+)"/).map { String($0.1) }
        #expect(offered.count == 1, "Undo for the run that wrote only, not the one with nothing to do: \(runs.text.suffix(1500))")
        let folder = try #require(offered.first)
        let encoded = folder.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? folder
        _ = try await open.run("undo", "run=\(encoded)")
        #expect(try await open.products() == 0)
        // The import undone has no Undo left; the undo itself (it wrote) has one: taking the undo back.
        let after = try await open.get("runs").text.matches(of: /action="\/undo-plan"><input type="hidden" name="run" value="([^"]+)"/).map { String($0.1) }
        #expect(after == [folder + "/undo"], "\(after)")
        await open.close()
    }

    @Test("a feed whose source is HTTPS behind a private CA runs from the console given --cacert, as feed run does; without it the fetch is refused")
    func feedOverPrivateTLS() async throws {
        let scratch = try Scratch()
        defer { scratch.cleanup() }
        let certificates = try TestCertificates.make(in: scratch.directory)
        let supplier = try await FeedSourceServer.start(tls: certificates)
        let photo = supplier.servePhoto("p.jpg", try Fixtures.jpeg(width: 48, height: 36, seed: 3))
        supplier.serve("code,title,cost,qty,photo\n" + (1...3).map { "S\($0),Tea \($0),\(1000 * $0),\($0),\(photo)\n" }.joined())
        #expect(supplier.feedURL.hasPrefix("https://"))

        let untrusted = try await OpenConsole.start(rows: 1)
        try untrusted.writeFeed(source: supplier.feedURL)
        let refused = try await untrusted.run("feeds/run", "feed=acme")
        #expect(refused.text.contains("acme: unreachable"), "\(refused.text.split(separator: "<h2>").last?.prefix(700) ?? "")")
        #expect(try await untrusted.products() == 0)
        await untrusted.close()

        var transport = TransportSettings()
        transport.caFile = certificates.ca.path
        let open = try await OpenConsole.start(rows: 1, transport: transport)
        try open.writeFeed(source: supplier.feedURL)
        let done = try await open.run("feeds/run", "feed=acme")
        #expect(done.text.contains("acme: done: 3 rows: 3 created"), "\(done.text.split(separator: "<body>").last?.prefix(1500) ?? "")")
        #expect(try await open.products() == 3)
        await open.close()
        await supplier.stop()
    }
}
