import Foundation
import OpenMarketContract
import ShopState

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
    public var name: String
    public var description: String
    /// Exact (snapshots written before kept them as text: read the same).
    public var price: Money
    public var currency: String
    public var discountedPrice: Money
    public var stock: Int
    public var createdAt: String?
    public var photos: [String]

    enum CodingKeys: String, CodingKey {
        case id, key, name, description, price, currency, stock, photos
        case discountedPrice = "discounted_price"
        case createdAt = "created_at"
    }

    /// The fields that can change on a product (its photos cannot, on this API), as the
    /// link store keeps what was pushed: one diff compares them (`Product.changes`).
    public var fields: Product {
        Product(name: name, description: description, price: price, currency: currency,
                      discountedPrice: discountedPrice, stock: stock)
    }

    /// `KEY` or `#ID`, as a line names the product.
    public var label: String { key ?? "#\(id)" }
}

/// What went wrong with a repository: what to do about it.
public struct BackupError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
