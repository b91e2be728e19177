import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OpenMarketContract

/// The API of the contract, one small handler per endpoint.
struct SandboxRoutes: Sendable {
    let store: SandboxStore
    let configuration: SandboxConfiguration
    let validation: ProductValidation
    /// Used in URLs when a request carries no usable Host header.
    let fallbackAuthority: String
    /// `https` when the sandbox itself speaks TLS.
    var scheme = "http"

    static let identifierHeader = HTTPField.Name("identifier")!

    func add(to router: Router<SandboxContext>) {
        router.get("/healthChecker") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(string: "OK")))
        }
        router.get("/api/products", use: list)
        router.post("/api/products", use: register)
        router.get("/api/products/:id", use: detail)
        router.patch("/api/products/:id", use: edit)
        router.post("/api/products/:id/archived", use: archived)
        router.delete("/api/products/:id/:key", use: delete)
        addImages(to: router)
    }

    /// The photo files, the same in every generation.
    func addImages(to router: Router<SandboxContext>) {
        router.get("/images/:file") { request, context in try serveImage(context: context, thumbnail: false) }
        router.get("/thumbnails/:file") { request, context in try serveImage(context: context, thumbnail: true) }
    }

    // MARK: Reading

    /// `page_no`, `items_per_page` and `search_value` of a list request (the same names in both
    /// 2022 generations), or a 400 that names the one that is wrong.
    func pageQuery(_ request: Request) throws -> (pageNo: Int, perPage: Int, search: String?) {
        let query = request.uri.queryParameters
        func positive(_ key: String, default value: Int, max: Int) throws -> Int {
            guard let raw = query[key[...]] else { return value }
            guard let number = Int(raw), number >= 1, number <= max else {
                throw SandboxError.badRequest("\(key): must be a whole number from 1 to \(max), got '\(raw)'")
            }
            return number
        }
        return (try positive("page_no", default: 1, max: Int(Int32.max)),
                try positive("items_per_page", default: 20, max: configuration.limits.maxItemsPerPage),
                query["search_value"].map(String.init))
    }

    @Sendable func list(request: Request, context: SandboxContext) async throws -> Response {
        let (pageNo, perPage, search) = try pageQuery(request)
        let (total, items) = try await store.page(number: pageNo, size: perPage, search: search)
        let lastPage = max(1, (total + perPage - 1) / perPage)
        let base = baseURL(request)
        let page = ProductPage(
            pageNo: pageNo, itemsPerPage: perPage, totalCount: total, offset: (pageNo - 1) * perPage,
            limit: perPage, lastPage: lastPage, hasNext: pageNo < lastPage, hasPrev: pageNo > 1,
            pages: items.map { $0.summary(base: base) })
        return try json(page)
    }

    @Sendable func detail(request: Request, context: SandboxContext) async throws -> Response {
        let id = try productID(context)
        guard let stored = try await store.product(id: id) else {
            throw SandboxError.notFound("no product with id \(id)")
        }
        return try json(stored.detail(base: baseURL(request)))
    }

    @Sendable func serveImage(context: SandboxContext, thumbnail: Bool) throws -> Response {
        let name = context.parameters.get("file") ?? ""
        let parts = name.split(separator: ".")
        guard parts.count == 2, Int(parts[0]) != nil, let format = ["jpg": "image/jpeg", "png": "image/png"][String(parts[1])],
              let data = store.imageFile(named: name, thumbnail: thumbnail, thumbnailMaxEdge: configuration.thumbnailMaxEdge) else {
            throw SandboxError.notFound("no image \(name)")
        }
        // A PNG serves as its own thumbnail; a JPEG thumbnail is always a JPEG.
        let type = thumbnail && format == "image/png" && data.starts(with: [0xFF, 0xD8]) ? "image/jpeg" : format
        return Response(status: .ok, headers: [.contentType: type, .cacheControl: "max-age=3600"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    // MARK: Writing

    @Sendable func register(request: Request, context: SandboxContext) async throws -> Response {
        let vendor = try await authenticate(request)
        let boundary = try RegisterForm.boundary(contentType: request.headers[.contentType])
        let body = try await collect(request)
        let form = try RegisterForm(parts: RegisterForm.parts(
            of: body, boundary: boundary, maxParts: configuration.limits.maxParts))
        let params = try JSONValue.object(from: Data(form.params), what: "params")
        try ProductValidation.rejectUnknownKeys(params, allowed: ProductValidation.registerKeys, what: "params")
        try checkSecret(params, of: vendor)
        let fields = try validation.registerFields(params)
        let images = try form.prepareImages(maxBytes: configuration.limits.maxImageBytes)
        let stored = try await store.register(vendorId: vendor.id!, fields: fields, images: images)
        return try json(stored.detail(base: baseURL(request)), status: .created)
    }

    @Sendable func edit(request: Request, context: SandboxContext) async throws -> Response {
        let vendor = try await authenticate(request)
        let id = try productID(context)
        let object = try JSONValue.object(from: Data(buffer: try await collect(request)), what: "body")
        try ProductValidation.rejectUnknownKeys(object, allowed: ProductValidation.editKeys, what: "body")
        try checkSecret(object, of: vendor)
        let thumbnailID = try validation.integer(.thumbnailID, in: object)
        let validation = self.validation
        let stored = try await store.update(id: id, vendorId: vendor.id!, thumbnailImageId: thumbnailID) { fields in
            try validation.applyEdit(object, to: &fields)
        }
        return try json(stored.detail(base: baseURL(request)))
    }

    @Sendable func archived(request: Request, context: SandboxContext) async throws -> Response {
        let id = try productID(context)
        if configuration.notFoundBeforeCredentials, try await store.product(id: id) == nil {
            throw SandboxError.notFound("no product with id \(id)")
        }
        let vendor = try await authenticate(request)
        let object = try JSONValue.object(from: Data(buffer: try await collect(request)), what: "body")
        try ProductValidation.rejectUnknownKeys(object, allowed: [ProductKey.secret.rawValue], what: "body")
        try checkSecret(object, of: vendor)
        let key = try await store.deleteKey(id: id, vendorId: vendor.id!)
        return Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(string: key)))
    }

    @Sendable func delete(request: Request, context: SandboxContext) async throws -> Response {
        let vendor = try await authenticate(request)
        let id = try productID(context)
        let key = context.parameters.get("key") ?? ""
        let removed = try await store.delete(id: id, vendorId: vendor.id!, key: key)
        return try json(removed.detail(base: baseURL(request)))
    }

    // MARK: Helpers

    func authenticate(_ request: Request) async throws -> VendorRow {
        guard let identifier = request.headers[Self.identifierHeader], !identifier.isEmpty else {
            throw SandboxError.unauthorized("identifier: header required for this request")
        }
        guard identifier.utf8.count <= 200, let vendor = try await store.vendor(identifier: identifier) else {
            throw SandboxError.unauthorized("identifier: no vendor with that identifier")
        }
        return vendor
    }

    func checkSecret(_ object: [String: JSONValue], of vendor: VendorRow) throws {
        guard try ProductValidation.secret(in: object) == vendor.secret else {
            throw SandboxError.forbidden("secret: does not match the vendor's secret")
        }
    }

    func collect(_ request: Request) async throws -> ByteBuffer {
        let limit = configuration.limits.maxBodyBytes
        do {
            return try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw SandboxError.tooLarge("body: larger than the sandbox's limit of \(limit) bytes")
        }
    }

    func productID(_ context: SandboxContext) throws -> Int {
        let raw = context.parameters.get("id") ?? ""
        guard let id = Int(raw), id > 0 else { throw SandboxError.notFound("no product with id '\(raw)'") }
        return id
    }

    private func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(bytes: try SandboxJSON.encode(value))))
    }

    /// `http://host:port` as the client reached the sandbox, from the Host
    /// header when it is a plausible host name, else the listening address; the scheme
    /// is https when the sandbox speaks TLS or a TLS front says so (`X-Forwarded-Proto`).
    func baseURL(_ request: Request) -> String {
        var scheme = self.scheme
        if let forwarded = request.headers[.init("X-Forwarded-Proto")!]?.lowercased(), forwarded == "https" || forwarded == "http" {
            scheme = forwarded
        }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]")
        if let authority = request.head.authority, !authority.isEmpty, authority.count <= 255,
           authority.allSatisfy({ allowed.contains($0) }) {
            return "\(scheme)://\(authority)"
        }
        return "\(scheme)://\(fallbackAuthority)"
    }
}

