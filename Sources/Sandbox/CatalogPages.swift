import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore
import OpenMarketContract

/// The sandbox's read-only catalog pages, server-rendered from the same store
/// as the API: `/` (newest first, list or grid, search, endless scrolling with
/// a plain next-page link underneath) and `/products/{id}` (every photo).
/// Templates: `Sources/Sandbox/Resources/pages` (also under `templates/pages`).
/// Every value from a product goes through `{{…}}`, which escapes HTML.
struct CatalogPages: Sendable {
    static let pageSize = 20
    let store: SandboxStore
    let library: MustacheLibrary

    init(store: SandboxStore) throws {
        self.store = store
        var library = MustacheLibrary()
        for name in ["catalog", "product", "missing", "items", "style"] {
            guard let url = Bundle.module.url(forResource: name, withExtension: "mustache", subdirectory: "pages"),
                  let text = try? String(contentsOf: url, encoding: .utf8) else {
                throw SandboxStartError(message: "the page template \(name).mustache is missing from the sandbox's resources")
            }
            try library.register(text, named: name)
        }
        self.library = library
    }

    func add(to router: Router<SandboxContext>) {
        router.get("/", use: catalog)
        router.get("/products/:id", use: product)
    }

    // MARK: Handlers

    @Sendable func catalog(request: Request, context: SandboxContext) async throws -> Response {
        let query = request.uri.queryParameters
        let page = max(1, min(Int(query["page"] ?? "") ?? 1, 1_000_000))
        let search = query["search"].map { String($0).trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        let view = query["view"] == "list" ? "list" : "grid"
        let (total, products) = try await store.page(number: page, size: Self.pageSize, search: search)
        let lastPage = max(1, (total + Self.pageSize - 1) / Self.pageSize)
        let nextURL = page < lastPage ? Self.link(page: page + 1, search: search, view: view) : nil
        let items = products.map(Self.item)
        if query["fragment"] == "1" {
            // The next page's items alone, for endless scrolling.
            var headers: HTTPFields = [.contentType: "text/html; charset=utf-8"]
            if let nextURL { headers[HTTPField.Name("X-Next-Page")!] = nextURL }
            return Response(status: .ok, headers: headers,
                            body: .init(byteBuffer: ByteBuffer(string: library.render(["items": items], withTemplate: "items") ?? "")))
        }
        let anchor = products.first.map { "#p\($0.product.id ?? 0)" } ?? ""
        var values: [String: Any] = [
            "items": items, "total": total, "view": view, "is_list": view == "list", "is_grid": view == "grid",
            "empty": products.isEmpty,
            "list_url": Self.link(page: page, search: search, view: "list") + anchor,
            "grid_url": Self.link(page: page, search: search, view: "grid") + anchor,
        ]
        if let search { values["search"] = search }
        if lastPage > 1 { values["page_info"] = "page \(page) of \(lastPage)" }
        if let nextURL { values["next_url"] = nextURL }
        if page > 1 { values["prev_url"] = Self.link(page: min(page - 1, lastPage), search: search, view: view) }
        return html(library.render(values, withTemplate: "catalog"))
    }

    @Sendable func product(request: Request, context: SandboxContext) async throws -> Response {
        let raw = (context.parameters.get("id") ?? "").removingPercentEncoding ?? ""
        guard let id = Int(raw), id > 0, let stored = try await store.product(id: id) else {
            return html(library.render(["message": "There is no product \(raw)."], withTemplate: "missing"), status: .notFound)
        }
        var values = Self.item(stored)
        let images = stored.images.enumerated().map { index, image -> [String: Any] in
            ["url": "/images/\(image.fileName)", "position": index + 1, "count": stored.images.count, "name": stored.product.name]
        }
        values["images"] = images
        values["description"] = stored.product.description.isEmpty ? nil : stored.product.description
        values["vendor_id"] = stored.vendor.id ?? 0
        values["created"] = Self.date(stored.product.createdAt)
        values["updated"] = Self.date(stored.product.issuedAt)
        return html(library.render(values, withTemplate: "product"))
    }

    // MARK: Values for the templates

    /// A product as the apps show it: price, and when discounted, the price struck
    /// through with the discounted one beside it; stock, or sold out at 0.
    static func item(_ stored: StoredProduct) -> [String: Any] {
        let product = stored.product
        let summary = stored.summary(base: "")
        var values: [String: Any] = [
            "id": summary.id, "name": product.name, "vendor": stored.vendor.name,
            "price": PriceFormat.format(summary.price, currency: product.currency),
            "stock": product.stock, "sold_out": product.stock == 0,
        ]
        if !summary.thumbnail.isEmpty { values["thumbnail"] = summary.thumbnail }
        if product.discountedPrice > 0 {
            values["discounted"] = true
            values["bargain"] = PriceFormat.format(summary.bargainPrice, currency: product.currency)
            values["percent"] = product.price > 0 ? max(1, Int((product.discountedPrice / product.price * 100).rounded())) : 0
        }
        return values
    }

    static func link(page: Int, search: String?, view: String) -> String {
        var components = URLComponents()
        components.path = "/"
        var items = [URLQueryItem(name: "view", value: view)]
        if let search { items.append(URLQueryItem(name: "search", value: search)) }
        if page > 1 { items.append(URLQueryItem(name: "page", value: String(page))) }
        components.queryItems = items
        // `+` would read back as a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.string ?? "/"
    }

    static func date(_ seconds: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }

    private func html(_ text: String?, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
                 body: .init(byteBuffer: ByteBuffer(string: text ?? "")))
    }
}
