import BulkImport
import Foundation
import OpenMarketAPI

/// A shop in memory, as the API contract describes it, for tests of the decisions that
/// start no server: products of several vendors, the caller's vendor, delete keys only for
/// its own products (403 for another's, 404 for none), pages in the server's order (newest
/// first), and a count of every call by kind. `failing` makes one kind of call fail.
final class InMemoryShop: BulkImport.Shop, @unchecked Sendable {
    let vendor: Int
    let address = "memory://shop"
    /// Registers that are stored and then lose their answer (as a dropped connection would).
    var dropAnswers = 0
    private var products: [Int: ProductDetail] = [:]
    private var nextID = 1
    private(set) var calls: [String: Int] = [:]
    var failing: Set<String> = []
    private let lock = NSLock()

    init(vendor: Int = 1) { self.vendor = vendor }

    /// Puts a product of `vendor` (this shop's by default) in the shop; returns its id.
    @discardableResult
    func add(_ name: String, price: Double = 1000, stock: Int = 1, description: String = "", currency: String = "KRW",
             discountedPrice: Double = 0, vendor: Int? = nil) -> Int {
        lock.lock(); defer { lock.unlock() }
        let id = nextID
        nextID += 1
        let summary = ProductSummary(id: id, vendorId: vendor ?? self.vendor, vendorName: nil, name: name, description: description,
                                     thumbnail: "http://shop.test/images/\(id)-thumb.jpg", currency: currency, price: price,
                                     bargainPrice: price - discountedPrice, discountedPrice: discountedPrice, stock: stock,
                                     createdAt: Date(timeIntervalSince1970: Double(1_700_000_000 + id)),
                                     issuedAt: Date(timeIntervalSince1970: Double(1_700_000_000 + id)))
        products[id] = ProductDetail(summary: summary, images: [], vendors: nil)
        return id
    }

    func remove(_ id: Int) {
        lock.lock(); defer { lock.unlock() }
        products[id] = nil
    }

    private func count(_ call: String, _ endpoint: String) throws(OpenMarketError) {
        lock.lock()
        calls[call, default: 0] += 1
        let fails = failing.contains(call)
        lock.unlock()
        if fails { throw .transport(endpoint: endpoint, code: 7, message: "in-memory shop told to fail \(call)") }
    }

    func page(_ number: Int, perPage: Int, search: String?) throws(OpenMarketError) -> ProductPage {
        try count("page", "GET /api/products")
        lock.lock(); defer { lock.unlock() }
        let all = products.values.map(\.summary)
            .filter { search == nil || $0.name.localizedCaseInsensitiveContains(search!) }
            .sorted { $0.id > $1.id }
        let start = (number - 1) * perPage
        let slice = start < all.count ? Array(all[start..<min(all.count, start + perPage)]) : []
        let last = max(1, (all.count + perPage - 1) / perPage)
        return ProductPage(pageNo: number, itemsPerPage: perPage, totalCount: all.count, offset: start, limit: perPage,
                           lastPage: last, hasNext: number < last, hasPrev: number > 1, pages: slice)
    }

    func product(id: Int) throws(OpenMarketError) -> ProductDetail {
        try count("product", "GET /api/products/\(id)")
        lock.lock(); defer { lock.unlock() }
        guard let product = products[id] else { throw .http(endpoint: "GET /api/products/\(id)", status: 404, message: "not found") }
        return product
    }

    func register(_ product: NewProduct, images: [UploadImage]) throws(OpenMarketError) -> ProductDetail {
        try count("register", "POST /api/products")
        let id = add(product.name, price: product.price, stock: product.stock ?? 0, description: product.description,
                     currency: product.currency, discountedPrice: product.discountedPrice ?? 0)
        lock.lock()
        let drop = dropAnswers > 0
        if drop { dropAnswers -= 1 }
        lock.unlock()
        if drop { throw .ambiguous(endpoint: "POST /api/products", reason: "the connection dropped after the request was sent") }
        return try self.product(id: id)
    }

    func edit(id: Int, _ changes: ProductChanges) throws(OpenMarketError) -> ProductDetail {
        try count("edit", "PATCH /api/products/\(id)")
        lock.lock()
        guard var detail = products[id], detail.summary.vendorId == vendor else {
            lock.unlock()
            throw .http(endpoint: "PATCH /api/products/\(id)", status: products[id] == nil ? 404 : 403, message: "")
        }
        if let name = changes.name { detail.summary.name = name }
        if let description = changes.description { detail.summary.description = description }
        if let price = changes.price { detail.summary.price = price }
        if let currency = changes.currency { detail.summary.currency = currency }
        if let discount = changes.discountedPrice { detail.summary.discountedPrice = discount }
        if let stock = changes.stock { detail.summary.stock = stock }
        products[id] = detail
        lock.unlock()
        return detail
    }

    func deleteKey(id: Int) throws(OpenMarketError) -> String {
        try count("deleteKey", "POST /api/products/\(id)/archived")
        lock.lock(); defer { lock.unlock() }
        guard let product = products[id] else { throw .http(endpoint: "POST /api/products/\(id)/archived", status: 404, message: "") }
        guard product.summary.vendorId == vendor else {
            throw .http(endpoint: "POST /api/products/\(id)/archived", status: 403, message: "not your product")
        }
        return "key-\(id)"
    }

    func delete(id: Int) throws(OpenMarketError) {
        _ = try deleteKey(id: id)
        try count("delete", "DELETE /api/products/\(id)")
        remove(id)
    }

    func download(_ url: String, maxBytes: Int) throws(OpenMarketError) -> Data {
        try count("download", "GET \(url)")
        throw .http(endpoint: "GET \(url)", status: 404, message: "the in-memory shop keeps no photos")
    }
}
