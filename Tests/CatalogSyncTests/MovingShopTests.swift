@testable import CatalogSync
import Foundation
import OpenMarketAPI
import OpenMarketContract
import ShopState
import Support
import Testing
import TestSupport

/// The shop's list read with several pages in flight while someone else changes the shop:
/// products made and deleted in the middle of the reading shift every later page, so pages
/// repeat products and skip others. Each product of the sheet still ends up once.
@Suite("A re-run whose listing the shop moves under")
struct MovingShopTests {
    @Test("products made and deleted while a re-run reads the list (pages of 10, 8 in flight): the products it never lists are asked for by id; each key once, nothing else touched")
    func createdAndDeletedDuringTheListing() async throws {
        let shop = try await Shop.open()
        let rows = 300
        let sheet = try shop.sheet("catalog.csv", Shop.sheetText(rows: rows))
        let first = try await shop.run(sheet)
        #expect(first.summary.counts == ["created": rows], "\(first.summary.counts)")
        var idOf: [String: Int] = [:]
        for row in first.rows { if let id = row.productID { idOf[row.key] = id } }
        // The list shows the newest first: the 15 deleted were read already (page 1 and 2), so
        // every later product moves 15 places up, less the 5 made: 10 linked products fall
        // between pages read before and after, and are never listed.
        let gone = (286...300).map { "K\($0)" }
        let goneIDs = Set(gone.compactMap { idOf[$0] })
        try #require(goneIDs.count == gone.count)

        // Someone else, in the middle of the reading: 5 products of their own, and 15 of the
        // sheet's deleted (as a merchant does in the shop's own page while a night's run reads).
        let other = try client(shop.sandbox, shop.sandbox.demo)
        let moved = Moved()
        let photo = UploadImage(data: Data(try Fixtures.jpeg(width: 20, height: 20, seed: 3)), filename: "x.jpg", mimeType: "image/jpeg")
        let second = try await shop.run(sheet, { options in
            options.catalogPageSize = 10
            options.catalogPagesAhead = 8
        }, listing: { page in
            guard page == 3, moved.start() else { return }
            for n in 1...5 {
                let made = try? other.register(Product(name: "Someone else's \(n)", description: "", price: 500, currency: "KRW", stock: 1), images: [photo])
                if let made { moved.made(made.id) }
            }
            for id in goneIDs { try? other.delete(id: id) }
        })
        #expect(moved.madeIDs.count == 5, "the products made during the reading")
        // What was read stands: the 15 deleted after their page was read are as the sheet wants
        // them, as far as this run knows (the next run makes them again); the 10 never listed
        // were asked for by id, found, and left alone.
        #expect(second.summary.counts == ["unchanged": rows], "\(second.summary.counts)")
        #expect(second.summary.failed == 0)
        func names() throws -> (listed: [ProductSummary], count: [String: Int]) {
            let listed = try other.allProducts(perPage: 100).products
            var count: [String: Int] = [:]
            for product in listed { count[product.name, default: 0] += 1 }
            return (listed, count)
        }
        let afterSecond = try names()
        for i in 1...rows { #expect(afterSecond.count["Item \(i)"] == (i >= 286 ? nil : 1), "Item \(i) is in the shop \(afterSecond.count["Item \(i)"] ?? 0) times") }

        // The shop still: the deleted ones are made again, once each; nothing else is sent.
        let third = try await shop.run(sheet) { $0.catalogPageSize = 10 }
        #expect(third.summary.counts == ["created": gone.count, "unchanged": rows - gone.count], "\(third.summary.counts)")
        let afterThird = try names()
        for i in 1...rows { #expect(afterThird.count["Item \(i)"] == 1, "Item \(i) is in the shop \(afterThird.count["Item \(i)"] ?? 0) times") }
        #expect(afterThird.listed.count == rows + 5, "the sheet's products and the 5 others, no more")
        #expect(Set(afterThird.listed.map(\.id)).isDisjoint(with: goneIDs))
        for id in moved.madeIDs { #expect(afterThird.listed.contains { $0.id == id && $0.price == 500 }, "product \(id) untouched") }
        await shop.close()
    }
}

/// What the listing's callback did, read after the run.
private final class Moved: @unchecked Sendable {
    private let lock = NSLock()
    private var started = false
    private var ids: [Int] = []

    /// True the first time only.
    func start() -> Bool { lock.withLock { defer { started = true }; return !started } }
    func made(_ id: Int) { lock.withLock { ids.append(id) } }
    var madeIDs: [Int] { lock.withLock { ids } }
}
