@testable import CatalogSync
import Foundation
import OpenMarketContract
import Testing

/// The listing held compactly: what goes in comes out the same, field for field, across the
/// table's chunks; a name finds its products however its letters are composed.
@Suite("The listing held compactly")
struct ProductTableTests {
    static func product(_ id: Int, name: String, description: String? = nil, price: Money = 1000, vendor: Int = 7) -> ProductSummary {
        ProductSummary(id: id, vendorId: vendor, vendorName: id % 3 == 0 ? nil : "상점 \(vendor)", name: name, description: description,
                       thumbnail: "http://shop.test/images/\(id)/thumb.jpg", currency: id % 2 == 0 ? "KRW" : "USD", price: price,
                       bargainPrice: Money(Decimal(string: "24.99")!), discountedPrice: Money(-3),
                       stock: id % 50, createdAt: Date(timeIntervalSinceReferenceDate: 123_456_789.125 + Double(id)),
                       issuedAt: Date(timeIntervalSinceReferenceDate: 987_654_321.5))
    }

    @Test("Every field read back exactly as written, over 20,000 products and several chunks; a product set again reads as the new one; nil removes")
    func roundTrip() {
        var table = ProductTable()
        var given: [Int: ProductSummary] = [:]
        let long = String(repeating: "녹차 라떼 설명 ", count: 300)
        for id in 1...20_000 {
            let product = Self.product(id, name: "녹차 \(id) 🍵", description: id % 7 == 0 ? nil : (id % 1000 == 0 ? long : "desc \(id)"),
                                       price: Money(Decimal(string: "\(id).5")!))
            table[id] = product
            given[id] = product
        }
        #expect(table.count == 20_000)
        for (id, product) in given { #expect(table[id] == product, "\(id)") }
        #expect(Set(table.values.map(\.id)) == Set(given.keys))
        var changed = given[42]!
        changed.price = Money(Decimal(string: "0.01")!)
        changed.name = "바뀐 이름"
        table[42] = changed
        #expect(table[42] == changed && table.count == 20_000)
        table[43] = nil
        #expect(table[43] == nil && !table.contains(43) && table.count == 19_999)
        #expect(table[99_999] == nil)
    }

    @Test("A name finds its products, ascending, whether its letters are composed or not; another name finds none of them")
    func names() {
        var table = ProductTable()
        var index = NameIndex()
        let composed = "Caf\u{E9} 라떼", decomposed = "Cafe\u{301} 라떼"
        for (id, name) in [(5, composed), (2, decomposed), (9, "Tea"), (3, "Caf\u{E9}")] {
            table[id] = Self.product(id, name: name)
            index.add(name, id)
        }
        index.add(composed, 5)
        #expect(index.ids(named: composed, in: table) == [2, 5])
        #expect(index.ids(named: decomposed, in: table) == [2, 5])
        #expect(index.ids(named: "Tea", in: table) == [9])
        #expect(index.ids(named: "Coffee", in: table).isEmpty)
    }
}
