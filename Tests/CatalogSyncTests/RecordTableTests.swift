@testable import CatalogSync
import Foundation
import OpenMarketContract
import ShopState
import Testing

/// The listing held compactly: what goes in comes out the same, field for field, across the
/// table's chunks; a name finds its products however its letters are composed.
@Suite("The listing and the links held compactly")
struct RecordTableTests {
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

    @Test("Links read back exactly: pushed or not, photos absent, none or several, pending or linked, by name; eachProduct gives the linked and pending with a product, not those without")
    func links() {
        let pushed = Product(name: "녹차 라떼", description: "설명 " + String(repeating: "가", count: 600), price: Money(Decimal(string: "31000.5")!),
                             currency: "KRW", discountedPrice: 1000, stock: 7)
        let given = [
            ProductLink(key: "T1", byName: false, productID: 11, state: .linked, pushed: pushed, photos: ["a1", "b2"],
                        updatedAt: Date(timeIntervalSinceReferenceDate: 1000.25)),
            ProductLink(key: "name:Green tea", byName: true, productID: 12, state: .linked, pushed: nil, photos: [], updatedAt: Date()),
            ProductLink(key: "T3", byName: false, productID: nil, state: .pending, pushed: pushed, photos: nil, updatedAt: Date()),
            ProductLink(key: "T4", byName: false, productID: 14, state: .pending, pushed: nil, photos: nil, updatedAt: Date()),
        ]
        let table = LinkTable(given)
        #expect(table.count == 4)
        for link in given { #expect(table[link.key] == link, "\(link.key)") }
        var seen: [String: (Int, ProductLink.State)] = [:]
        table.eachProduct { key, id, state in seen[key] = (id, state) }
        #expect(Set(seen.keys) == ["T1", "name:Green tea", "T4"] && seen["T4"]?.1 == .pending && seen["T1"]?.0 == 11)
    }
}
