import Foundation
import OpenMarketAPI

/// A shop in memory, as the API contract describes it, for tests of the sync, export,
/// backup and migrate that start no server: products of several vendors, the caller's
/// vendor, delete keys only for its own products (403 for another's, 404 for none), pages in
/// the server's order (newest first), photos kept and downloadable by their URLs, and a count
/// of every call by kind. `failing` makes one kind of call fail; `capabilitiesSaid` plays
/// another generation's rules (whole amounts, no owners listed).
public final class InMemoryShop: Shop, @unchecked Sendable {
    public let vendor: Int
    public let address: String
    public let writer: ShopWriter?
    /// Registers that are stored and then lose their answer (as a dropped connection would).
    public var dropAnswers = 0
    /// What the shop says it can do (the contract's server by default).
    public var capabilitiesSaid = ShopCapabilities.current
    /// How long each call takes (a server's round trip), for tests of what runs at once.
    public var latency: TimeInterval = 0
    private var products: [Int: ProductDetail] = [:]
    /// Every in-memory shop's photos, by URL: as on the web, any shop's client downloads any
    /// shop's photo (a migration's target reads the source's).
    private static let photos = PhotoStore()
    private var nextID = 1
    private var calls: [String: Int] = [:]
    private var inFlight = 0
    private var mostInFlight = 0
    public var failing: Set<String> = []
    private let lock = NSLock()

    public init(vendor: Int = 1, address: String = "memory://shop", identifier: String = "vendor-1") {
        self.vendor = vendor
        self.address = address
        self.writer = .vendor(identifier: identifier)
    }

    /// Calls so far, by kind (`page`, `product`, `register`, `edit`, `deleteKey`, `delete`, `download`).
    public var callCounts: [String: Int] { lock.withLock { calls } }
    /// The most calls that were in flight at once (since the shop was made, or since `resetMostAtOnce`).
    public var mostAtOnce: Int { lock.withLock { mostInFlight } }
    public func resetMostAtOnce() { lock.withLock { mostInFlight = 0 } }
    /// Every product (of every vendor), by id.
    public var all: [Int: ProductDetail] { lock.withLock { products } }
    /// This vendor's products.
    public var mine: [ProductSummary] { lock.withLock { products.values.map(\.summary).filter { $0.vendorId == vendor } } }

    /// Puts a product of `vendor` (this shop's by default) in the shop; returns its id.
    @discardableResult
    public func add(_ name: String, price: Money = 1000, stock: Int = 1, description: String = "", currency: String = "KRW",
                    discountedPrice: Money = 0, vendor: Int? = nil, images: [UploadImage] = []) -> Int {
        lock.lock(); defer { lock.unlock() }
        let id = nextID
        nextID += 1
        var stored: [ProductImage] = []
        for (index, image) in images.enumerated() {
            let url = "http://photos.in-memory.test/\(UUID().uuidString)/\(id)-\(index + 1)-\(image.filename)"
            Self.photos.keep(image.data, at: url)
            stored.append(ProductImage(id: id * 100 + index, url: url, thumbnailURL: url, issuedAt: nil))
        }
        let summary = ProductSummary(id: id, vendorId: vendor ?? self.vendor, vendorName: nil, name: name, description: description,
                                     thumbnail: stored.first?.url ?? "http://photos.in-memory.test/none/\(id)-thumb.jpg", currency: currency,
                                     price: price, bargainPrice: price - discountedPrice, discountedPrice: discountedPrice,
                                     stock: stock, createdAt: Date(timeIntervalSince1970: Double(1_700_000_000 + id)),
                                     issuedAt: Date(timeIntervalSince1970: Double(1_700_000_000 + id)))
        products[id] = ProductDetail(summary: summary, images: stored, vendors: nil)
        return id
    }

    /// Puts `count` products of this vendor in the shop, named `prefix 1`…, each with the same
    /// small JPEG (made from `seed`), priced `price(i)` and stocked `i`; returns their ids.
    @discardableResult
    public func addProducts(_ count: Int, named prefix: String, photoSeed seed: UInt64, price: (Int) -> Money = { Money(1000 + $0) }) throws -> [Int] {
        let photo = UploadImage(data: Data(try Fixtures.jpeg(width: 30, height: 20, seed: seed)), filename: "a.jpg", mimeType: "image/jpeg")
        return (1...count).map { add("\(prefix) \($0)", price: price($0), stock: $0, images: [photo]) }
    }

