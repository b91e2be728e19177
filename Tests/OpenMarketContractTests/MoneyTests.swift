import Foundation
import OpenMarketContract
import Testing

@Suite("Money: one exact amount from the wire to the records")
struct MoneyTests {
    @Test("a server's 19.99 is 19.99 (not the double nearest it), written back as 19.99; text kept by older records reads the same")
    func exact() throws {
        struct Body: Codable { var price: Money; var old: Money }
        let body = try JSONDecoder().decode(Body.self, from: Data(#"{"price": 19.99, "old": "31000.50"}"#.utf8))
        #expect(body.price.amount == Decimal(string: "19.99")! && body.price.description == "19.99")
        #expect(body.old == Money(exactly: "31000.5"))
        let written = String(decoding: try JSONEncoder().encode(Body(price: 0.1, old: 1200)), as: UTF8.self)
        #expect(written.contains(#""price":0.1"#) && written.contains(#""old":1200"#), "\(written)")
        #expect(Money(1200) - Money(0.5) == Money(exactly: "1199.5") && Money(1000) == 1000.00)
    }

    @Test("garbage is no amount at all: never 0 (a record's price that reads as 0 would recreate a product for free)")
    func garbage() {
        #expect(Money(exactly: "abc") == nil && Money(exactly: "") == nil && Money(exactly: "1,000") == nil && Money(exactly: "₩1000") == nil)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Money].self, from: Data(#"["twelve"]"#.utf8)) }
        #expect(Money(exactly: "9.912")?.description == "9.9120", "three decimals written with a fourth: the sheet parser reads it back")
    }
}
