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

    @Test("an amount's text made from its digits is NSDecimalNumber's, on 20,000 amounts of every size, sign and scale")
    func textAsNSDecimalNumberWritesIt() {
        func reference(_ value: Decimal) -> String {
            let text = NSDecimalNumber(decimal: value).description(withLocale: Locale(identifier: "en_US_POSIX"))
            guard let dot = text.firstIndex(of: ".") else { return text }
            return text.distance(from: dot, to: text.endIndex) == 4 ? text + "0" : text
        }
        var generator = SystemRandomNumberGenerator()
        var values: [Decimal] = [0, -1, 1, Decimal(string: "0.0")!, Decimal(string: "12.50")!, Decimal(string: "-0.5")!, Decimal(string: "1e3")!,
                                 Decimal(string: "18446744073709551615")!, Decimal(string: "18446744073709551616")!, Decimal(string: "0.001")!,
                                 Decimal(string: "99999999999999999999.99")!, Decimal(string: "1e-20")!, .nan]
        for _ in 0..<20_000 {
            let significand: UInt64 = switch Int.random(in: 0..<4, using: &generator) {
            case 0: .random(in: 0...999, using: &generator)
            case 1: .random(in: 0...99_999_999, using: &generator)
            default: .random(in: 0...UInt64.max, using: &generator)
            }
            var value = Decimal(sign: Bool.random(using: &generator) ? .minus : .plus, exponent: Int.random(in: -22...20, using: &generator),
                                significand: Decimal(significand))
            if Int.random(in: 0..<5, using: &generator) == 0 { value = value * Decimal(string: "1.15")! + Decimal(string: "0.3")! }
            values.append(value)
        }
        let wrong = values.filter { Money.text($0) != reference($0) }
        #expect(wrong.isEmpty, "\(wrong.prefix(5).map { "\($0): \(Money.text($0)) against \(reference($0))" })")
    }
}
