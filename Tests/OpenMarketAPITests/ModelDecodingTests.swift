import Foundation
import OpenMarketAPI
import Testing

@Suite("Wire models decode what servers answer")
struct ModelDecodingTests {
    @Test("timestamps with and without fractional seconds, local time")
    func timestamps() throws {
        let utc = TimeZone(secondsFromGMT: 0)!
        let whole = try #require(OpenMarketTimestamp.parse("2022-11-14T00:00:00", timeZone: utc))
        #expect(whole.timeIntervalSince1970 == 1_668_384_000)
        let fraction = try #require(OpenMarketTimestamp.parse("2022-11-14T00:00:00.250", timeZone: utc))
        #expect(abs(fraction.timeIntervalSince1970 - 1_668_384_000.25) < 1e-6)
        let micro = try #require(OpenMarketTimestamp.parse("2022-11-14T00:00:00.123456", timeZone: utc))
        #expect(abs(micro.timeIntervalSince1970 - 1_668_384_000.123456) < 1e-6)
        let zoned = try #require(OpenMarketTimestamp.parse("2022-11-14T09:00:00+09:00", timeZone: utc))
        #expect(zoned == whole)
        for bad in ["", "2022-11-14", "2022-13-14T00:00:00", "2022-11-14T00:00:00.", "yesterday", "2022-11-14T00:00:00junk"] {
            #expect(OpenMarketTimestamp.parse(bad, timeZone: utc) == nil, "\(bad)")
        }
        let date = Date(timeIntervalSince1970: 1_668_384_000.5)
        #expect(OpenMarketTimestamp.format(date, timeZone: utc) == "2022-11-14T00:00:00.500")
        #expect(OpenMarketTimestamp.parse(OpenMarketTimestamp.format(date)) == date)
    }

    @Test("timestamps written by arithmetic say what a Calendar says, in zones with and without summer time, before 1970 too")
    func formatLikeCalendar() {
        var generator = SystemRandomNumberGenerator()
        let zones = ["UTC", "Asia/Seoul", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu"].compactMap(TimeZone.init(identifier:))
        #expect(zones.count == 5)
        let instants = [0, -1, -86_400.25, 951_782_400.999, 4_102_444_800, 1_710_054_000, 1_730_613_600 - 0.001]
            + (0..<200).map { _ in Double.random(in: -2_000_000_000..<4_000_000_000, using: &generator).rounded(.down) / 1 + 0.5 }
        for zone in zones {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            for instant in instants {
                let date = Date(timeIntervalSince1970: instant)
                let whole = instant.rounded(.down)
                let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: whole))
                let millis = min(999, Int(((instant - whole) * 1000).rounded()))
                let expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!, millis)
                #expect(OpenMarketTimestamp.format(date, timeZone: zone) == expected, "\(instant) in \(zone.identifier)")
            }
        }
    }

    @Test("the contract's page example: camelCase page keys, snake_case products, decimals for prices")
    func contractPage() throws {
        let json = """
        {"pageNo": 1, "itemsPerPage": 20, "totalCount": 317, "offset": 0, "limit": 20,
         "lastPage": 16, "hasNext": true, "hasPrev": false,
         "pages": [{"id": 5120, "vendor_id": 7, "vendorName": "wonbi", "name": "맥북 프로 14 M1",
                    "description": "거의 새것", "thumbnail": "https://host/thumbnails/abc.jpg",
                    "currency": "KRW", "price": 1800000.0, "bargain_price": 1750000.0,
                    "discounted_price": 50000.0, "stock": 1,
                    "created_at": "2022-11-14T00:00:00", "issued_at": "2022-11-14T00:00:00.5",
                    "something_new": [1, 2, 3]}]}
        """
        let page = try JSONDecoder().decode(ProductPage.self, from: Data(json.utf8))
        #expect(page.totalCount == 317 && page.lastPage == 16 && page.hasNext)
        let product = try #require(page.pages.first)
        #expect(product.id == 5120 && product.vendorId == 7 && product.vendorName == "wonbi")
        #expect(product.price == 1_800_000 && product.bargainPrice == 1_750_000 && product.discountedPrice == 50_000)
        #expect(product.issuedAt.timeIntervalSince(product.createdAt) == 0.5)
    }

    @Test("older servers: itemPerPage, integers as decimals, fields left out")
    func olderServers() throws {
        let json = """
        {"pageNo": 2, "itemPerPage": 10, "totalCount": 11, "lastPage": 2, "hasNext": false,
         "pages": [{"id": 3.0, "vendor_id": 1, "name": "Old", "thumbnail": "t", "currency": "USD",
                    "price": 10, "stock": 2.0, "created_at": "2021-01-01T10:00:00"}]}
        """
        let page = try JSONDecoder().decode(ProductPage.self, from: Data(json.utf8))
        #expect(page.itemsPerPage == 10 && page.offset == 10 && page.limit == 10 && page.hasPrev)
        let product = try #require(page.pages.first)
        #expect(product.id == 3 && product.stock == 2 && product.description == nil && product.vendorName == nil)
        #expect(product.discountedPrice == 0 && product.bargainPrice == 10 && product.issuedAt == product.createdAt)
    }

    @Test("a detail without images or vendors decodes; one with them keeps them")
    func details() throws {
        let bare = """
        {"id": 1, "vendor_id": 1, "name": "Bare", "thumbnail": "t", "currency": "KRW", "price": 1,
         "created_at": "2021-01-01T10:00:00"}
        """
        let detail = try JSONDecoder().decode(ProductDetail.self, from: Data(bare.utf8))
        #expect(detail.images == nil && detail.vendors == nil)
        let full = """
        {"id": 1, "vendor_id": 7, "name": "Full", "thumbnail": "t", "currency": "KRW", "price": 1,
         "created_at": "2021-01-01T10:00:00",
         "images": [{"id": 1, "url": "https://host/images/a.jpg", "thumbnail_url": "https://host/thumbnails/a.jpg",
                     "issued_at": "2022-11-14T00:00:00"}],
         "vendors": {"id": 7, "name": "wonbi"}}
        """
        let decoded = try JSONDecoder().decode(ProductDetail.self, from: Data(full.utf8))
        #expect(decoded.images?.first?.thumbnailURL == "https://host/thumbnails/a.jpg")
        #expect(decoded.vendors == VendorInfo(id: 7, name: "wonbi"))
        // Round trip through the encoder the sandbox uses.
        let again = try JSONDecoder().decode(ProductDetail.self, from: JSONEncoder().encode(decoded))
        #expect(again == decoded)
    }

    @Test("a non-integral id is refused")
    func strictIntegers() {
        let json = """
        {"id": 1.5, "vendor_id": 1, "name": "x", "thumbnail": "t", "currency": "KRW", "price": 1,
         "created_at": "2021-01-01T10:00:00"}
        """
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ProductSummary.self, from: Data(json.utf8)) }
    }
}
