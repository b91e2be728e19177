import Foundation
import OpenMarketContract

/// The 2021 server (`/items/{page}`, `/item/{id}`), in its own wire models: no vendors, a
/// password per item sent with each write, integer prices, `discounted_price` the *sale
/// price* (the contract's discount amount is converted both ways), `title` and
/// `descriptions`, photos as `images[]` parts, errors `{"error", "reason"}`.
struct Wire2021: WireShop {
    let client: OpenMarketClient
    var recordPath: String { "/item/" }

    func capabilities() -> ShopCapabilities {
        ShopCapabilities(wholeAmounts: true, vendors: false, ownersListed: false, totalsKnown: false,
                         deletion: "the item's password sent with the delete")
    }

    /// No health check: the list answering stands for it.
    func health() throws(OpenMarketError) -> String {
        _ = try page(1, perPage: Self.pageSize, search: nil)
        return "OK"
    }

    /// One item as the 2021 server lists and shows it, read straight into the contract's
    /// product: its keys are the 2021 server's own (`title`, `descriptions`, a sale price where
    /// the contract has a discount, no vendor), nothing of it kept in a shape of its own.
    struct Item2021: Decodable {
        let detail: ProductDetail
        var summary: ProductSummary { detail.summary }

        enum CodingKeys: String, CodingKey {
            case id, title, descriptions, price, currency, stock, thumbnails, images
            case discountedPrice = "discounted_price"
            case registrationDate = "registration_date"
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let price = try c.decode(Money.self, forKey: .price)
            // The sale price; the key is absent when there is none.
            let sale = try c.decodeIfPresent(Money.self, forKey: .discountedPrice).map { min($0, price) }
            let date = Date(timeIntervalSince1970: try c.decodeIfPresent(Double.self, forKey: .registrationDate) ?? 0)
            let thumbnails = try c.decodeIfPresent([String].self, forKey: .thumbnails) ?? []
            let summary = ProductSummary(id: try c.decode(Int.self, forKey: .id), vendorId: 0, vendorName: nil,
                                         name: try c.decode(String.self, forKey: .title),
                                         description: try c.decodeIfPresent(String.self, forKey: .descriptions),
                                         thumbnail: thumbnails.first ?? "", currency: try c.decode(String.self, forKey: .currency), price: price,
                                         bargainPrice: sale ?? price, discountedPrice: sale.map { price - $0 } ?? 0,
                                         stock: try c.decodeIfPresent(Int.self, forKey: .stock) ?? 0, createdAt: date, issuedAt: date)
            let images = (try c.decodeIfPresent([String].self, forKey: .images) ?? []).enumerated().map { index, url in
                ProductImage(id: index + 1, url: url, thumbnailURL: index < thumbnails.count ? thumbnails[index] : url, issuedAt: nil)
            }
            detail = ProductDetail(summary: summary, images: images, vendors: nil)
        }
    }

    struct Page2021: Decodable {
        var page: Int?
        var items: [Item2021]
    }

    static let pageSize = 20

    /// `GET /items/{page}`: 20 a page in the server's own order (not by id), no count: the
    /// end is the first empty page. The server has no search: a search keeps the page's
    /// items whose title contains it.
    func page(_ number: Int, perPage: Int, search: String?) throws(OpenMarketError) -> ProductPage {
        let endpoint = "GET /items/\(number)"
        let response = try client.send(.shopRead(client.baseURL + "/items/\(number)"), endpoint: endpoint)
        return try client.page(response, generation: .v2021, number: number, search: search, endpoint: endpoint)
    }

    /// A page as the contract has it: the offset and the next page from `number`, the end
    /// the first empty page.
    static func page(_ answer: Page2021, number: Int, search: String?) -> ProductPage {
        let size = Self.pageSize
        let offset = (max(1, number) - 1) * size
        var items = answer.items.map(\.summary)
        if let search, !search.isEmpty {
            let wanted = search.lowercased()
            items = items.filter { $0.name.lowercased().contains(wanted) }
        }
        let more = !answer.items.isEmpty
        var page = ProductPage(pageNo: number, itemsPerPage: size, totalCount: offset + answer.items.count,
                               offset: offset, limit: offset + answer.items.count,
                               lastPage: more ? number + 1 : max(1, number - 1), hasNext: more, hasPrev: number > 1,
                               pages: items)
        page.newestFirst = false
        page.totalKnown = false
        page.vendorsKnown = false
        return page
    }

    func product(id: Int) throws(OpenMarketError) -> ProductDetail {
        let endpoint = "GET /item/\(id)"
        let response = try client.send(.shopRead(client.baseURL + "/item/\(id)"), endpoint: endpoint)
        return try client.detail(response, generation: .v2021, endpoint: endpoint)
    }

