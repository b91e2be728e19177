import Foundation
import OpenMarketContract
import Testing

/// The contract's types against the live servers' own answers (`Tests/Fixtures/real`, copied
/// from `../shared/fixtures/real`): what the sandbox and the client share must read what the
/// real servers said, not only what the sandbox says.
@Suite("The contract against the real servers' answers")
struct ContractTests {
    static let real = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/real/v2")

    static func capture(_ name: String) throws -> Data { try Data(contentsOf: real.appendingPathComponent(name)) }

    static var captures: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: real.path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
    }

    @Test("every captured 2022 list page reads, in either generation's keys (2022-01 snake_case, 2022-10 camelCase)")
    func lists() throws {
        let lists = Self.captures.filter { $0.contains("_list_") }
        #expect(lists.count == 3)
        for name in lists {
            let page = try JSONDecoder().decode(ProductPage.self, from: try Self.capture(name))
            #expect(page.pageNo >= 1 && page.itemsPerPage > 0 && page.totalCount >= page.pages.count - page.itemsPerPage * 3, "\(name)")
            #expect(page.pages.allSatisfy { $0.id > 0 && !$0.name.isEmpty && $0.vendorId > 0 }, "\(name)")
        }
        let old = try JSONDecoder().decode(ProductPage.self, from: try Self.capture("2022-01_list_smart8612_products.json"))
        #expect(old.pageNo == 1 && old.itemsPerPage == 20 && old.totalCount == 10 && old.pages.first?.id == 20)
        // The page that disagrees with itself: 60 items for a page of 20 (read as it is; the scan decides).
        let odd = try JSONDecoder().decode(ProductPage.self, from: try Self.capture("2022-11_list_rhovin_itemList.json"))
        #expect(odd.pageNo == 3 && odd.itemsPerPage == 20 && odd.pages.count == 60)
    }

    @Test("every captured 2022 detail reads; the same answer with its keys in another order reads the same")
    func details() throws {
        let details = Self.captures.filter { $0.contains("_detail_") }
        #expect(details.count == 3)
        for name in details {
            let data = try Self.capture(name)
            let detail = try JSONDecoder().decode(ProductDetail.self, from: data)
            #expect(detail.summary.id > 0 && !detail.summary.name.isEmpty, "\(name)")
            // Keys reordered (JSONSerialization writes them sorted): nothing may depend on their order.
            let object = try JSONSerialization.jsonObject(with: data)
            let sorted = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            #expect(try JSONDecoder().decode(ProductDetail.self, from: sorted) == detail, "\(name)")
        }
    }

    @Test("the servers' timestamps: 2022-01's .00 fraction, early January's space and 3 digits, 2022-10's none")
    func timestamps() throws {
        let utc = TimeZone(identifier: "UTC")!
        let plain = try #require(OpenMarketTimestamp.parse("2022-11-04T00:00:00", timeZone: utc))
        #expect(OpenMarketTimestamp.parse("2022-11-04T00:00:00.00", timeZone: utc) == plain)
        #expect(OpenMarketTimestamp.parse("2022-11-04 00:00:00.000", timeZone: utc) == plain)
        #expect(OpenMarketTimestamp.parse("2022-11-04", timeZone: utc) == nil)
        #expect(OpenMarketTimestamp.parse("2022-11-04T00:00:00.", timeZone: utc) == nil)
    }

    @Test("the rules: names counted as a person counts them; prices as people read them; credentials never printed")
    func rules() {
        #expect(ProductRules.characterCount("한글") == 2 && ProductRules.characterCount("👍🏽") == 1)
        #expect(ProductRules.nameLength.contains(3) && !ProductRules.nameLength.contains(2))
        #expect(ProductRules.maxImageBytes == 300 * 1024 || ProductRules.maxImageBytes == 300_000)
        #expect(PriceFormat.format(1_800_000, currency: "KRW") == "₩1,800,000")
        #expect(PriceFormat.format(12.5, currency: "USD") == "$12.50")
        let credentials = VendorCredentials(identifier: "0105257b-5562", secret: "98dzDRQxcEEreD5P")
        #expect(!"\(credentials)".contains("98dzDRQxcEEreD5P") && !String(reflecting: credentials).contains("0105257b"))
        #expect(Redactor(credentials).scrub("secret 98dzDRQxcEEreD5P echoed") == "secret [redacted] echoed")
    }
}
