import Foundation
import OpenMarketContract
import GRDB
import ShopState
import Testing

@Suite("The link store")
struct LinkStoreTests {
    /// A fresh store in a folder of its own.
    static func store() throws -> LinkStore {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("links-\(UUID().uuidString)")
        return try LinkStore(url: folder.appendingPathComponent("links.sqlite"))
    }

    static let pushed = Product(name: "녹차", description: "Jeju", price: 31000, currency: "KRW",
                                      discountedPrice: 0, stock: 8)

    @Test("a link is read back as it was saved; one product has one key")
    func roundTrip() throws {
        let store = try Self.store()
        defer { try? FileManager.default.removeItem(at: store.url.deletingLastPathComponent()) }
        let when = Date(timeIntervalSince1970: 1_790_000_000.25)
        let link = ProductLink(key: "TEA-1", byName: false, productID: 41, state: .linked, pushed: Self.pushed,
                               photos: ["ab", "cd"], updatedAt: when)
        try store.save(link)
        #expect(try store.link("TEA-1") == link)
        try store.save(ProductLink(key: "name:Other", byName: true, productID: 42, state: .pending, pushed: nil, photos: nil))
        #expect(try store.keysByProductID() == [41: "TEA-1"], "names and pending links are not merchant keys")
        // The same product under another key: the old key lets go of it.
        try store.save(ProductLink(key: "TEA-1b", byName: false, productID: 41, state: .linked, pushed: Self.pushed, photos: nil))
        #expect(try store.link("TEA-1") == nil)
        #expect(Set(try store.all().keys) == ["TEA-1b", "name:Other"])
    }

    @Test("a row as the first stores wrote it (seconds since 1970, sorted JSON) still reads")
    func earlierRows() throws {
        let store = try Self.store()
        defer { try? FileManager.default.removeItem(at: store.url.deletingLastPathComponent()) }
        let queue = try DatabaseQueue(path: store.url.path)
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO link (key, by_name, product_id, state, pushed, photos, updated_at) VALUES
                ('K1', 0, 7, 'linked', '{"currency":"KRW","description":"","discountedPrice":"0","name":"Tea","price":"1000","stock":3}',
                 '["h1"]', 1790000000.5)
                """)
        }
        let link = try #require(try store.link("K1"))
        #expect(link.pushed?.price == 1000 && link.pushed?.stock == 3 && link.photos == ["h1"])
        #expect(link.updatedAt == Date(timeIntervalSince1970: 1_790_000_000.5))
    }

    @Test("a damaged entry is an error that names its key, never a link that was never pushed", arguments: [
        "pushed = '{\"name\": \"cut off'", "photos = 'not json'", "state = 'exploded'",
    ])
    func damaged(_ damage: String) throws {
        let store = try Self.store()
        defer { try? FileManager.default.removeItem(at: store.url.deletingLastPathComponent()) }
        try store.save(ProductLink(key: "GOOD", byName: false, productID: 1, state: .linked, pushed: Self.pushed, photos: ["a"]))
        try store.save(ProductLink(key: "BAD-7", byName: false, productID: 2, state: .linked, pushed: Self.pushed, photos: ["b"]))
        let queue = try DatabaseQueue(path: store.url.path)
        try queue.write { db in try db.execute(sql: "UPDATE link SET \(damage) WHERE key = 'BAD-7'") }
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
}
