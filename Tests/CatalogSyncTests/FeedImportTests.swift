import CatalogSync
import Feeds
import Foundation
import Manifest
import OpenMarketAPI
import Testing
import TestSupport

/// A reseller's feed file: the committed template (the supplier's columns, prices from costs,
/// samples left out, the description the merchant writes kept).
private let resellerFeed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("templates/feed.toml")

private let header = "상품코드,상품명,공급가,재고수량,카테고리,이미지,상세설명\n"

@Suite("Supplier feeds end to end: the supplier's file through a feed, into the sandbox over HTTP")
struct FeedImportTests {
    private func run(_ shop: Shop, _ file: URL) async throws -> Shop.Result {
        let mapping = FeedMapping(feed: try FeedFile.load(resellerFeed))
        return try await shop.run(file) { $0.validation.mapping = mapping }
    }

    @Test("a reseller's week: made at the merchant's prices, samples left out; the supplier's next file changes price and stock, never the merchant's description")
    func resellersWeek() async throws {
        let shop = try await Shop.open()
        let monday = try shop.sheet("acme-monday.csv", header + """
            A-1,녹차 티백 50개입,"8,200",40,식품,p.jpg,공급사 설명
            A-2,전기 주전자,"31,000원",8,가전,q.jpg,1.7L
            A-3,견본 머그,1000,3,샘플,p.jpg,

            """)
        let first = try await run(shop, monday)
        #expect(first.summary.counts == ["created": 2, "skipped": 1], "\(first.summary.counts)")
        // The price's making first; the supplier's thumbnail-sized photo (48×36) is said too.
        #expect(first.row(2)?.note == "price 10700 (cost 8,200, markup 30 %, up to 100); photo 1 (p.jpg): "
                + "only 48×36 pixels: buyers see it blurred (200 pixels or more on the long side look sharp on a phone; 1,000 or more for zooming)",
                "\(first.row(2)?.note ?? "")")
        #expect(first.row(4)?.status == .skipped && first.row(4)?.note == "[filter] skip: 카테고리 is 샘플" && first.row(4)?.key == "A-3")
        let products = try await shop.products()
        #expect(products["녹차 티백 50개입"]?.first?.price == 10700 && products["전기 주전자"]?.first?.price == 35700)
        #expect(products["견본 머그"] == nil)
        let teaID = try #require(first.row(2)?.productID)
        let vendor = try shop.vendor
        let made = try await blocking { try vendor.product(id: teaID) }.summary
        #expect(made.description == "공급사 설명", "a protected field is set when the product is made")

        // The merchant writes their own description in the shop.
        var changes = ProductPatch()
        changes.description = "우리 가게의 설명"
        let mine = changes
        _ = try await blocking { try vendor.edit(id: teaID, mine) }

        // Tuesday's file, under another name: the cost went up, the tea is sold out, the supplier rewrote its text.
        let writes = shop.writes
        let tuesday = try shop.sheet("acme-tuesday.csv", header + """
            A-1,녹차 티백 50개입,"9,000",품절,식품,p.jpg,공급사의 새 설명
            A-2,전기 주전자,"31,000원",8,가전,q.jpg,1.7L
            A-3,견본 머그,1000,3,샘플,p.jpg,

            """)
        let second = try await run(shop, tuesday)
        #expect(second.summary.counts == ["updated": 1, "unchanged": 1, "skipped": 1], "\(second.summary.counts)")
        #expect(second.row(2)?.changes == "price 10700 → 11700 (+9.3 %) (cost 9,000, markup 30 %, up to 100); stock 40 → 0",
                "\(second.row(2)?.changes ?? "")")
        #expect(shop.writes == writes + 1, "one PATCH: the description is protected")
        let tea = try await blocking { try vendor.product(id: teaID) }.summary
        #expect(tea.description == "우리 가게의 설명" && tea.price == 11700 && tea.stock == 0)
        await shop.close()
    }

    @Test("the supplier's stock-only file through the same feed changes only stock")
    func stockOnly() async throws {
        let shop = try await Shop.open()
        _ = try await run(shop, try shop.sheet("acme.csv", header + "A-1,녹차 티백,8200,40,식품,p.jpg,설명\nA-2,보리차,4000,5,식품,q.jpg,설명\n"))
        let writes = shop.writes
        let stock = try await run(shop, try shop.sheet("acme-stock.csv", "상품코드,재고수량\nA-1,품절\nA-2,5\n"))
        #expect(stock.summary.counts == ["updated": 1, "unchanged": 1], "\(stock.summary.counts)")
        #expect(stock.row(2)?.changes == "stock 40 → 0")
        #expect(shop.writes == writes + 1)
        #expect(try await shop.products()["녹차 티백"]?.first?.price == 10700, "no cost in the file: the price is left alone")
        await shop.close()
    }

    @Test("a renamed column stops the run before anything is sent; --delete-missing never deletes a filtered row's product")
    func renamedAndFiltered() async throws {
        let shop = try await Shop.open()
        _ = try await run(shop, try shop.sheet("acme.csv", header + "A-1,녹차 티백,8200,40,식품,p.jpg,\nA-2,보리차,4000,5,식품,q.jpg,\n"))
        let writes = shop.writes
        let renamed = try shop.sheet("acme-renamed.csv", header.replacingOccurrences(of: "공급가", with: "공급 가격") + "A-1,녹차 티백,9000,40,식품,p.jpg,\n")
        await #expect(throws: ManifestError.self) { _ = try await run(shop, renamed) }
        #expect(shop.writes == writes)

        // The supplier now marks A-2 as discontinued: left out by the filter, so not "missing".
        let next = try shop.sheet("acme.csv", header + "A-1,녹차 티백,8200,40,식품,p.jpg,\nA-2,보리차,4000,5,단종,q.jpg,\n")
        let mapping = FeedMapping(feed: try FeedFile.load(resellerFeed))
        let result = try await shop.run(next) {
            $0.validation.mapping = mapping
            $0.deleteMissing = true
            $0.maxDeletes = 5
        }
        #expect(result.summary.counts == ["unchanged": 1, "skipped": 1], "\(result.summary.counts)")
        #expect(try await shop.products()["보리차"]?.count == 1)
        await shop.close()
    }
}
