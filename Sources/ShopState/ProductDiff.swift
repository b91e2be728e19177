import Foundation
import OpenMarketContract
import Phrases

/// The fields of a product that a write can change, as the API spells them.
public enum ProductField: String, CaseIterable, Sendable {
    case name, description, price, currency
    case discountedPrice = "discounted_price"
    case stock

    /// Amounts: compared as decimals (`31000` is `31000.00`), shown with the change in percent.
    public var isMoney: Bool { self == .price || self == .discountedPrice }
}

/// One field of a product, from what it is to what it becomes (values as the record keeps
/// them: prices as exact decimal text).
public struct FieldChange: Sendable, Equatable {
    public var field: ProductField
    public var old: String
    public var new: String
    /// How the new value was made (a feed's price rule), if said.
    public var reason: String?

    public init(field: ProductField, old: String, new: String, reason: String? = nil) {
        self.field = field
        self.old = old
        self.new = new
        self.reason = reason
    }

    /// `price 32000 → 31000 (-3.1 %)`, `description Hand-made… → (empty)`: in English, as
    /// report.csv and report.json say it.
    public var text: String { "\(field.rawValue) \(Self.short(old)) → \(Self.short(new))\(suffix)" }

    /// The same in the reader's language: the field named and `(empty)` said by the catalogue,
    /// the values as they are.
    public var phrase: Phrase { Self.phrase(field: field.rawValue, old: old, new: new, suffix: suffix) }

    /// ` (-3.1 %)` on an amount, and the reason the new value was made, if said.
    var suffix: String {
        var text = ""
        if field.isMoney, let old = Self.amount(old), old > 0, let new = Self.amount(new) {
            let percent = NSDecimalNumber(decimal: (new - old) / old * 100).doubleValue
            text += String(format: " (%+.1f %%)", percent)
        }
        if let reason { text += " (\(reason))" }
        return text
    }

    /// `FIELD OLD → NEW SUFFIX` as a phrase (`field` as the catalogue names it: `field:sale_price`).
    public static func phrase(field: String, old: String, new: String, suffix: String) -> Phrase {
        Phrase("change_line", [suffix], parts: [Phrase("field:\(field)"), value(old), value(new)])
    }

    /// `FIELD VALUE` as a phrase: what a new product is made with (`price 32000 KRW`).
    public static func phrase(field: String, value text: String) -> Phrase {
        Phrase("change_value", [], parts: [Phrase("field:\(field)"), value(text)])
    }

    /// A value as a change shows it: on one line, at most 40 characters; nothing said `(empty)`.
    static func value(_ text: String) -> Phrase { text.isEmpty ? Phrase("value_empty") : .verbatim(short(text)) }

    /// A value on one line of at most 40 characters.
    public static func short(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        return flat.isEmpty ? "(empty)" : flat.count > 40 ? String(flat.prefix(39)) + "…" : flat
    }

    static func amount(_ text: String) -> Decimal? { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) }
}

extension Product {
    public func value(of field: ProductField) -> String {
        switch field {
        case .name: name
        case .description: description
        case .price: price.description
        case .currency: currency
        case .discountedPrice: discountedPrice.description
        case .stock: String(stock)
        }
    }

    /// The product's fields, field by field, against `target` (the one diff of a product:
    /// sync's plan, undo's check and restore, a snapshot's history); `among` limits it to
    /// the fields a row gives.
    public func changes(to target: Product, among fields: some Sequence<ProductField> = ProductField.allCases) -> [FieldChange] {
        fields.compactMap { field in
            switch field {
            case .price where price == target.price, .discountedPrice where discountedPrice == target.discountedPrice: return nil
            default:
                let old = value(of: field), new = target.value(of: field)
                return old == new ? nil : FieldChange(field: field, old: old, new: new)
            }
        }
    }

    /// `price 31000 → 32000 (+3.2 %); stock 0 → 8`
    public func describeChanges(to target: Product) -> String {
        changes(to: target).map(\.text).joined(separator: "; ")
    }

    /// The same, said in the reader's language.
    public func changesPhrase(to target: Product) -> Phrase { .list(changes(to: target).map(\.phrase), separator: "; ") }
}
