@testable import CatalogSync
import Foundation
import ShopState
import Testing
import TestSupport

/// The journal in each of the places it is kept — a file of this machine, or the account's
/// shared state on SQLite or PostgreSQL — and nowhere else: what one run wrote, the next reads.
@Suite("The journal, in a file and in the shared state", .serialized)
struct JournalStoreTests {
    @Test("done, sent without an answer, failed after done, failed: read back the same from a file, from a shared store on SQLite, on PostgreSQL, and as a shard's part; a shared journal writes no file")
    func sameEverywhere() async throws {
        let postgres = try await TestPostgres.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let folder = files.directory
        let sheetJournal = folder.appendingPathComponent("journals/products.csv-abc.journal")
        let shared = StoreAddress.database(postgres.address, account: "shop-a")
        let places: [(String, @Sendable () throws -> any JournalStore)] = [
            ("file", { FileJournal(url: folder.appendingPathComponent("journals/own.journal")) }),
            ("sqlite", { SharedJournal(store: try LinkStore.open(.file(folder.appendingPathComponent("links.sqlite"))), journal: sheetJournal) }),
            ("postgres", { SharedJournal(store: try LinkStore.open(shared), journal: sheetJournal) }),
            ("postgres shard", { SharedJournal(store: try LinkStore.open(shared), run: "night-1", shard: Shard(index: 1, count: 2)!) }),
        ]
        for (name, open) in places {
            let first = try await blocking { try Journal(store: try open()) }
            try first.record(.sent, key: "K1", hash: "h1", row: 2)
            try first.record(.done, key: "K1", hash: "h1", row: 2, id: 7)
            try first.record(.sent, key: "K2", hash: "h2", row: 3)
            try first.record(.done, key: "K3", hash: "h3", row: 4, id: 9)
            try first.record(.failed, key: "K3", hash: "h3", row: 4, error: "a later update failed")
            try first.record(.failed, key: "K4", hash: "h4", row: 5, error: "refused")
            let again = try await blocking { try Journal(store: try open()) }
            #expect(again.state(of: "K1") == .done(id: 7, hash: "h1"), "\(name)")
            guard case .sent(_, let hash)? = again.state(of: "K2") else {
                Issue.record("\(name): K2 is \(String(describing: again.state(of: "K2")))")
                continue
            }
            #expect(hash == "h2", "\(name)")
            #expect(again.state(of: "K3") == .done(id: 9, hash: "h3") && again.state(of: "K4") == .failed, "\(name)")
            #expect(Set(again.doneIDs) == [7, 9] && again.state(of: "K5") == nil, "\(name)")
        }
        // The shard's part and the whole sheet's journal are apart in the one database.
        let whole = try await blocking { try Journal(store: SharedJournal(store: try LinkStore.open(shared), run: "night-1", shard: Shard(index: 0, count: 2)!)) }
        #expect(whole.state(of: "K1") == nil, "another shard's part")
        // A shared journal is the only copy: no file beside the one kept here.
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("journals").path)
        #expect(written == ["own.journal"], "\(written)")
        await postgres.stop()
    }
}
