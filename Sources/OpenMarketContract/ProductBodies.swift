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

/// A new product's fields, as `POST /api/products` takes them.
public struct NewProduct: Sendable, Equatable, Encodable {
    public var name: String
    public var description: String
    public var price: Money
    public var currency: String
    public var discountedPrice: Money?
    public var stock: Int?

    public init(name: String, description: String, price: Money, currency: String,
                discountedPrice: Money? = nil, stock: Int? = nil) {
        self.name = name
        self.description = description
        self.price = price
        self.currency = currency
        self.discountedPrice = discountedPrice
        self.stock = stock
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ProductKey.self)
        try c.encode(name, forKey: .name)
        try c.encode(description, forKey: .description)
        try c.encode(price, forKey: .price)
        try c.encode(currency, forKey: .currency)
        try c.encodeIfPresent(discountedPrice, forKey: .discountedPrice)
        try c.encodeIfPresent(stock, forKey: .stock)
    }
}

/// Changes for `PATCH /api/products/{id}`; nil fields are left alone (and not sent).
public struct ProductChanges: Sendable, Equatable, Encodable {
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