    public func remove(_ id: Int) {
        lock.lock(); defer { lock.unlock() }
        products[id] = nil
    }

    private func count(_ call: String, _ endpoint: String) throws(OpenMarketError) {
        lock.lock()
        calls[call, default: 0] += 1
        inFlight += 1
        mostInFlight = max(mostInFlight, inFlight)
        let fails = failing.contains(call)
        lock.unlock()
        if latency > 0 { Thread.sleep(forTimeInterval: latency) }
        lock.withLock { inFlight -= 1 }
        if fails { throw .transport(endpoint: endpoint, code: 7, message: "in-memory shop told to fail \(call)") }
    }

    public func capabilities() throws(OpenMarketError) -> ShopCapabilities { capabilitiesSaid }

    public func checkCredentials() throws(OpenMarketError) -> OwnerProbe.Credentials { .accepted }

    public func page(_ number: Int, perPage: Int, search: String?) throws(OpenMarketError) -> ProductPage {
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

    public func product(id: Int) throws(OpenMarketError) -> ProductDetail {
        try count("product", "GET /api/products/\(id)")
        lock.lock(); defer { lock.unlock() }
        guard let product = products[id] else { throw .http(endpoint: "GET /api/products/\(id)", status: 404, message: "not found") }
        return product
    }

    public func register(_ product: Product, images: [UploadImage]) throws(OpenMarketError) -> ProductDetail {
        try count("register", "POST /api/products")
        if capabilitiesSaid.wholeAmounts, !product.price.isWhole {
            throw .http(endpoint: "POST /api/products", status: 400, message: "price must be a whole amount")
        }
        let id = add(product.name, price: product.price, stock: product.stock, description: product.description,
                     currency: product.currency, discountedPrice: product.discountedPrice, images: images)
        lock.lock()
        let drop = dropAnswers > 0
        if drop { dropAnswers -= 1 }
        let detail = products[id]!
        lock.unlock()
        if drop { throw .ambiguous(endpoint: "POST /api/products", reason: "the connection dropped after the request was sent") }
        return detail
    }

    public func edit(id: Int, _ changes: ProductPatch) throws(OpenMarketError) -> ProductDetail {
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
        detail.summary.bargainPrice = detail.summary.price - detail.summary.discountedPrice
        products[id] = detail
        lock.unlock()
        return detail
    }

    public func deleteKey(id: Int) throws(OpenMarketError) -> String {
        try count("deleteKey", "POST /api/products/\(id)/archived")
        lock.lock(); defer { lock.unlock() }
        guard let product = products[id] else { throw .http(endpoint: "POST /api/products/\(id)/archived", status: 404, message: "") }
        guard product.summary.vendorId == vendor else {
            throw .http(endpoint: "POST /api/products/\(id)/archived", status: 403, message: "not your product")
        }
        return "key-\(id)"
    }

    public func delete(id: Int) throws(OpenMarketError) {
        _ = try deleteKey(id: id)
        try count("delete", "DELETE /api/products/\(id)")
        remove(id)
    }

    public func download(_ url: String, maxBytes: Int) throws(OpenMarketError) -> Data {
        try count("download", "GET \(url)")
        guard let data = Self.photos.data(at: url) else {
            throw .http(endpoint: "GET \(url)", status: 404, message: "no such photo in the in-memory shop")
        }
        guard data.count <= maxBytes else { throw .http(endpoint: "GET \(url)", status: 413, message: "over \(maxBytes) bytes") }
        return data
    }
}

/// The photos of every in-memory shop, by URL.
private final class PhotoStore: @unchecked Sendable {
    private let lock = NSLock()
    private var byURL: [String: Data] = [:]

    func keep(_ data: Data, at url: String) { lock.withLock { byURL[url] = data } }
    func data(at url: String) -> Data? { lock.withLock { byURL[url] } }
}
