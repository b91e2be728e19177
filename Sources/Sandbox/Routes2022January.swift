import Foundation
import Hummingbird
import NIOCore
import OpenMarketContract

/// The 2022-01…08 server: `/api/products` with snake_case page keys, `descriptions` in
/// request bodies (and `description` silently ignored, as Spring ignored unknown names),
/// dates with `.00`, images with `succeed`, `/secret` answering the product's own secret,
/// which DELETE takes (the vendor's secret there is a 400), health `"OK"` in quotes.
struct Routes2022January: Sendable {
    let routes: SandboxRoutes
    var store: SandboxStore { routes.store }

    func add(to router: Router<SandboxContext>) {
        router.get("/healthChecker") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "\"OK\"")))
        }
        router.get("/api/products", use: list)
        router.post("/api/products", use: register)
        router.get("/api/products/:id", use: detail)
        router.patch("/api/products/:id", use: edit)
        router.post("/api/products/:id/secret", use: secret)
        router.delete("/api/products/:id/:key", use: delete)
        routes.addImages(to: router)
    }

    @Sendable func list(request: Request, context: SandboxContext) async throws -> Response {
        let (pageNo, perPage, search) = try routes.pageQuery(request)
        let (total, items) = try await store.page(number: pageNo, size: perPage, search: search)
        let lastPage = max(1, (total + perPage - 1) / perPage)
        let base = routes.baseURL(request)
        let offset = (pageNo - 1) * perPage
        return try WireJSON.response([
            "page_no": pageNo, "items_per_page": perPage, "total_count": total, "offset": offset,
            "limit": offset + perPage, "last_page": lastPage, "has_next": pageNo < lastPage, "has_prev": pageNo > 1,
            "pages": items.map { item($0, base: base) },
        ] as [String: Any])
    }

    private func item(_ stored: StoredProduct, base: String) -> [String: Any] {
        let product = stored.product
        let thumbnail = stored.images.first { $0.id == product.thumbnailImageId } ?? stored.images.first
        return [
            "id": Int(product.id ?? 0), "vendor_id": Int(stored.vendor.id ?? 0), "name": product.name,
            "thumbnail": thumbnail.map { "\(base)/thumbnails/\($0.fileName)" } ?? "",
            "currency": product.currency, "price": product.price, "bargain_price": product.price - product.discountedPrice,
            "discounted_price": product.discountedPrice, "stock": product.stock,
            "created_at": WireJSON.date2022January(product.createdAt), "issued_at": WireJSON.date2022January(product.issuedAt),
        ]
    }

    private func detailObject(_ stored: StoredProduct, base: String) -> [String: Any] {
        var object = item(stored, base: base)
        if !stored.product.description.isEmpty { object["description"] = stored.product.description }
        object["images"] = stored.images.map {
            ["id": Int($0.id ?? 0), "url": "\(base)/images/\($0.fileName)", "thumbnail_url": "\(base)/thumbnails/\($0.fileName)",
             "succeed": true, "issued_at": WireJSON.date2022January($0.createdAt)] as [String: Any]
        }
        object["vendors"] = ["name": stored.vendor.name, "id": Int(stored.vendor.id ?? 0),
                             "created_at": WireJSON.date2022January(stored.vendor.createdAt),
                             "issued_at": WireJSON.date2022January(stored.vendor.createdAt)] as [String: Any]
        return object
    }

    @Sendable func detail(request: Request, context: SandboxContext) async throws -> Response {
        let id = try routes.productID(context)
        guard let stored = try await store.product(id: id) else { throw SandboxError.notFound("no product with id \(id)") }
        return try WireJSON.response(detailObject(stored, base: routes.baseURL(request)))
    }

    /// This generation's names read into the contract's: `descriptions` is the description,
    /// `description` and any other unknown name are dropped.
    private func translated(_ object: [String: JSONValue], allowed: Set<ProductKey>) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for (key, value) in object {
            if key == "descriptions" { result[ProductKey.description.rawValue] = value; continue }
            if key == ProductKey.description.rawValue { continue }
            if let known = ProductKey(rawValue: key), allowed.contains(known) { result[key] = value }
        }
        return result
    }

    @Sendable func register(request: Request, context: SandboxContext) async throws -> Response {
        let vendor = try await routes.authenticate(request)
        let boundary = try RegisterForm.boundary(contentType: request.headers[.contentType])
        let form = try RegisterForm(parts: RegisterForm.parts(of: try await routes.collect(request), boundary: boundary,
                                                              maxParts: routes.configuration.limits.maxParts))
        var params = translated(try JSONValue.object(from: Data(form.params), what: "params"), allowed: ProductKey.register)
        try routes.checkSecret(params, of: vendor)
        if params[ProductKey.description.rawValue] == nil { params[ProductKey.description.rawValue] = .string("") }
        let fields = try routes.validation.registerFields(params)
        let images = try form.prepareImages(maxBytes: routes.configuration.limits.maxImageBytes)
        let stored = try await store.register(vendorId: vendor.id!, fields: fields, images: images)
        return try WireJSON.response(detailObject(stored, base: routes.baseURL(request)), status: .created)
    }

    @Sendable func edit(request: Request, context: SandboxContext) async throws -> Response {
        let vendor = try await routes.authenticate(request)
        let id = try routes.productID(context)
        let object = translated(try JSONValue.object(from: Data(buffer: try await routes.collect(request)), what: "body"), allowed: ProductKey.edit)
        try routes.checkSecret(object, of: vendor)
        let thumbnailID = try routes.validation.integer(.thumbnailID, in: object)
        let validation = routes.validation
        let stored = try await store.update(id: id, vendorId: vendor.id!, thumbnailImageId: thumbnailID) { fields in
            try validation.applyEdit(object, to: &fields)
        }
        return try WireJSON.response(detailObject(stored, base: routes.baseURL(request)))
    }

    @Sendable func secret(request: Request, context: SandboxContext) async throws -> Response {
        let vendor = try await routes.authenticate(request)
        let id = try routes.productID(context)
        let object = try JSONValue.object(from: Data(buffer: try await routes.collect(request)), what: "body")
        try routes.checkSecret(object, of: vendor)
        let key = try await store.deleteKey(id: id, vendorId: vendor.id!)
        return Response(status: .ok, headers: [.contentType: "text/plain;charset=UTF-8"], body: .init(byteBuffer: ByteBuffer(string: key)))
    }

    @Sendable func delete(request: Request, context: SandboxContext) async throws -> Response {
        let vendor = try await routes.authenticate(request)
        let id = try routes.productID(context)
        let key = context.parameters.get("key") ?? ""
        if key == vendor.secret {
            throw SandboxError.badRequest("the vendor's secret is not the product's secret: ask POST /api/products/\(id)/secret for it")
        }
        let removed = try await store.delete(id: id, vendorId: vendor.id!, key: key)
        return try WireJSON.response(detailObject(removed, base: routes.baseURL(request)))
    }
}
