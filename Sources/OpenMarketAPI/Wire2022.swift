import Foundation
import OpenMarketContract

/// The two 2022 generations: `/api/products`, a vendor's `identifier` header and `secret`.
/// 2022-01 says `descriptions` in request bodies and deletes with the product's own secret
/// from `/secret`; 2022-10 says `description` and deletes with the key from `/archived`.
struct Wire2022: WireShop {
    let client: OpenMarketClient
    /// 2022-01 or 2022-10.
    let generation: ServerGeneration
    /// The names of request bodies: `descriptions` (2022-01) or `description` (2022-10).
    var names: WriteBody.Names { generation == .v2022January ? .january : .october }
    /// The step that gives the delete key: `secret` (2022-01) or `archived` (2022-10).
    var deleteStep: String { generation == .v2022January ? "secret" : "archived" }
    var recordPath: String { "/api/products/" }

    func capabilities() -> ShopCapabilities {
        ShopCapabilities(wholeAmounts: false, vendors: true, ownersListed: true, totalsKnown: true,
                         deletion: generation == .v2022January ? "the product's own secret from /secret" : "the key from /archived")
    }

    func health() throws(OpenMarketError) -> String { try client.health() }

    func page(_ number: Int, perPage: Int, search: String?) throws(OpenMarketError) -> ProductPage {
        var query = "page_no=\(number)&items_per_page=\(perPage)"
        if let search, !search.isEmpty { query += "&search_value=\(OpenMarketClient.encodeQuery(search))" }
        let endpoint = "GET /api/products?\(query)"
        let response = try client.send(.shopRead(client.baseURL + "/api/products?" + query), endpoint: endpoint)
        let page = try client.page(response, generation: generation, number: number, search: search, endpoint: endpoint)
        if client.knownGeneration == nil, let found = OpenMarketClient.generation2022(ofPage: response.body) { client.remember(found) }
        return page
    }

    /// A 403 right after an edit is asked again briefly (real servers answered so for a moment).
    func product(id: Int) throws(OpenMarketError) -> ProductDetail {
        let endpoint = "GET /api/products/\(id)"
        let response = try client.send(.shopRead(client.baseURL + "/api/products/\(id)"), endpoint: endpoint,
                                       transient: [403])
        return try client.detail(response, generation: generation, endpoint: endpoint)
    }

    func register(_ product: Product, images: [UploadImage]) throws(OpenMarketError) -> ProductDetail {
        let endpoint = "POST /api/products"
        let credentials = try requireVendor(for: endpoint)
        let params = try client.json(WriteBody(product, names: names, secret: credentials.secret))
        var fields = [MultipartField(name: "params", data: params, contentType: "application/json", filename: nil)]
        for image in images {
            fields.append(MultipartField(name: "images", data: image.data, contentType: image.mimeType, filename: image.filename))
        }
        var request = HTTPRequest(method: .post, url: client.baseURL + "/api/products", body: .multipart(fields))
        request.headers = [("identifier", credentials.identifier), ("Accept", "application/json")]
        let response = try client.send(request, endpoint: endpoint)
        return try client.detail(response, generation: generation, endpoint: endpoint)
    }

    func edit(id: Int, _ changes: ProductPatch) throws(OpenMarketError) -> ProductDetail {
        let endpoint = "PATCH /api/products/\(id)"
        let credentials = try requireVendor(for: endpoint)
        let body = try client.json(WriteBody(changes, names: names, secret: credentials.secret))
        var request = HTTPRequest(method: .patch, url: client.baseURL + "/api/products/\(id)", body: .json(body))
        request.headers = [("identifier", credentials.identifier), ("Accept", "application/json")]
        let response = try client.send(request, endpoint: endpoint)
        return try client.detail(response, generation: generation, endpoint: endpoint)
    }

    /// `POST /api/products/{id}/secret` (2022-01: the product's own secret) or
    /// `…/archived` (2022-10: a key, or a path or URL ending with it).
    func ownerCheck(id: Int, secret: String? = nil) throws(OpenMarketError) -> String {
        let endpoint = "POST /api/products/\(id)/\(deleteStep)"
        let credentials = try requireVendor(for: endpoint)
        var request = HTTPRequest(method: .post, url: client.baseURL + "/api/products/\(id)/\(deleteStep)",
                                  body: .json(try client.json(["secret": secret ?? credentials.secret])))
        request.headers = [("identifier", credentials.identifier)]
        // Asking for the key changes nothing on the server: safe to retry like a read.
        let response = try client.send(request, endpoint: endpoint, idempotent: true)
        let key = String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let deleteKey = OpenMarketClient.deleteKey(inAnswer: key) else {
            throw .decoding(endpoint: endpoint, detail: "expected a delete key as text, a path or a URL ending with it")
        }
        return deleteKey
    }

    func delete(id: Int) throws(OpenMarketError) {
        let key = try ownerCheck(id: id)
        let endpoint = "DELETE /api/products/\(id)/{key}"
        let credentials = try requireVendor(for: endpoint)
        var request = HTTPRequest(method: .delete, url: client.baseURL + "/api/products/\(id)/\(OpenMarketClient.encodePath(key))")
        request.headers = [("identifier", credentials.identifier)]
        _ = try client.send(request, endpoint: endpoint, treatRetried404AsSuccess: true)
    }

    /// A 2022 server's writes are a vendor's: the identifier and the secret.
    func requireVendor(for endpoint: String) throws(OpenMarketError) -> VendorCredentials {
        let credentials = try client.requireCredentials(for: endpoint)
        guard !credentials.identifier.isEmpty else {
            throw .invalidRequest("\(endpoint) needs the vendor's identifier as well as the secret on this server (2022 generations): --identifier, OPENMARKET_IDENTIFIER or the config file")
        }
        return credentials
    }
}
