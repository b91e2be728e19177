import Foundation
import GRDB
import ImagePrep
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

/// The sandbox's storage: SQLite through GRDB for records, files on disk for images.
/// Every write is one transaction; image files are written inside it, so a
/// failed write leaves no product behind (at worst an orphan file).
final class SandboxStore: Sendable {
    let pool: DatabasePool
    let imagesDirectory: URL
    let thumbnailsDirectory: URL

    init(directory: URL) throws {
        let fm = FileManager.default
        imagesDirectory = directory.appendingPathComponent("images", isDirectory: true)
        thumbnailsDirectory = directory.appendingPathComponent("thumbnails", isDirectory: true)
        for dir in [directory, imagesDirectory, thumbnailsDirectory] {
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        // WAL with synchronous=NORMAL: a commit survives the sandbox crashing or being
        // killed; only a power loss can lose the last commits. Enough for a rehearsal
        // server, and it spares an fsync per request.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        pool = try DatabasePool(path: directory.appendingPathComponent("sandbox.sqlite").path,
                                configuration: configuration)
        try Self.migrator.migrate(pool)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: vendors, products, images") { db in
            try db.create(table: "vendor") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
                t.column("identifier", .text).notNull().unique()
                t.column("secret", .text).notNull()
                t.column("created_at", .double).notNull()
            }
            try db.create(table: "product") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("vendor_id", .integer).notNull().indexed().references("vendor")
                t.column("name", .text).notNull()
                t.column("name_folded", .text).notNull()
                t.column("description", .text).notNull()
                t.column("currency", .text).notNull()
                t.column("price", .double).notNull()
                t.column("discounted_price", .double).notNull()
                t.column("stock", .integer).notNull()
                t.column("thumbnail_image_id", .integer)
                t.column("delete_key", .text).notNull()
                t.column("created_at", .double).notNull()
                t.column("issued_at", .double).notNull()
            }
            try db.create(table: "image") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("product_id", .integer).notNull().indexed().references("product", onDelete: .cascade)
                t.column("position", .integer).notNull()
                t.column("format", .text).notNull()
                t.column("byte_count", .integer).notNull()
                t.column("has_thumbnail", .boolean).notNull()
                t.column("created_at", .double).notNull()
            }
        }
        // Thumbnails are made when first asked for: the file's presence is the state.
        migrator.registerMigration("v2: thumbnails on request") { db in
            try db.alter(table: "image") { t in t.drop(column: "has_thumbnail") }
        }
        return migrator
    }

    /// Case-folded name for `search_value`: Swift's full Unicode lowercasing,
    /// which SQLite's `lower()` does not do beyond ASCII.
    static func fold(_ text: String) -> String { text.lowercased() }

    // MARK: Vendors

    /// Creates the two demo vendors when the store has no vendor yet.
    func ensureDemoVendors() throws -> [SandboxVendor] {
        try pool.write { db in
            if try VendorRow.fetchCount(db) == 0 {
                for name in ["demo-shop", "second-shop"] { _ = try Self.insertVendor(named: name, db: db) }
            }
        }
        return try vendors()
    }

    func addVendor(named name: String) throws -> SandboxVendor {
        try pool.write { db in try Self.insertVendor(named: name, db: db) }
    }

    private static func insertVendor(named name: String, db: Database) throws -> SandboxVendor {
        var row = VendorRow(id: nil, name: name, identifier: UUID().uuidString.lowercased(),
                            secret: Credentials.makeSecret(), createdAt: Date().timeIntervalSince1970)
        try row.insert(db)
        return row.publicVendor
    }

    func vendors() throws -> [SandboxVendor] {
        try pool.read { db in try VendorRow.order(Column("id")).fetchAll(db).map(\.publicVendor) }
    }

    /// The 2021 generation's writer: no vendors, a password per item. The items one password
    /// made are kept under one vendor of the store whose secret is that password.
    func vendor(password: String, create: Bool) async throws -> VendorRow? {
        try await pool.write { db in
            if let row = try VendorRow.filter(Column("secret") == password).fetchOne(db) { return row }
            guard create else { return nil }
            let count = try VendorRow.fetchCount(db)
            var row = VendorRow(id: nil, name: "2021-writer-\(count + 1)", identifier: UUID().uuidString.lowercased(),
                                secret: password, createdAt: Date().timeIntervalSince1970)
            try row.insert(db)
            return row
        }
    }

    func vendor(identifier: String) async throws -> VendorRow? {
        try await pool.read { db in try VendorRow.filter(Column("identifier") == identifier).fetchOne(db) }
    }

    // MARK: Reading products

    /// One page, newest first, with each product's vendor name and thumbnail image.
    func page(number: Int, size: Int, search: String?, oldestFirst: Bool = false) async throws -> (total: Int, items: [StoredProduct]) {
        let folded = search.map(Self.fold)
        return try await pool.read { db in
            var request = ProductRow.all()
            if let folded, !folded.isEmpty {
                request = request.filter(sql: "instr(name_folded, ?) > 0", arguments: [folded])
            }
            let total = try request.fetchCount(db)
            let rows = try request.order(oldestFirst ? Column("id").asc : Column("id").desc)
                .limit(size, offset: (number - 1) * size)
                .fetchAll(db)
            return (total, try Self.load(rows, db: db))
        }
    }

    func product(id: Int) async throws -> StoredProduct? {
        try await pool.read { db in
            try ProductRow.fetchOne(db, key: Int64(id)).map { try Self.load($0, db: db) }
        }
    }

    /// A page's products with their vendors and images: three queries for the page, not two
    /// for each product (a listing of 50,000 products was 35 ms of the sandbox's CPU a page).
    private static func load(_ products: [ProductRow], db: Database) throws -> [StoredProduct] {
        guard !products.isEmpty else { return [] }
        let vendors = Dictionary(try VendorRow.fetchAll(db, keys: Set(products.map(\.vendorId))).map { ($0.id ?? 0, $0) },
                                 uniquingKeysWith: { first, _ in first })
        let ids = products.compactMap(\.id)
        var images: [Int64: [ImageRow]] = [:]
        for image in try ImageRow.filter(ids.contains(Column("product_id")))
            .order(Column("product_id"), Column("position")).fetchAll(db) {
            images[image.productId, default: []].append(image)
        }
        return try products.map { product in
            guard let vendor = vendors[product.vendorId] else {
                throw SandboxError(status: 500, message: "product \(product.id ?? 0) has no vendor")
            }
            return StoredProduct(product: product, vendor: vendor, images: images[product.id ?? 0] ?? [])
        }
    }

    private static func load(_ product: ProductRow, db: Database) throws -> StoredProduct {
        guard let vendor = try VendorRow.fetchOne(db, key: product.vendorId) else {
            throw SandboxError(status: 500, message: "product \(product.id ?? 0) has no vendor")
        }
        let images = try ImageRow.filter(Column("product_id") == product.id)
            .order(Column("position")).fetchAll(db)
        return StoredProduct(product: product, vendor: vendor, images: images)
    }

    // MARK: Writing products

    func register(vendorId: Int64, fields: ProductFields, images: [IncomingImage]) async throws -> StoredProduct {
        let imagesDirectory = self.imagesDirectory
        return try await pool.write { db in
            let now = Date().timeIntervalSince1970
            var product = ProductRow(
                id: nil, vendorId: vendorId, name: "", nameFolded: "", description: "", currency: "",
                price: 0, discountedPrice: 0, stock: 0, thumbnailImageId: nil,
                deleteKey: UUID().uuidString.lowercased(), createdAt: now, issuedAt: now)
            product.fields = fields
            try product.insert(db)
            for (position, image) in images.enumerated() {
                var row = ImageRow(id: nil, productId: product.id!, position: position,
                                   format: image.format.rawValue, byteCount: image.bytes.count,
                                   createdAt: now)
                try row.insert(db)
                try Data(image.bytes).write(to: imagesDirectory.appendingPathComponent(row.fileName), options: .atomic)
                if position == 0 {
                    product.thumbnailImageId = row.id
                    try product.update(db)
                }
            }
            return try Self.load(product, db: db)
        }
    }

    /// Applies `change` to the product's fields after checking ownership;
    /// `validate` sees the merged fields and may throw.
    func update(
        id: Int, vendorId: Int64, thumbnailImageId: Int?,
        change: @escaping @Sendable (inout ProductFields) throws -> Void
    ) async throws -> StoredProduct {
        try await pool.write { db in
            var product = try Self.owned(id: id, vendorId: vendorId, db: db)
            var fields = product.fields
            try change(&fields)
            product.fields = fields
            if let thumbnailImageId {
                let belongs = try ImageRow
                    .filter(Column("id") == Int64(thumbnailImageId) && Column("product_id") == product.id)
                    .fetchCount(db) > 0
                guard belongs else {
                    throw SandboxError.badRequest(
                        "thumbnail_id: image \(thumbnailImageId) is not one of product \(id)'s images")
                }
                product.thumbnailImageId = Int64(thumbnailImageId)
            }
            product.issuedAt = Date().timeIntervalSince1970
            try product.update(db)
            return try Self.load(product, db: db)
        }
    }

    func deleteKey(id: Int, vendorId: Int64) async throws -> String {
        try await pool.read { db in try Self.owned(id: id, vendorId: vendorId, db: db).deleteKey }
    }

    /// Deletes the product when the key matches, then its files.
    func delete(id: Int, vendorId: Int64, key: String) async throws -> StoredProduct {
        let removed = try await pool.write { db in
            let product = try Self.owned(id: id, vendorId: vendorId, db: db)
            guard product.deleteKey == key else {
                throw SandboxError.notFound("no product \(id) with that delete key; ask for the key with POST /api/products/\(id)/archived")
            }
            let stored = try Self.load(product, db: db)
            _ = try product.delete(db)
            return stored
        }
        for image in removed.images {
            try? FileManager.default.removeItem(at: imagesDirectory.appendingPathComponent(image.fileName))
            try? FileManager.default.removeItem(at: thumbnailsDirectory.appendingPathComponent(image.fileName))
        }
        return removed
    }

    private static func owned(id: Int, vendorId: Int64, db: Database) throws -> ProductRow {
        guard let product = try ProductRow.fetchOne(db, key: Int64(id)) else {
            throw SandboxError.notFound("no product with id \(id)")
        }
        guard product.vendorId == vendorId else {
            throw SandboxError.forbidden("product \(id) belongs to another vendor")
        }
        return product
    }

    /// An image file's bytes, or nil when there is no such file. A JPEG's thumbnail
    /// is made with TurboJPEG the first time it is asked for, then kept; a PNG, a
    /// small JPEG or one TurboJPEG cannot read (CMYK, damaged) is its own thumbnail.
    func imageFile(named name: String, thumbnail: Bool, thumbnailMaxEdge: Int) -> Data? {
        guard thumbnail else { return try? Data(contentsOf: imagesDirectory.appendingPathComponent(name)) }
        let thumbnailURL = thumbnailsDirectory.appendingPathComponent(name)
        if let data = try? Data(contentsOf: thumbnailURL) { return data }
        guard let original = try? Data(contentsOf: imagesDirectory.appendingPathComponent(name)) else { return nil }
        guard ImageFormat.sniff(original) == .jpeg, let codec = try? JPEGCodec(),
              let made = try? Thumbnailer.thumbnail(ofJPEG: Array(original), maxEdge: thumbnailMaxEdge, codec: codec) else {
            return original
        }
        let data = Data(made)
        try? data.write(to: thumbnailURL, options: .atomic)
        return data
    }
}

enum Credentials {
    /// A vendor secret: 16 characters from an alphabet without look-alikes.
    static func makeSecret() -> String {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<16).map { _ in alphabet.randomElement(using: &generator)! })
    }
}
