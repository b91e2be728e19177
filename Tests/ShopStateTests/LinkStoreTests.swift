import Foundation
import GRDB
import OpenMarketContract
@testable import ShopState
import Support
import Synchronization
import Testing
import TestSupport

/// Where a store under test keeps its rows: the default SQLite file, or an account's rows in a
/// real PostgreSQL server the test starts. Every test of the suite runs on both.
enum StorePlace: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

/// A store at a place, and a way to write its rows behind its back (as an older version, or a
/// damaged disk, would have).
final class OpenStore: @unchecked Sendable {
    let place: StorePlace
    private let folder: URL
    private let server: TestPostgres?

    private init(_ place: StorePlace, server: TestPostgres?) {
        self.place = place
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("links-\(UUID().uuidString)")
        self.server = server
    }

    static func open(_ place: StorePlace) async throws -> OpenStore {
        OpenStore(place, server: place == .postgres ? try await TestPostgres.start() : nil)
    }

    /// The store of an account (`tag`), new or already there.
    func store(account tag: String = "shop-a") throws -> LinkStore {
        guard let server else { return try LinkStore.open(.file(folder.appendingPathComponent("\(tag).sqlite"))) }
        return try LinkStore.open(.database(server.address, account: tag))
    }

    /// SQL run straight on the account's rows; `ACCOUNT` stands for the PostgreSQL account condition.
    func raw(_ sql: String, account tag: String = "shop-a") throws {
        if let server {
            let connection = try PostgresConnection(server.address.absoluteString)
            try connection.execute(sql.replacingOccurrences(of: "ACCOUNT", with: "account = '\(tag)'"))
        } else {
            let queue = try DatabaseQueue(path: folder.appendingPathComponent("\(tag).sqlite").path)
            try queue.write { db in try db.execute(sql: sql.replacingOccurrences(of: "ACCOUNT", with: "1")) }
        }
    }

    private let closed = Atomic<Bool>(false)

    func close() async {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        await server?.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// For a test that ended by throwing: stopped on a thread of its own (a `defer` cannot await).
    func closeSoon() {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        let (server, folder) = (server, folder)
        Thread {
            server?.stopBlocking()
            try? FileManager.default.removeItem(at: folder)
        }.start()
    }
}

@Suite("The link store, on SQLite and on PostgreSQL", .serialized)
struct LinkStoreTests {
    static let pushed = Product(name: "녹차", description: "Jeju", price: Money(exactly: "31000.5")!, currency: "KRW",
                                discountedPrice: 0, stock: 8)

    @Test("a link is read back as it was saved (an exact price, photos, the time); one product has one key", arguments: StorePlace.allCases)
    func roundTrip(_ place: StorePlace) async throws {
        let open = try await OpenStore.open(place)
        defer { open.closeSoon() }
        let store = try open.store()
        let when = Date(timeIntervalSince1970: 1_790_000_000.25)
        let link = ProductLink(key: "TEA-1", byName: false, productID: 41, state: .linked, pushed: Self.pushed,
                               photos: ["ab", "cd"], updatedAt: when)
        try store.save(link)
        #expect(try store.link("TEA-1") == link)
        try store.save(ProductLink(key: "name:Other", byName: true, productID: 42, state: .pending, pushed: nil, photos: nil))
        try store.save(ProductLink(key: "WAIT", byName: false, productID: nil, state: .pending, pushed: nil, photos: nil))
        // A name linked to its product, and a key whose create is not yet confirmed though it names a product.
        try store.save(ProductLink(key: "name:Linked", byName: true, productID: 43, state: .linked, pushed: Self.pushed, photos: nil))
        try store.save(ProductLink(key: "SENT", byName: false, productID: 44, state: .pending, pushed: nil, photos: nil))
        #expect(try store.keysByProductID() == [41: "TEA-1"], "names and pending links are not merchant keys")
        try store.remove("name:Linked")
        try store.remove("SENT")
        // The same product under another key: the old key lets go of it.
        try store.save(ProductLink(key: "TEA-1b", byName: false, productID: 41, state: .linked, pushed: Self.pushed, photos: nil))
        #expect(try store.link("TEA-1") == nil)
        #expect(Set(try store.all().keys) == ["TEA-1b", "name:Other", "WAIT"])
        // Saved again: replaced, not doubled.
        try store.save(ProductLink(key: "WAIT", byName: false, productID: 43, state: .linked, pushed: Self.pushed, photos: ["x"]))
        #expect(try store.all().count == 3 && store.link("WAIT")?.productID == 43)
        try store.remove("WAIT")
        #expect(try store.link("WAIT") == nil && store.all().count == 2)
        #expect(try LinkStore.open(store.address) === store, "one open store per account in the process")
        await open.close()
    }

    @Test("facts are the account's, set and replaced", arguments: StorePlace.allCases)
    func facts(_ place: StorePlace) async throws {
        let open = try await OpenStore.open(place)
        defer { open.closeSoon() }
        let store = try open.store()
        #expect(try store.fact("vendor_id") == nil)
        try store.setFact("vendor_id", "7")
        try store.setFact("vendor_id", "8")
        #expect(try store.fact("vendor_id") == "8")
        await open.close()
    }

