import Foundation
import GRDB
import ImagePrep
import Support

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

    // MARK: Image files

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
