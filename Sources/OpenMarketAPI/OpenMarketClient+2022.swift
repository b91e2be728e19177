import Foundation
import OpenMarketContract

/// The two 2022 generations: `/api/products`, a vendor's `identifier` header and `secret`.
/// 2022-01 says `descriptions` in request bodies and deletes with the product's own secret
/// from `/secret`; 2022-10 says `description` and deletes with the key from `/archived`.
extension OpenMarketClient {
    func page2022(_ number: Int, perPage: Int, search: String?) throws(OpenMarketError) -> ProductPage {
        var query = "page_no=\(number)&items_per_page=\(perPage)"
        if let search, !search.isEmpty { query += "&search_value=\(Self.encodeQuery(search))" }
        let endpoint = "GET /api/products?\(query)"
        let response = try send(HTTPRequest(method: .get, url: baseURL + "/api/products?" + query), endpoint: endpoint)
        let page = try decode(ProductPage.self, from: response, endpoint: endpoint)
        if knownGeneration == nil, let found = Self.generation2022(ofPage: response.body) { remember(found) }
        return page
    }

    func product2022(id: Int) throws(OpenMarketError) -> ProductDetail {
        let endpoint = "GET /api/products/\(id)"
        return try Self.readAfterEdit.run { _ -> Attempt<ProductDetail, OpenMarketError> in
            do throws(OpenMarketError) {
                let response = try send(HTTPRequest(method: .get, url: baseURL + "/api/products/\(id)"), endpoint: endpoint)
                return .done(try decode(ProductDetail.self, from: response, endpoint: endpoint))
            } catch {
                return error.status == 403 ? .again(error, after: nil) : .failed(error)
            }
        }
    }

    func register2022(_ product: NewProduct, images: [UploadImage], names: WriteBody.Names) throws(OpenMarketError) -> ProductDetail {
        let endpoint = "POST /api/products"
        let credentials = try requireVendor(for: endpoint)
        let params = try json(WriteBody(product, names: names, secret: credentials.secret))
        var fields = [MultipartField(name: "params", data: params, contentType: "application/json", filename: nil)]
        for image in images {
            fields.append(MultipartField(name: "images", data: image.data, contentType: image.mimeType, filename: image.filename))
        }
        var request = HTTPRequest(method: .post, url: baseURL + "/api/products", body: .multipart(fields))
        request.headers = [("identifier", credentials.identifier), ("Accept", "application/json")]
        let response = try send(request, endpoint: endpoint)
        return try decode(ProductDetail.self, from: response, endpoint: endpoint)
    }

    func edit2022(id: Int, _ changes: ProductChanges, names: WriteBody.Names) throws(OpenMarketError) -> ProductDetail {
        let endpoint = "PATCH /api/products/\(id)"
        let credentials = try requireVendor(for: endpoint)
        let body = try json(WriteBody(changes, names: names, secret: credentials.secret))
        var request = HTTPRequest(method: .patch, url: baseURL + "/api/products/\(id)", body: .json(body))
        request.headers = [("identifier", credentials.identifier), ("Accept", "application/json")]
        let response = try send(request, endpoint: endpoint)
        return try decode(ProductDetail.self, from: response, endpoint: endpoint)
    }

    /// `POST /api/products/{id}/secret` (2022-01: the product's own secret) or
    /// `…/archived` (2022-10: a key, or a path or URL ending with it).
    func deleteKey2022(id: Int, step: String) throws(OpenMarketError) -> String {
        let endpoint = "POST /api/products/\(id)/\(step)"
        let credentials = try requireVendor(for: endpoint)
        var request = HTTPRequest(method: .post, url: baseURL + "/api/products/\(id)/\(step)",
                                  body: .json(try json(["secret": credentials.secret])))
        request.headers = [("identifier", credentials.identifier)]
        // Asking for the key changes nothing on the server: safe to retry like a read.
        let response = try send(request, endpoint: endpoint, idempotent: true)
        let key = String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let deleteKey = Self.deleteKey(inAnswer: key) else {
            throw .decoding(endpoint: endpoint, detail: "expected a delete key as text, a path or a URL ending with it")
        }
        return deleteKey
    }

    func delete2022(id: Int, step: String) throws(OpenMarketError) {
        let key = try deleteKey2022(id: id, step: step)
        let endpoint = "DELETE /api/products/\(id)/{key}"
        let credentials = try requireVendor(for: endpoint)
        var request = HTTPRequest(method: .delete, url: baseURL + "/api/products/\(id)/\(Self.encodePath(key))")
        request.headers = [("identifier", credentials.identifier)]
        _ = try send(request, endpoint: endpoint, treatRetried404AsSuccess: true)
    }

    /// A 2022 server's writes are a vendor's: the identifier and the secret.
    func requireVendor(for endpoint: String) throws(OpenMarketError) -> VendorCredentials {
        let credentials = try requireCredentials(for: endpoint)
        guard !credentials.identifier.isEmpty else {
            throw .invalidRequest("\(endpoint) needs the vendor's identifier as well as the secret on this server (2022 generations): --identifier, OPENMARKET_IDENTIFIER or the config file")
        }
        return credentials
    }
}