    @Test("photos saved with a run's record: every byte back, by path; replaced by path; runs apart", arguments: StorePlace.allCases)
    func savedPhotos(_ place: StorePlace) async throws {
        let open = try await OpenStore.open(place)
        defer { open.closeSoon() }
        let store = try open.store()
        let photo = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }) + Data([0, 0xFF, 0x5C, 0x78])
        try store.savePhoto(run: "folder /r/1", path: "deleted/41/1.jpg", data: photo)
        try store.savePhoto(run: "folder /r/1", path: "deleted/41/2.png", data: Data([1, 2, 3]))
        try store.savePhoto(run: "folder /r/1", path: "deleted/41/2.png", data: Data([4, 5]))
        try store.savePhoto(run: "folder /r/2", path: "deleted/9/1.jpg", data: Data([9]))
        let saved = try store.savedPhotos(run: "folder /r/1")
        #expect(saved.map(\.path) == ["deleted/41/1.jpg", "deleted/41/2.png"])
        #expect(saved.first?.data == photo && saved.last?.data == Data([4, 5]))
        #expect(try store.savedPhotos(run: "folder /r/3").isEmpty)
        await open.close()
    }

    @Test("a run's record lines (a shared run's record, a shared journal): by part, each part in the order written; another run and another account apart", arguments: StorePlace.allCases)
    func recordLines(_ place: StorePlace) async throws {
        let open = try await OpenStore.open(place)
        defer { open.closeSoon() }
        let store = try open.store()
        for i in 1...60 { try store.appendRecord(run: "journal night", part: i % 2 == 0 ? "0/2" : "1/2", line: "{\"row\": \(i)}") }
        try store.appendRecord(run: "folder /reports/a", part: "whole", line: "한 줄")
        try open.store(account: "shop-b").appendRecord(run: "journal night", part: "0/2", line: "b's")
        let parts = try store.record(run: "journal night")
        #expect(parts["0/2"] == (1...60).filter { $0 % 2 == 0 }.map { "{\"row\": \($0)}" })
        #expect(parts["1/2"] == (1...60).filter { $0 % 2 == 1 }.map { "{\"row\": \($0)}" } && parts.count == 2)
        #expect(try store.record(run: "folder /reports/a") == ["whole": ["한 줄"]])
        #expect(try store.record(run: "journal none").isEmpty)
        #expect(try open.store(account: "shop-b").record(run: "journal night") == ["0/2": ["b's"]])
        await open.close()
    }

    @Test("runs: begun, resumed (the first start kept), begun anew (replaced), finished with counts; newest first", arguments: StorePlace.allCases)
    func runs(_ place: StorePlace) async throws {
        let open = try await OpenStore.open(place)
        defer { open.closeSoon() }
        let store = try open.store()
        let first = Date(timeIntervalSince1970: 1_790_000_000.5)
        try store.beginRun(RecordedRun(folder: "/r/1", kind: .import, started: first, source: "a.csv"), resumed: false)
        try store.beginRun(RecordedRun(folder: "/r/1", kind: .import, started: first.addingTimeInterval(60), source: "a.csv"), resumed: true)
        #expect(try store.runs().first?.started == first, "a resumed run keeps its first start")
        try store.finishRun(folder: "/r/1", counts: ["created": 20, "failed": 1])
        try store.beginRun(RecordedRun(folder: "/r/2", kind: .undo, started: first.addingTimeInterval(120), source: "/r/1"), resumed: false)
        var runs = try store.runs()
        #expect(runs.map(\.folder) == ["/r/2", "/r/1"] && runs[1].counts == ["created": 20, "failed": 1] && runs[1].finished != nil)
        #expect(runs[0].kind == .undo && runs[0].counts == nil && runs[0].finished == nil)
        #expect(try store.runs(limit: 1).count == 1)
        try store.beginRun(RecordedRun(folder: "/r/1", kind: .feed, started: first.addingTimeInterval(180), source: "b.csv"), resumed: false)
        runs = try store.runs()
        #expect(runs.first?.folder == "/r/1" && runs.first?.kind == .feed && runs.first?.counts == nil, "a new run in a folder replaces the old")
        await open.close()
    }

    @Test("two accounts in one place see only their own links, facts and runs", arguments: StorePlace.allCases)
    func accountsApart(_ place: StorePlace) async throws {
        let open = try await OpenStore.open(place)
        defer { open.closeSoon() }
        let (a, b) = (try open.store(account: "shop-a"), try open.store(account: "shop-b"))
        try a.save(ProductLink(key: "K", byName: false, productID: 1, state: .linked, pushed: Self.pushed, photos: nil))
        try b.save(ProductLink(key: "K", byName: false, productID: 1, state: .linked, pushed: nil, photos: nil))
        try a.setFact("vendor_id", "1")
        try a.beginRun(RecordedRun(folder: "/r", kind: .import, started: Date(), source: "x.csv"), resumed: false)
        #expect(try a.link("K")?.pushed != nil && b.link("K")?.pushed == nil, "one product id in two accounts: two links")
        #expect(try b.fact("vendor_id") == nil && b.runs().isEmpty)
        await open.close()
    }

    @Test("a row as the first stores wrote it (seconds since 1970, sorted JSON) still reads", arguments: StorePlace.allCases)
    func earlierRows(_ place: StorePlace) async throws {
        let open = try await OpenStore.open(place)
        defer { open.closeSoon() }
        let store = try open.store()
        let pushed = #"{"currency":"KRW","description":"","discountedPrice":"0","name":"Tea","price":"1000","stock":3}"#
        try open.raw(place == .sqlite
            ? "INSERT INTO link (key, by_name, product_id, state, pushed, photos, updated_at) VALUES ('K1', 0, 7, 'linked', '\(pushed)', '[\"h1\"]', 1790000000.5)"
            : "INSERT INTO link (account, key, by_name, product_id, state, pushed, photos, updated_at) VALUES ('shop-a', 'K1', false, 7, 'linked', '\(pushed)', '[\"h1\"]', 1790000000.5)")
        let link = try #require(try store.link("K1"))
        #expect(link.pushed?.price == 1000 && link.pushed?.stock == 3 && link.photos == ["h1"])
        #expect(link.updatedAt == Date(timeIntervalSince1970: 1_790_000_000.5))
        await open.close()
    }

    @Test("a damaged entry is an error that names its key, never a link that was never pushed", arguments: StorePlace.allCases)
    func damaged(_ place: StorePlace) async throws {
        let open = try await OpenStore.open(place)
        defer { open.closeSoon() }
        let store = try open.store()
        try store.save(ProductLink(key: "GOOD", byName: false, productID: 1, state: .linked, pushed: Self.pushed, photos: ["a"]))
        for damage in ["pushed = '{\"name\": \"cut off'", "photos = 'not json'", "state = 'exploded'"] {
            try store.save(ProductLink(key: "BAD-7", byName: false, productID: 2, state: .linked, pushed: Self.pushed, photos: ["b"]))
            try open.raw("UPDATE link SET \(damage) WHERE ACCOUNT AND key = 'BAD-7'")
            #expect(try store.link("GOOD")?.productID == 1, "the other entries still read")
            for read in [{ _ = try store.all() }, { _ = try store.link("BAD-7") }] as [() throws -> Void] {
                do {
                    try read()
                    Issue.record("\(damage): read as if nothing were wrong")
                } catch {
                    #expect("\(error)".contains("damaged entry for key 'BAD-7'"), "\(error)")
                }
            }
        }
        await open.close()
    }

    @Test("the migrations are named and versioned, the same names in both; opened by many at once, made once", arguments: StorePlace.allCases)
    func migrations(_ place: StorePlace) async throws {
        let open = try await OpenStore.open(place)
        defer { open.closeSoon() }
        // Eight openings of a new store at once (pods starting together): none fails.
        let opened = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { (try? open.store(account: "fresh")) != nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(opened == 8)
        #expect(LinkMigrations.names == ["v1: links and account facts", "v2: runs", "v3: shared run records", "v4: feed rounds", "v5: saved photos"])
        if place == .postgres {
            #expect(PostgresLinks.migrations.map(\.name) == LinkMigrations.names)
        } else {
            #expect(SQLiteLinks.migrator.migrations == LinkMigrations.names)
        }
        await open.close()
    }

    @Test("the account's lock in the shared database: a second taker is refused naming the first; another account is not; a holder whose session ended holds nothing")
    func sharedLock() async throws {
        let open = try await OpenStore.open(.postgres)
        defer { open.closeSoon() }
        let a = try open.store(account: "shop-a").address, b = try open.store(account: "shop-b").address
        let first = try AccountLocks.take(a, holder: "import products.csv")
        do {
            _ = try AccountLocks.take(a, holder: "feed acme")
            Issue.record("two runs of one account at once")
        } catch let busy as RunLock.Busy {
            #expect(busy.holder.contains("pid \(getpid())") && busy.holder.contains("import products.csv"), "\(busy)")
        }
        let other = try AccountLocks.take(b, holder: "import other.csv")
        other.release()
        first.release()
        let again = try AccountLocks.take(a, holder: "feed acme")
        again.release()
        // A holder that vanished: its session's lock is gone with it (as when its process is killed).
        let address = try #require(a.place.database).absoluteString
        var vanished: PostgresConnection? = try PostgresConnection(address)
        let key = String(Int64(bitPattern: FNV.hash("openmarket account lock|shop-a")))
        #expect(try vanished?.execute("SELECT pg_try_advisory_lock($1)", [key]).first?.first == "t")
        #expect(throws: RunLock.Busy.self) { try AccountLocks.take(a, holder: "import") }
        vanished = nil
        try AccountLocks.take(a, holder: "import").release()
        await open.close()
    }
}
