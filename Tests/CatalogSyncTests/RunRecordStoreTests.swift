@testable import CatalogSync
import Foundation
import OpenMarketAPI
import ShopState
import Testing
import TestSupport

/// A run's record in each place it is kept — the report folder of this machine, or the
/// account's shared state on SQLite or PostgreSQL, a whole run's or a shard attempt's part —
/// and nowhere else: what one run wrote, undo reads back, photos included.
@Suite("The run record, in a folder and in the shared state", .serialized)
struct RunRecordStoreTests {
    @Test("begin, updating, deleting with its photos, created, end: read back the same from a folder, from SQLite, from PostgreSQL and as a shard's part; a run killed before its end resumes as one run; a run again starts anew; a shared record writes no file")
    func sameEverywhere() async throws {
        let postgres = try await TestPostgres.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let reports = files.directory.appendingPathComponent("reports/run-1")
        let sqlite = StoreAddress.file(files.directory.appendingPathComponent("links.sqlite"))
        let shared = StoreAddress.database(postgres.address, account: "shop-a")
        let places: [(String, @Sendable () throws -> any RunRecordStore)] = [
            ("folder", { FolderRecord(reports) }),
            ("sqlite", { SharedRecord(store: try LinkStore.open(sqlite),
                                      run: LinkStore.recordName(folder: reports), part: "whole") }),
            ("postgres", { SharedRecord(store: try LinkStore.open(shared), run: LinkStore.recordName(folder: reports), part: "whole") }),
            ("postgres shard", { SharedRecord(store: try LinkStore.open(shared), run: "night-1", part: "1/2 a1b2c3d4") }),
        ]
        let shop = InMemoryShop()
        let photo = UploadImage(data: Data(try Fixtures.jpeg(width: 30, height: 20, seed: 7)), filename: "a.jpg", mimeType: "image/jpeg")
        let header = RunHeader(kind: .import, account: "shop-a", server: "memory", source: "products.csv")
        let before = Product(name: "Mug", description: "", price: 1000, currency: "KRW", discountedPrice: 0, stock: 1)
        var after = before
        after.price = 1200
        for (name, open) in places {
            let doomed = shop.add("Lamp \(name)", images: [photo, photo])
            let first = try await blocking { try RunRecorder(store: try open(), header: header, client: shop) }
            #expect(!first.resumed, "\(name)")
            try first.updating(id: 1, key: "MUG", byName: false, row: 2, before: before, after: after)
            let saved = try await blocking { try first.deleting(id: doomed, key: "LAMP", byName: false, row: 3, photoHashes: ["h"]) }
            #expect(saved == photo.data, "\(name)")
            // Killed here: the next run in the same place is the same run, resumed.
            let again = try await blocking { try RunRecorder(store: try open(), header: header, client: shop) }
            #expect(again.resumed && again.existing.map(\.event) == [.begin, .updating, .deleting], "\(name): \(again.existing.map(\.event))")
            try again.created(id: 9, key: "PEN", byName: false, row: 4, after: after, photoHashes: nil)
            again.end(counts: ["created": 1, "updated": 1, "deleted": 1])
            let store = try open()
            let run = try #require(try RunRecorder.read(store), "\(name)")
            #expect(run.map(\.event) == [.begin, .updating, .deleting, .created, .end], "\(name)")
            #expect(run.first?.header?.source == "products.csv" && run[1].after?.price == 1200, "\(name)")
            let deleting = run[2]
            #expect(deleting.before?.name == "Lamp \(name)" && deleting.photos == ["deleted/\(doomed)/1.jpg", "deleted/\(doomed)/2.jpg"], "\(name)")
            for path in deleting.photos ?? [] { #expect(try store.photo(path) == photo.data, "\(name): \(path)") }
            #expect(throws: (any Error).self, "\(name): a photo never kept") { try store.photo("deleted/1/9.jpg") }
            // A run that ended: the next one in the same place begins anew, and is what a reader gets.
            let next = try await blocking { try RunRecorder(store: try open(), header: header, client: shop) }
            #expect(!next.resumed, "\(name)")
            try next.created(id: 10, key: "CUP", byName: false, row: 2, after: after, photoHashes: nil)
            #expect(try RunRecorder.read(try open())?.map(\.event) == [.begin, .created], "\(name)")
        }
        // One place each: a shared record leaves the report folder with the folder's own lines only,
        // and the shard's part is apart from the whole run's in the one database.
        let written = try FileManager.default.subpathsOfDirectory(atPath: reports.path).sorted()
        #expect(written.filter { !$0.hasPrefix("deleted") } == ["run.jsonl"], "\(written)")
        #expect(written.filter { $0.hasPrefix("deleted/") && $0.hasSuffix(".jpg") }.count == 2, "the folder's own two photos only: \(written)")
        let database = try LinkStore.open(shared)
        #expect(try database.record(run: "night-1").keys.sorted() == ["1/2 a1b2c3d4"])
        #expect(try database.savedPhotos(run: "night-1").count == 2 && database.savedPhotos(run: LinkStore.recordName(folder: reports)).count == 2)
        // Readers find a shared account's record in its state, an account kept here in the folder.
        #expect(try RunRecords.find(reports, links: shared) is SharedRecord)
        #expect(try RunRecords.find(reports, links: sqlite) is FolderRecord)
        #expect(try RunRecords.find(files.directory.appendingPathComponent("reports/none"), links: shared) == nil)
        await postgres.stop()
    }
}
