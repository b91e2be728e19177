import Foundation
import Words
import Manifest
import OpenMarketAPI
import ShopState

/// How a row differs from the live product it is: the fields it changes, exactly (prices as
/// decimals), and the guard on a price moved too far.
extension SyncPlanner {
    /// The fields of the row that differ from the live product.
    func compare(_ draft: ProductDraft, _ product: ProductSummary) throws -> RowDecision {
        // A feed's protected fields were set when the product was made; never overwritten.
        let given = draft.protected.isEmpty ? draft.given : draft.given.subtracting(draft.protected)
        let product = try withDescription(product, given: given)
        let now = Product(product)
        let (wanted, fields, backOnSale) = try wanted(draft, given: given, live: product)
        try checkAmountsInProductCurrency(draft, given: given, live: product)
        let changes = try changes(draft, from: now, to: wanted, among: fields)
        return RowDecision(action: changes.isEmpty ? .unchanged(id: product.id) : .update(id: product.id, changes: changes),
                           live: product, backOnSale: backOnSale)
    }

    /// The live product with its description, when the row gives one: the 2021 and 2022-01
    /// lists carry none, so what was last pushed says it, else the product's own page (one
    /// read; never a guess of "empty").
    private func withDescription(_ product: ProductSummary, given: ColumnSet) throws -> ProductSummary {
        guard product.description == nil, given.contains(.description) else { return product }
        var product = product
        if let pushed = keyOfProduct[product.id].flatMap({ links[$0]?.pushed }) {
            product.description = pushed.description
        } else {
            product.description = try client.product(id: product.id).summary.description ?? ""
        }
        return product
    }

    /// The product as the row wants it, the fields the row sets, and what became of a stock
    /// taken off sale by an earlier row.
    private func wanted(_ draft: ProductDraft, given: ColumnSet, live product: ProductSummary) throws
        -> (wanted: Product, fields: [ProductField], backOnSale: Phrase?) {
        var wanted = Product(product)
        var fields: [ProductField] = []
        func want(_ field: ProductField, _ set: (inout Product) -> Void) {
            set(&wanted)
            fields.append(field)
        }
        if given.contains(.name) { want(.name) { $0.name = draft.fields.name } }
        if given.contains(.description) { want(.description) { $0.description = draft.fields.description } }
        if given.contains(.currency) { want(.currency) { $0.currency = draft.fields.currency } }
        if given.contains(.price) { want(.price) { $0.price = draft.fields.price } }
        if given.contains(.discountedPrice) { want(.discountedPrice) { $0.discountedPrice = draft.fields.discountedPrice } }
        if given.contains(.stock) {
            var stock = draft.fields.stock
            if let delta = draft.stockDelta {
                stock = product.stock + delta
                if stock < 0 {
                    let change = "\(product.stock) \(delta < 0 ? "-" : "+") \(abs(delta)) = \(stock)"
                    throw Refusal(message: "stock \(product.stock) \(delta < 0 ? "-" : "+") \(abs(delta)) would be \(stock): stock cannot go below 0",
                                  rule: "stock-below-zero", column: "stock", value: change, english: "stock cannot go below 0")
                }
            }
            want(.stock) { $0.stock = stock }
        }
        // A sheet without stock (Cafe24's) selling again a product an earlier row took off sale
        // (last pushed at 0, still 0): --default-stock gives it back, else the row says so.
        var backOnSale: Phrase?
        if !given.contains(.stock), draft.offSale == nil, product.stock == 0,
           keyOfProduct[product.id].flatMap({ links[$0]?.pushed })?.stock == 0 {
            if let count = options.validation.defaultStock, count > 0 {
                want(.stock) { $0.stock = count }
                backOnSale = Phrase("n_back_on_sale", String(count))
            } else {
                let way = options.validation.answersOnPage ? "choose above what it starts with again" : "run with --default-stock N (what it starts with again)"
                throw Refusal(message: "on sale again after an earlier row took it off sale (stock 0), and the sheet has no stock column: add one, or \(way)",
                              rule: "stock-back-on-sale", column: "stock", value: "0",
                              english: "on sale again after an earlier row took it off sale (stock 0), and the sheet has no stock column: add one, or \(way)")
            }
        }
        return (wanted, fields, backOnSale)
    }

