import Foundation
import OpenMarketContract

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

    /// `price 32000 → 31000 (-3.1 %)`, `description Hand-made… → (empty)`.
    public var text: String {
        var text = "\(field.rawValue) \(Self.short(old)) → \(Self.short(new))"
        if field.isMoney, let old = Self.amount(old), old > 0, let new = Self.amount(new) {
            let percent = NSDecimalNumber(decimal: (new - old) / old * 100).doubleValue
            text += String(format: " (%+.1f %%)", percent)
        }
        if let reason { text += " (\(reason))" }
        return text
    }

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
}
