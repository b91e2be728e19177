import Foundation
import OpenMarketAPI
import OpenMarketContract
import ShopState
import Words

/// The fields a row changes on a live product, and the PATCH body that changes only them.
struct FieldChanges: Sendable {
    var body = ProductPatch()
    var lines: [FieldChange] = []
    var isEmpty: Bool { lines.isEmpty }
    var fields: [String] { lines.map(\.field.rawValue) }
    /// What the buyer pays (price less discount) before and after, when a discount is part of
    /// either: the change is said as that, not as the discount's.
    var buyer: (old: Money, new: Money)?
    /// `price 32000 → 31000 (-3.1 %); stock 8 → 0`: prices with the change in percent. With a
    /// discount, what the buyer pays: `sale_price 12900 → 11900 (-7.8 %)`, and the list price
    /// when it moved too (never the discount's own change: 2100 → 3100 says nothing to a merchant).
    var text: String { phrase.text(.en) }

    /// The same, said in the reader's language (report.html, report.xlsx, the terminal).
    var phrase: Phrase {
        guard let buyer, lines.contains(where: { $0.field.isMoney }) else { return .list(lines.map(\.phrase), separator: "; ") }
        var parts: [Phrase] = []
        for line in lines {
            switch line.field {
            case .discountedPrice: continue
            case .price:
                parts.append(Self.salePrice(buyer))
                parts.append(line.phrase)
            default: parts.append(line.phrase)
            }
        }
        if !lines.contains(where: { $0.field == .price }) {
            let first = lines.firstIndex { $0.field == .discountedPrice } ?? 0
            parts.insert(Self.salePrice(buyer), at: min(first, parts.count))
        }
        return .list(parts, separator: "; ")
    }
    var stockToZero: Bool { body.stock == 0 }

    /// What the buyer pays, said as the price's change is (with its percent), named `sale_price`.
    static func salePrice(_ buyer: (old: Money, new: Money)) -> Phrase {
        var said = FieldChange(field: .price, old: buyer.old.description, new: buyer.new.description).phrase
        said.parts[0] = Phrase("field:sale_price")
        return said
    }
}