    /// `POST /item`: text parts and one `images[]` part per photo.
    func register(_ product: Product, images: [UploadImage]) throws(OpenMarketError) -> ProductDetail {
        let endpoint = "POST /item"
        let password = try client.requireCredentials(for: endpoint).secret
        var parts = [("title", product.name), ("descriptions", product.description),
                     ("price", try Self.whole(product.price, "price")), ("currency", product.currency),
                     ("stock", String(product.stock))]
        if product.discountedPrice > 0 {
            parts.append(("discounted_price", try Self.whole(product.price - product.discountedPrice, "price − discounted_price (the sale price)")))
        }
        parts.append(("password", password))
        var fields = parts.map { Self.textField($0.0, $0.1) }
        for image in images {
            fields.append(MultipartField(name: "images[]", data: image.data, contentType: image.mimeType, filename: image.filename))
        }
        var request = HTTPRequest(method: .post, url: client.baseURL + "/item", body: .multipart(fields))
        request.headers = [("Accept", "application/json")]
        let response = try client.send(request, endpoint: endpoint)
        return try client.detail(response, generation: .v2021, endpoint: endpoint)
    }

    /// `PATCH /item/{id}`: the password and the fields that change. A change of the price or
    /// of the discount sends the sale price that keeps the discount the sheet means (the
    /// item is read first for the field not given).
    func edit(id: Int, _ changes: ProductPatch) throws(OpenMarketError) -> ProductDetail {
        let endpoint = "PATCH /item/\(id)"
        let password = try client.requireCredentials(for: endpoint).secret
        var parts: [(String, String)] = []
        if let name = changes.name { parts.append(("title", name)) }
        if let description = changes.description { parts.append(("descriptions", description)) }
        if let currency = changes.currency { parts.append(("currency", currency)) }
        if let stock = changes.stock { parts.append(("stock", String(stock))) }
        if changes.price != nil || changes.discountedPrice != nil {
            let current = try product(id: id).summary
            let price = changes.price ?? current.price
            let discount = changes.discountedPrice ?? current.discountedPrice
            parts.append(("price", try Self.whole(price, "price")))
            if discount > 0 || current.discountedPrice > 0 {
                parts.append(("discounted_price", try Self.whole(price - discount, "price − discounted_price (the sale price)")))
            }
        }
        parts.append(("password", password))
        var request = HTTPRequest(method: .patch, url: client.baseURL + "/item/\(id)", body: .multipart(parts.map { Self.textField($0.0, $0.1) }))
        request.headers = [("Accept", "application/json")]
        let response = try client.send(request, endpoint: endpoint)
        return try client.detail(response, generation: .v2021, endpoint: endpoint)
    }

    /// A PATCH that carries only the password (how the apps checked it): the item is
    /// unchanged, and only its password opens it. A refusal is said as a 403.
    func ownerCheck(id: Int, secret: String? = nil) throws(OpenMarketError) -> String {
        let endpoint = "PATCH /item/\(id)"
        let password: String
        if let secret { password = secret } else { password = try client.requireCredentials(for: endpoint).secret }
        let request = HTTPRequest(method: .patch, url: client.baseURL + "/item/\(id)", body: .multipart([Self.textField("password", password)]))
        do {
            _ = try client.send(request, endpoint: endpoint)
        } catch {
            guard let status = error.status, (400..<500).contains(status), status != 404, status != 429 else { throw error }
            throw .http(endpoint: endpoint, status: 403, message: "the password does not open item \(id) (the server answered HTTP \(status))")
        }
        return "the password opens it"
    }

    /// `DELETE /item/{id}` with the password (and the id, which the January 2021 server wanted).
    func delete(id: Int) throws(OpenMarketError) {
        let endpoint = "DELETE /item/\(id)"
        let password = try client.requireCredentials(for: endpoint).secret
        let body = try client.json(["id": WriteBody.Value.integer(id), "password": .text(password)])
        let request = HTTPRequest(method: .delete, url: client.baseURL + "/item/\(id)", body: .json(body))
        _ = try client.send(request, endpoint: endpoint, treatRetried404AsSuccess: true)
    }

    static func textField(_ name: String, _ value: String) -> MultipartField {
        MultipartField(name: name, data: Data(value.utf8), contentType: "text/plain; charset=utf-8", filename: nil)
    }

    /// A whole amount as the 2021 server takes it; a fraction is refused before sending.
    static func whole(_ value: Money, _ what: String) throws(OpenMarketError) -> String {
        guard value.isWhole, abs(value.amount) < 9e15 else {
            throw .invalidRequest("\(what) \(value): this server (2021 generation) takes whole amounts only [price-whole]")
        }
        return value.description
    }
}
