import Foundation
import OpenMarketContract
import ShopState
import Testing

@Suite("One product diff")
struct ProductDiffTests {
    static let tea = Product(name: "Tea", description: "Green\ntea", price: 31000, currency: "KRW",
                                   discountedPrice: 0, stock: 8)

    @Test("field by field, prices compared as decimals, limited to the fields a row gives")
    func fields() {
        var target = Self.tea
        target.price = Money(exactly: "31000.00")!
        #expect(Self.tea.changes(to: target).isEmpty)
        target.price = Money(exactly: "32000")!
        target.stock = 0
        target.name = "Black tea"
        #expect(Self.tea.changes(to: target).map(\.field) == [.name, .price, .stock])
        #expect(Self.tea.changes(to: target, among: [.price, .stock]).map(\.field) == [.price, .stock])
        #expect(Self.tea.changes(to: target, among: [.currency]).isEmpty)
    }

    @Test("one text: prices with the change in percent and its reason, long values on one short line")
    func text() {
        var target = Self.tea
        target.price = Money(exactly: "30000")!
        target.stock = 0
        target.description = String(repeating: "long ", count: 20)
        #expect(Self.tea.describeChanges(to: target)
            == "description Green tea → long long long long long long long long…; price 31000 → 30000 (-3.2 %); stock 8 → 0")
        var change = FieldChange(field: .price, old: "0", new: "100", reason: "cost 80, markup 25 %")
        #expect(change.text == "price 0 → 100 (cost 80, markup 25 %)")
        change.old = "80"
        #expect(change.text == "price 80 → 100 (+25.0 %) (cost 80, markup 25 %)")
        #expect(FieldChange(field: .description, old: "", new: "x").text == "description (empty) → x")
    }
}
