import Foundation
import GRDB
import Support

/// Reading and writing products: every write one transaction.
extension SandboxStore {
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
    static func load(_ products: [ProductRow], db: Database) throws -> [StoredProduct] {
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

    static func load(_ product: ProductRow, db: Database) throws -> StoredProduct {
        try load([product], db: db)[0]
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

    static func owned(id: Int, vendorId: Int64, db: Database) throws -> ProductRow {
        guard let product = try ProductRow.fetchOne(db, key: Int64(id)) else {
            throw SandboxError.notFound("no product with id \(id)")
        }
        guard product.vendorId == vendorId else {
            throw SandboxError.forbidden("product \(id) belongs to another vendor")
        }
        return product
    }
}
