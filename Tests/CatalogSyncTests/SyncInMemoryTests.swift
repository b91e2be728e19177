@testable import CatalogSync
import CatalogExport
import CatalogMigration
import Foundation
import OpenMarketAPI
import ShopState
import Testing
import TestSupport

/// The one sync, end to end, against shops in memory: what an import, an undo, a delete and
/// a migration do to a shop, and how many requests they have in flight at once. (The same
/// paths over real HTTP are the CLI's and the sandbox's tests.)
@Suite("The one sync against a shop in memory")
struct SyncInMemoryTests {
    /// A scratch folder with a sheet of `rows` products, each with the same photo.
    static func sheet(rows: Int, in folder: URL, currency: String = "KRW", price: (Int) -> String = { String(1000 + $0) }) throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(try Fixtures.jpeg(width: 40, height: 30, seed: 5)).write(to: folder.appendingPathComponent("p.jpg"))
        var text = "key,name,price,currency,stock,images\n"
        for i in 1...rows { text += "K\(i),Memory product \(i),\(price(i)),\(currency),\(i),p.jpg\n" }
        let url = folder.appendingPathComponent("products.csv")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// A run of the shop's account kept in `folder/state`, as a door asks for one (no caches, no signals).
    static func request(_ shop: any OpenMarketAPI.Shop, in folder: URL, report name: String? = nil) -> RunRequest {
        var choices = RunChoices()
        choices.links = .file(folder.appendingPathComponent("state/links.sqlite"))
        choices.report = name.map { .given(folder.appendingPathComponent($0)) }
        choices.useCaches = false
        choices.stopOnSignals = false
        return RunRequest(shop: shop, account: AccountState(shop: shop, sandboxData: folder.appendingPathComponent("state")), choices: choices)
    }

    static func importSheet(_ sheet: URL, into shop: any OpenMarketAPI.Shop, in folder: URL, report: String = "import") throws -> SyncResult {
        try request(shop, in: folder, report: report).run(ManifestRows(sheet))
    }

    static func scratch() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sync-memory-\(UUID().uuidString)")
    }

    @Test("import, then undo of it: as many at once either way (undo is the same sync, not one product at a time)")
    func undoAsConcurrentAsImport() throws {
        let shop = InMemoryShop()
        shop.latency = 0.01
        let folder = Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let made = try Self.importSheet(try Self.sheet(rows: 40, in: folder), into: shop, in: folder)
        #expect(made.summary.counts == ["created": 40] && shop.mine.count == 40, "\(made.summary.counts)")
        let importAtOnce = shop.mostAtOnce

        shop.resetMostAtOnce()
        let taken = try #require(try Self.request(shop, in: folder).undo(folder: made.reportFolder).result)
        #expect(taken.summary.counts == ["deleted": 40] && shop.mine.isEmpty, "\(taken.summary.counts)")
        // Calls the shop saw at once during the undo alone (one at a time would be 1).
        #expect(importAtOnce > 1 && shop.mostAtOnce > 1,
                "import had \(importAtOnce) at once, the undo \(shop.mostAtOnce) (\(taken.summary.inFlight.map { "\($0)" } ?? "?"))")
        // Recorded as an undo, and itself undoable: the deleted products come back with their photos.
        let back = try #require(try Self.request(shop, in: folder).undo(folder: taken.reportFolder).result)
        #expect(back.summary.counts == ["created": 40] && shop.mine.count == 40, "\(back.summary.counts)")
        #expect(shop.all.values.allSatisfy { ($0.images ?? []).count == 1 }, "made again with the saved photo")
        // Taken back already: said so, nothing run.
        let done = try Self.request(shop, in: folder).undo(folder: made.reportFolder)
        #expect(done.result == nil && done.alreadyDone?.text(.en).contains("already undone") == true)
    }

    @Test("a shop that takes whole amounts (its capabilities, not a generation check): a row with cents fails naming the rule; the rest are made")
    func wholeAmounts() throws {
        let shop = InMemoryShop()
        shop.capabilitiesSaid.wholeAmounts = true
        let folder = Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sheet = try Self.sheet(rows: 3, in: folder, currency: "USD", price: { $0 == 2 ? "10.50" : "10" })
        let result = try Self.importSheet(sheet, into: shop, in: folder)
        #expect(result.summary.counts == ["created": 2, "failed": 1], "\(result.summary.counts)")
        let failure = try #require(result.report.failures.first)
        #expect(failure.key == "K2" && (failure.error ?? "").contains("price-whole"), "\(failure)")
        #expect(shop.callCounts["register"] == 2)
    }

    @Test("delete of named keys: each product deleted once, its photos saved for undo, a name that is no product of the account fails its row")
    func deleteNamed() throws {
        let shop = InMemoryShop()
        let folder = Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try Self.importSheet(try Self.sheet(rows: 5, in: folder), into: shop, in: folder)
        let other = shop.add("Another vendor's", vendor: 99)
        let rows = DeleteRows(["K1", "K2", "K3", "#\(other)", "NOPE"])
        let result = try Self.request(shop, in: folder, report: "delete").run(rows)
        #expect(result.summary.counts == ["deleted": 3, "failed": 2], "\(result.summary.counts)")
        #expect(shop.mine.count == 2 && shop.all[other] != nil)
        let saved = try FileManager.default.contentsOfDirectory(atPath: result.reportFolder.appendingPathComponent("deleted").path)
        #expect(saved.count == 3, "each deleted product's photos kept for undo: \(saved)")
    }

    @Test("a migration from one shop to another: every product copied once with its photos; run again, nothing sent")
    func migrate() throws {
        let source = InMemoryShop(vendor: 1, address: "memory://source", identifier: "source")
        let target = InMemoryShop(vendor: 2, address: "memory://target", identifier: "target")
        try source.addProducts(6, named: "Moved", photoSeed: 3)
        source.add("Not mine", vendor: 7)
        let folder = Self.scratch()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func copy(_ report: String) throws -> SyncResult {
            let rows = CatalogRows(source: source, filter: CatalogFilter(vendor: .me))
            return try Self.request(target, in: folder, report: report).run(rows)
        }
        let first = try copy("first")
        #expect(first.summary.counts == ["created": 6], "\(first.summary.counts) \(first.report.failures.map { $0.error ?? "" })")
        #expect(Set(target.mine.map(\.name)) == Set((1...6).map { "Moved \($0)" }))
        #expect(target.all.values.allSatisfy { ($0.images ?? []).count == 1 })
        let registers = target.callCounts["register"]
        #expect(try copy("again").summary.counts == ["unchanged": 6])
        #expect(target.callCounts["register"] == registers)
    }
}