extension StoredProduct {
    func summary(base: String) -> ProductSummary {
        let thumbnailImage = images.first { $0.id == product.thumbnailImageId } ?? images.first
        return ProductSummary(
            id: Int(product.id ?? 0), vendorId: Int(vendor.id ?? 0), vendorName: vendor.name,
            name: product.name, description: product.description,
            thumbnail: thumbnailImage.map { "\(base)/thumbnails/\($0.fileName)" } ?? "",
            currency: product.currency, price: Money(product.price),
            bargainPrice: Money(product.price) - Money(product.discountedPrice),
            discountedPrice: Money(product.discountedPrice), stock: product.stock,
            createdAt: Date(timeIntervalSince1970: product.createdAt),
            issuedAt: Date(timeIntervalSince1970: product.issuedAt))
    }

    func detail(base: String) -> ProductDetail {
        ProductDetail(
            summary: summary(base: base),
            images: images.map {
                ProductImage(id: Int($0.id ?? 0), url: "\(base)/images/\($0.fileName)",
                             thumbnailURL: "\(base)/thumbnails/\($0.fileName)",
                             issuedAt: Date(timeIntervalSince1970: $0.createdAt))
            },
            vendors: VendorInfo(id: Int(vendor.id ?? 0), name: vendor.name))
    }
}
