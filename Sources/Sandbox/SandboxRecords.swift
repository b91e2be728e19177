import Foundation
import GRDB
import Support

/// A vendor account of the sandbox, with the credentials a client sends.
public struct SandboxVendor: Sendable, Equatable, Codable {
    public var id: Int
    public var name: String
    public var identifier: String
    public var secret: String
}

/// The fields of a product that a vendor sets (everything but images).
struct ProductFields: Sendable, Equatable {
    var name: String
    var description: String
    var currency: String
    var price: Double
    var discountedPrice: Double
    var stock: Int
}

/// An image received in a register request.
struct IncomingImage: Sendable {
    var format: ImageFormat
    var bytes: [UInt8]
}

/// A product with its images and owner, as read from the store.
struct StoredProduct: Sendable {
    var product: ProductRow
    var vendor: VendorRow
    var images: [ImageRow]
}

struct VendorRow: Codable, Sendable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "vendor"
    var id: Int64?
    var name: String
    var identifier: String
    var secret: String
    var createdAt: Double

    enum CodingKeys: String, CodingKey {
        case id, name, identifier, secret
        case createdAt = "created_at"
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    var publicVendor: SandboxVendor {
        SandboxVendor(id: Int(id ?? 0), name: name, identifier: identifier, secret: secret)
    }
}

struct ProductRow: Codable, Sendable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "product"
    var id: Int64?
    var vendorId: Int64
    var name: String
    var nameFolded: String
    var description: String
    var currency: String
    var price: Double
    var discountedPrice: Double
    var stock: Int
    var thumbnailImageId: Int64?
    var deleteKey: String
    var createdAt: Double
    var issuedAt: Double

    enum CodingKeys: String, CodingKey {
        case id
        case vendorId = "vendor_id"
        case name
        case nameFolded = "name_folded"
        case description, currency, price
        case discountedPrice = "discounted_price"
        case stock
        case thumbnailImageId = "thumbnail_image_id"
        case deleteKey = "delete_key"
        case createdAt = "created_at"
        case issuedAt = "issued_at"
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    var fields: ProductFields {
        get {
            ProductFields(name: name, description: description, currency: currency, price: price,
                          discountedPrice: discountedPrice, stock: stock)
        }
        set {
            name = newValue.name
            nameFolded = SandboxStore.fold(newValue.name)
            description = newValue.description
            currency = newValue.currency
            price = newValue.price
            discountedPrice = newValue.discountedPrice
            stock = newValue.stock
        }
    }
}

struct ImageRow: Codable, Sendable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "image"
    var id: Int64?
    var productId: Int64
    var position: Int
    var format: String
    var byteCount: Int
    var createdAt: Double

    enum CodingKeys: String, CodingKey {
        case id
        case productId = "product_id"
        case position, format
        case byteCount = "byte_count"
        case createdAt = "created_at"
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    var imageFormat: ImageFormat { ImageFormat(rawValue: format) ?? .jpeg }
    /// The file name under `images/` and `thumbnails/`, and in the URLs.
    var fileName: String { "\(id ?? 0).\(imageFormat.fileExtension)" }
}

enum Credentials {
    /// A vendor secret: 16 characters from an alphabet without look-alikes.
    static func makeSecret() -> String {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<16).map { _ in alphabet.randomElement(using: &generator)! })
    }
}