    /// Amounts without a currency are the product's currency's (USD takes cents, KRW does not).
    private func checkAmountsInProductCurrency(_ draft: ProductDraft, given: ColumnSet, live product: ProductSummary) throws {
        guard !given.contains(.currency) else { return }
        for (field, amount) in [("price", given.contains(.price) ? draft.fields.price : nil),
                                ("discount", given.contains(.discountedPrice) ? draft.fields.discountedPrice : nil)] {
            if let amount, let problem = Money.check(amount.amount, currency: product.currency, field: field) {
                throw Refusal(message: "\(field) \(amount): product \(product.id) is in \(product.currency), and \(problem.message) [\(problem.rule)]")
            }
        }
    }

    /// The changes from the live product to the wanted one, said with their reasons, the
    /// buyer's price guarded, and the body that sends them.
    private func changes(_ draft: ProductDraft, from now: Product, to wanted: Product, among fields: [ProductField]) throws -> FieldChanges {
        var lines = now.changes(to: wanted, among: fields)
        // Every cell is read trimmed, so the spaces around a value the shop holds (a description
        // another tool wrote, exported and read back) are not a change: the shop keeps them.
        lines.removeAll { ($0.field == .name || $0.field == .description) && ManifestValidator.trimmed($0.old) == $0.new }
        var changes = FieldChanges(lines: lines)
        if now.discountedPrice != 0 || wanted.discountedPrice != 0 {
            changes.buyer = (now.price - now.discountedPrice, wanted.price - wanted.discountedPrice)
        }
        if changes.lines.contains(where: { $0.field == .price || $0.field == .discountedPrice }) {
            // Guarded is what the buyer pays (price less discount), not the list price alone.
            try checkPriceChange(from: now, to: wanted)
        }
        if let index = changes.lines.firstIndex(where: { $0.field == .price }) {
            changes.lines[index].reason = draft.explanations[.price]
        }
        // Off sale: the cell that said so, in the platform's own words (`stock 25 → 0 (판매상태: 품절)`).
        if let offSale = draft.offSale, let index = changes.lines.firstIndex(where: { $0.field == .stock }) {
            changes.lines[index].reason = "\(offSale.column): \(offSale.value)"
        }
        changes.body = ProductPatch(changes.lines, to: wanted)
        return changes
    }

    /// What the buyer pays (price less discount) moved by more than `--max-price-change` is
    /// refused (a misplaced digit), unless `--force`; the message says the buyer's price and the
    /// list price both.
    func checkPriceChange(from live: Product, to wanted: Product) throws {
        let before = live.price - live.discountedPrice
        let after = wanted.price - wanted.discountedPrice
        guard !options.force, before > 0, before != after else { return }
        let percent = Money.double((after.amount - before.amount) / before.amount * 100)
        guard abs(percent) > options.maxPriceChange else { return }
        let way = options.validation.answersOnPage ? "send it with the page's button for held price changes" : "run with --force"
        let moved = "\(before) → \(after), \(String(format: "%+.0f", percent)) % > \(Self.number(options.maxPriceChange)) %"
        let list = live.discountedPrice == 0 && wanted.discountedPrice == 0 ? ""
            : " (price \(live.price) → \(wanted.price), discount \(live.discountedPrice) → \(wanted.discountedPrice))"
        throw Refusal(message: "the buyer's price \(before) → \(after)\(list) is a change of \(String(format: "%+.0f", percent)) %, more than --max-price-change \(Self.number(options.maxPriceChange)) %: check the sheet, or \(way)",
                      priceGuard: true, rule: "price-guard", column: "price", value: moved,
                      english: "a change of more than --max-price-change: check the sheet, or \(way)")
    }

    /// `50` for 50.0, `12.5` as it is.
    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
