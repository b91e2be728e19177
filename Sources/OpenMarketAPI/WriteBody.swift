import Foundation
import OpenMarketContract

/// A register or edit body in the names of one server generation: the 2022-01 server
/// reads `descriptions` (and silently ignores `description`), the 2022-10 server reads
/// `description`, the 2021 server reads `title` and `descriptions` as form parts.
struct WriteBody: Encodable {
    enum Value: Encodable, Equatable {
        case text(String)
        case number(Money)
        case integer(Int)

        func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .text(let text): try c.encode(text)
            case .number(let number): try c.encode(number)
            case .integer(let integer): try c.encode(integer)
            }
        }
    }

    var values: [String: Value] = [:]

    /// The names the 2022 generations use for a product's fields.
    struct Names {
        var description: String
        static let january = Names(description: "descriptions")
        static let october = Names(description: ProductKey.description.rawValue)
    }

    init(_ product: Product, names: Names, secret: String) {
        values[ProductKey.name.rawValue] = .text(product.name)
        values[names.description] = .text(product.description)
        values[ProductKey.price.rawValue] = .number(product.price)
        values[ProductKey.currency.rawValue] = .text(product.currency)
        values[ProductKey.discountedPrice.rawValue] = .number(product.discountedPrice)
        values[ProductKey.stock.rawValue] = .integer(product.stock)
        values[ProductKey.secret.rawValue] = .text(secret)
    }

    init(_ changes: ProductPatch, names: Names, secret: String) {
        if let name = changes.name { values[ProductKey.name.rawValue] = .text(name) }
        if let description = changes.description { values[names.description] = .text(description) }
        if let price = changes.price { values[ProductKey.price.rawValue] = .number(price) }
        if let currency = changes.currency { values[ProductKey.currency.rawValue] = .text(currency) }
        if let discount = changes.discountedPrice { values[ProductKey.discountedPrice.rawValue] = .number(discount) }
        if let stock = changes.stock { values[ProductKey.stock.rawValue] = .integer(stock) }
        if let thumbnail = changes.thumbnailID { values[ProductKey.thumbnailID.rawValue] = .integer(thumbnail) }
        values[ProductKey.secret.rawValue] = .text(secret)
    }

    func encode(to encoder: any Encoder) throws {
        try values.encode(to: encoder)
    }
}
