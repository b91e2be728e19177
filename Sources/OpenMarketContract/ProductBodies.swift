import Foundation

/// The keys of a product in the bodies of `POST /api/products` (its `params`
/// part) and `PATCH /api/products/{id}`: spelt once, for the client that writes
/// them and the sandbox that checks them.
public enum ProductKey: String, CaseIterable, CodingKey, Sendable {
    case name, description, price, currency
    case discountedPrice = "discounted_price"
    case stock, secret
    case thumbnailID = "thumbnail_id"

    /// What a register body may hold.
    public static let register: Set<ProductKey> = [.name, .description, .price, .currency, .discountedPrice, .stock, .secret]
    /// What an edit body may hold.
    public static let edit: Set<ProductKey> = register.union([.thumbnailID])
}

/// A product's own fields, one type wherever they travel: what a register sends, what a
/// link remembers was pushed, what a run record keeps for undo, what a snapshot compares.
/// (Stored as JSON with these names; records written when prices were text read the same.)
public struct Product: Sendable, Equatable, Codable {
    public var name: String
    public var description: String
    public var price: Money
    public var currency: String
    public var discountedPrice: Money
    public var stock: Int

    public init(name: String, description: String, price: Money, currency: String, discountedPrice: Money = 0, stock: Int = 0) {
        self.name = name
        self.description = description
        self.price = price
        self.currency = currency
        self.discountedPrice = discountedPrice
        self.stock = stock
    }
}

extension Product {
    /// A product's fields as the shop has them (a catalog page's summary; no description: empty).
    public init(_ product: ProductSummary) {
        self.init(name: product.name, description: product.description ?? "", price: product.price, currency: product.currency,
                  discountedPrice: product.discountedPrice, stock: product.stock)
    }
}

/// The fields a `PATCH /api/products/{id}` changes; nil fields are left alone (and not sent).
public struct ProductPatch: Sendable, Equatable, Encodable {
    public var name: String?
    public var description: String?
    public var price: Money?
    public var currency: String?
    public var discountedPrice: Money?
    public var stock: Int?
    public var thumbnailID: Int?

    public init(name: String? = nil, description: String? = nil, price: Money? = nil, currency: String? = nil,
                discountedPrice: Money? = nil, stock: Int? = nil, thumbnailID: Int? = nil) {
        self.name = name
        self.description = description
        self.price = price
        self.currency = currency
        self.discountedPrice = discountedPrice
        self.stock = stock
        self.thumbnailID = thumbnailID
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ProductKey.self)
        try c.encodeIfPresent(name, forKey: .name)
        try c.encodeIfPresent(description, forKey: .description)
        try c.encodeIfPresent(price, forKey: .price)
        try c.encodeIfPresent(currency, forKey: .currency)
        try c.encodeIfPresent(discountedPrice, forKey: .discountedPrice)
        try c.encodeIfPresent(stock, forKey: .stock)
        try c.encodeIfPresent(thumbnailID, forKey: .thumbnailID)
    }
}
