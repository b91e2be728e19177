import Foundation
import OpenMarketContract
import ShopState
import Words

/// One snapshot as `snapshots` lists it (its `.json` file, written last: a snapshot whose
/// index is not there does not exist).
public struct SnapshotInfo: Sendable, Codable, Equatable {
    /// `20261123-030001-123a7`: the time to the millisecond, then two random hex digits.
    public var id: String
    public var time: Date
    public var products: Int
    /// Products whose details and photos this snapshot fetched (new since the last one).
    public var newProducts: Int
    public var photosAdded: Int
    /// Bytes this snapshot added to the repository (new photos and its product list).
    public var bytesAdded: Int
    public var seconds: Double

    enum CodingKeys: String, CodingKey {
        case id, time, products, seconds
        case newProducts = "new_products"
        case photosAdded = "photos_added"
        case bytesAdded = "bytes_added"
    }
}

/// A product as a snapshot keeps it: its fields as the shop had them, its merchant key,
/// and its photos by content (`<sha256>.jpg` under `photos/`).
public struct SnapshotProduct: Sendable, Codable, Equatable {
    public var id: Int
    public var key: String?
    /// The fields that can change on a product (its photos cannot, on this API), as the shop
    /// had them — the one `Product`, as the link store keeps what was pushed: one diff compares
    /// them (`Product.changes`). Prices exact (snapshots written before kept them as text: read the same).
    public var fields: Product
    public var createdAt: String?
    public var photos: [String]

    public init(id: Int, key: String?, fields: Product, createdAt: String?, photos: [String]) {
        self.id = id
        self.key = key
        self.fields = fields
        self.createdAt = createdAt
        self.photos = photos
    }

    /// Stored flat, one JSON object a line, as snapshots always were.
    enum CodingKeys: String, CodingKey {
        case id, key, name, description, price, currency, stock, photos
        case discountedPrice = "discounted_price"
        case createdAt = "created_at"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(Int.self, forKey: .id)
        key = try c.decodeIfPresent(String.self, forKey: .key)
        fields = Product(name: try c.decode(String.self, forKey: .name), description: try c.decode(String.self, forKey: .description),
                         price: try c.decode(Money.self, forKey: .price), currency: try c.decode(String.self, forKey: .currency),
                         discountedPrice: try c.decode(Money.self, forKey: .discountedPrice), stock: try c.decode(Int.self, forKey: .stock))
        createdAt = try c.decodeIfPresent(String.self, forKey: .createdAt)
        photos = try c.decode([String].self, forKey: .photos)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encodeIfPresent(key, forKey: .key)
        try c.encode(fields.name, forKey: .name)
        try c.encode(fields.description, forKey: .description)
        try c.encode(fields.price, forKey: .price)
        try c.encode(fields.currency, forKey: .currency)
        try c.encode(fields.discountedPrice, forKey: .discountedPrice)
        try c.encode(fields.stock, forKey: .stock)
        try c.encodeIfPresent(createdAt, forKey: .createdAt)
        try c.encode(photos, forKey: .photos)
    }

    /// `KEY` or `#ID`, as a line names the product.
    public var label: String { key ?? "#\(id)" }
}

/// What went wrong with a repository: what to do about it.
public struct BackupError: SaysPhrase, Sendable, CustomStringConvertible {
    public var phrase: Phrase
    /// In English (logs, tests).
    public var description: String { phrase.text(.en) }
    public init(_ description: String) { phrase = .verbatim(description) }
    /// `BackupError(say: "b_no_policy")`: a phrase of the catalogue.
    public init(say key: String, _ values: String...) { phrase = Phrase(key, values) }
}
