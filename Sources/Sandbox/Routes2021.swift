import Foundation
import Hummingbird
import NIOCore
import OpenMarketContract

/// The 2021 server: `/items/{page}` (20 a page, oldest first, an empty page past the end),
/// `/item/{id}`, multipart `POST /item` and `PATCH /item/{id}` with text parts and
/// `images[]`, `DELETE /item/{id}` with `{"password"}`. No vendors: each item has the
/// password it was registered with. Prices are integers, `discounted_price` is the sale
/// price, dates are Unix seconds, errors `{"error": true, "reason"}`, no health check.
struct Routes2021: Sendable {
    let routes: SandboxRoutes
    var store: SandboxStore { routes.store }
    static let pageSize = 20

    func add(to router: Router<SandboxContext>) {
        router.get("/items/:page", use: list)
        router.get("/item/:id", use: detail)
        router.post("/item", use: register)
        router.patch("/item/:id", use: edit)
        router.delete("/item/:id", use: delete)
        routes.addImages(to: router)
    }

    @Sendable func list(request: Request, context: SandboxContext) async throws -> Response {
        let raw = context.parameters.get("page") ?? ""
        guard let page = Int(raw), page >= 1 else { throw SandboxError.notFound("Not Found") }
        let (_, items) = try await store.page(number: page, size: Self.pageSize, search: nil, oldestFirst: true)
        let base = routes.baseURL(request)
        return try WireJSON.response(["page": page, "items": items.map { item($0, base: base) }] as [String: Any])
    }

    private func item(_ stored: StoredProduct, base: String) -> [String: Any] {
        let product = stored.product
        var object: [String: Any] = [
            "id": Int(product.id ?? 0), "title": product.name, "price": Int(product.price), "currency": product.currency,
            "stock": product.stock, "registration_date": product.createdAt,
            "thumbnails": stored.images.map { "\(base)/thumbnails/\($0.fileName)" },
        ]
        if product.discountedPrice > 0 { object["discounted_price"] = Int(product.price - product.discountedPrice) }
        return object
    }

    private func detailObject(_ stored: StoredProduct, base: String) -> [String: Any] {
        var object = item(stored, base: base)
        object["descriptions"] = stored.product.description
        object["images"] = stored.images.map { "\(base)/images/\($0.fileName)" }
        return object
    }

    @Sendable func detail(request: Request, context: SandboxContext) async throws -> Response {
        let id = try routes.productID(context)
        guard let stored = try await store.product(id: id) else { throw SandboxError.notFound("Not Found") }
        return try WireJSON.response(detailObject(stored, base: routes.baseURL(request)))
    }

    /// The text parts and the `images[]` parts of a form.
    private func form(_ request: Request) async throws -> (text: [String: String], images: [FormPart]) {
        let boundary = try RegisterForm.boundary(contentType: request.headers[.contentType])
        let parts = try RegisterForm.parts(of: try await routes.collect(request), boundary: boundary,
                                           maxParts: routes.configuration.limits.maxParts)
        var text: [String: String] = [:]
        var images: [FormPart] = []
        for part in parts {
            switch part.name {
            case "images[]": images.append(part)
            case let name?: text[name] = String(decoding: part.body, as: UTF8.self)
            case nil: throw SandboxError.badRequest("a part without a name")
            }
        }
        return (text, images)
    }

    private static func whole(_ text: String?, _ field: String) throws -> Int? {
        guard let text else { return nil }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw SandboxError.badRequest("\(field): must be a whole number, got '\(text)'")
        }
        return value
    }

    private static func password(_ text: [String: String]) throws -> String {
        guard let password = text["password"], !password.isEmpty else { throw SandboxError.badRequest("password: required") }
        return password
    }

    @Sendable func register(request: Request, context: SandboxContext) async throws -> Response {
        let (text, imageParts) = try await form(request)
        let password = try Self.password(text)
        guard let title = text["title"], let descriptions = text["descriptions"], let currency = text["currency"],
              let price = try Self.whole(text["price"], "price") else {
            throw SandboxError.badRequest("title, descriptions, price and currency are required")
        }
        let sale = try Self.whole(text["discounted_price"], "discounted_price")
        if let sale, sale > price || sale < 0 { throw SandboxError.badRequest("discounted_price: the sale price must be between 0 and the price") }
        var fields = ProductFields(name: title, description: descriptions, currency: currency, price: Double(price),
                                   discountedPrice: sale.map { Double(price - $0) } ?? 0,
                                   stock: try Self.whole(text["stock"], "stock") ?? 0)
        try routes.validation.check(&fields)
        let images = try RegisterForm(params: [], images: imageParts).prepareImages(maxBytes: routes.configuration.limits.maxImageBytes)
        guard let writer = try await store.vendor(password: password, create: true) else { throw SandboxError(status: 500, message: "no writer") }
        let stored = try await store.register(vendorId: writer.id!, fields: fields, images: images)
        return try WireJSON.response(detailObject(stored, base: routes.baseURL(request)))
    }

    /// The item, when this password opens it: 404 for none, 401 for a wrong password.
    private func opened(_ id: Int, password: String) async throws -> StoredProduct {
        guard let stored = try await store.product(id: id) else { throw SandboxError.notFound("Not Found") }
        guard stored.vendor.secret == password else { throw SandboxError.unauthorized("Unauthorized: wrong password") }
        return stored
    }

    @Sendable func edit(request: Request, context: SandboxContext) async throws -> Response {
        let id = try routes.productID(context)
        let (text, _) = try await form(request)
        let stored = try await opened(id, password: try Self.password(text))
        let newPrice = try Self.whole(text["price"], "price")
        let newSale = try Self.whole(text["discounted_price"], "discounted_price")
        let newStock = try Self.whole(text["stock"], "stock")
        let validation = routes.validation
        let updated = try await store.update(id: id, vendorId: stored.vendor.id!, thumbnailImageId: nil) { fields in
            // The item keeps its sale price unless a new one is given.
            let oldSale: Double? = fields.discountedPrice > 0 ? fields.price - fields.discountedPrice : nil
            if let title = text["title"] { fields.name = title }
            if let descriptions = text["descriptions"] { fields.description = descriptions }
            if let currency = text["currency"] { fields.currency = currency }
            if let newStock { fields.stock = newStock }
            if let newPrice { fields.price = Double(newPrice) }
            let sale = newSale.map(Double.init) ?? oldSale
            if let sale, sale > fields.price || sale < 0 {
                throw SandboxError.badRequest("discounted_price: the sale price must be between 0 and the price")
            }
            fields.discountedPrice = sale.map { fields.price - $0 } ?? 0
            try validation.check(&fields)
        }
        return try WireJSON.response(detailObject(updated, base: routes.baseURL(request)))
    }

    @Sendable func delete(request: Request, context: SandboxContext) async throws -> Response {
        let id = try routes.productID(context)
        let object = try JSONValue.object(from: Data(buffer: try await routes.collect(request)), what: "body")
        guard case .string(let password)? = object["password"] else { throw SandboxError.badRequest("password: required") }
        let stored = try await opened(id, password: password)
        let key = try await store.deleteKey(id: id, vendorId: stored.vendor.id!)
        let removed = try await store.delete(id: id, vendorId: stored.vendor.id!, key: key)
        return try WireJSON.response(detailObject(removed, base: routes.baseURL(request)))
    }
}
