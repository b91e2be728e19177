import Foundation
import OpenMarketContract
import Support

/// One merchant key of one account, and the product it is.
public struct ProductLink: Sendable, Equatable {
    public enum State: String, Sendable, Codable {
        /// A create was sent and its answer not yet recorded: the product may exist.
        case pending
        case linked
    }

    /// The merchant's key, or, for a row without one, `name:` and the name.
    public var key: String
    /// Whether `key` is a name (a row without a key column).
    public var byName: Bool
    public var productID: Int?
    public var state: State
    public var pushed: Product?
    /// SHA-256 of each photo's source bytes (a URL's text for URL photos), in order.
    public var photos: [String]?
    public var updatedAt: Date

    public init(key: String, byName: Bool, productID: Int?, state: State, pushed: Product?, photos: [String]?,
                updatedAt: Date = Date()) {
        self.key = key
        self.byName = byName
        self.productID = productID
        self.state = state
        self.pushed = pushed
        self.photos = photos
        self.updatedAt = updatedAt
    }

    /// The link key of a row: its merchant key, else its name (stored as `name:` and the name).
    public static func identity(key: String?, name: String) -> (key: String, byName: Bool) {
        if let key, !key.isEmpty { return (key, false) }
        return (namePrefix + name, true)
    }

    static let namePrefix = "name:"

    /// The name a link key stands for, when it is a row's name (no key column); nil for a merchant key.
    public static func name(inKey key: String) -> String? {
        key.hasPrefix(namePrefix) ? String(key.dropFirst(namePrefix.count)) : nil
    }

    /// A link key as a merchant reads it.
    public static func shown(_ key: String) -> String {
        name(inKey: key).map { "\"\($0)\" (no key column: the name is the key)" } ?? key
    }

    /// The merchant's key of this link (nil when it is known by name).
    public var merchantKey: String? { byName ? nil : key }
}

/// A link as both stores keep it, column by column: `pushed` and `photos` are JSON text (keys
/// sorted), `updated_at` seconds since 1970 — what the first SQLite stores wrote, read the same.
struct LinkRow: Sendable, Equatable {
    var key: String
    var byName: Bool
    var productID: Int?
    var state: String
    var pushed: String?
    var photos: String?
    var updatedAt: Double
}

extension ProductLink {
    struct Undecodable: Error, CustomStringConvertible {
        var description: String
    }

    /// The link a stored row is; a row that does not decode is an error, never "never pushed":
    /// that would change what a sync decides.
    init(row: LinkRow) throws(Undecodable) {
        guard let state = State(rawValue: row.state) else { throw Undecodable(description: "state '\(row.state)' is not pending or linked") }
        let decoder = JSONDecoder()
        var pushed: Product?
        if let text = row.pushed {
            if let quick = Self.product(text) {
                pushed = quick
            } else {
                do { pushed = try decoder.decode(Product.self, from: Data(text.utf8)) } catch {
                    throw Undecodable(description: "pushed: \(error)")
                }
            }
        }
        var photos: [String]?
        if let text = row.photos {
            var utf8 = text
            if let quick = utf8.withUTF8({ bytes in var json = FlatJSON(UnsafeRawBufferPointer(bytes)); return json.strings().flatMap { json.atEnd ? $0 : nil } }) {
                photos = quick
            } else {
                do { photos = try decoder.decode([String].self, from: Data(text.utf8)) } catch {
                    throw Undecodable(description: "photos: \(error)")
                }
            }
        }
        self.init(key: row.key, byName: row.byName, productID: row.productID, state: state, pushed: pushed, photos: photos,
                  updatedAt: Date(timeIntervalSince1970: row.updatedAt))
    }

    /// A pushed product as `row` writes it, read without `JSONDecoder` (a re-run reads every
    /// link of the account before deciding: 25 µs a link with the decoder). Whole amounts only;
    /// anything else (a fraction, an unknown field) is nil, and the decoder reads it.
    static func product(_ text: String) -> Product? {
        var text = text
        return text.withUTF8 { bytes -> Product? in
            var json = FlatJSON(UnsafeRawBufferPointer(bytes))
            var name: String?, description: String?, currency: String?, price: Int?, discounted: Int?, stock: Int?
            guard json.take(UInt8(ascii: "{")) else { return nil }
            repeat {
                guard let field = json.string(), json.take(UInt8(ascii: ":")) else { return nil }
                switch field {
                case "name": name = json.string()
                case "description": description = json.string()
                case "currency": currency = json.string()
                case "price": price = json.integer()
                case "discountedPrice": discounted = json.integer()
                case "stock": stock = json.integer()
                default: return nil
                }
            } while json.take(UInt8(ascii: ","))
            guard json.take(UInt8(ascii: "}")), json.atEnd, let name, let description, let currency, let price, let discounted, let stock
            else { return nil }
            return Product(name: name, description: description, price: Money(price), currency: currency,
                           discountedPrice: Money(discounted), stock: stock)
        }
    }

    var row: LinkRow {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func text<T: Encodable>(_ value: T?) -> String? {
            value.flatMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) }
        }
        return LinkRow(key: key, byName: byName, productID: productID, state: state.rawValue, pushed: text(pushed), photos: text(photos),
                       updatedAt: updatedAt.timeIntervalSince1970)
    }
}
