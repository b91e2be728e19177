import Foundation
import OpenMarketContract

/// What the client makes of a server's answer bytes: a list page, a product's detail, an
/// error's message, for each generation. The wire code reads every answer through these (so the
/// tests of the live servers' captured answers, which go through the client, test them too), and
/// so do the fuzz targets (`scripts/fuzz`).
public enum ServerAnswers {
    /// A list page as `generation` writes it (`number` and `search` are the request's: the
    /// 2021 server says neither).
    public static func page(_ body: Data, generation: ServerGeneration, number: Int = 1, search: String? = nil,
                            endpoint: String = "list page", scrub: (String) -> String = { $0 }) throws(OpenMarketError) -> ProductPage {
        let page: ProductPage
        switch generation {
        case .v2021:
            let answer = try decode(Wire2021.Page2021.self, from: body, endpoint: endpoint, scrub: scrub)
            page = Wire2021.page(answer, number: number, search: search)
        case .v2022January, .v2022October:
            page = try decode(ProductPage.self, from: body, endpoint: endpoint, scrub: scrub)
        }
        for product in page.pages { try ServerFacts.check(product, endpoint: endpoint, scrub: scrub) }
        return page
    }

    /// One product's detail as `generation` writes it (also the answer to a register or an edit).
    public static func detail(_ body: Data, generation: ServerGeneration,
                              endpoint: String = "product", scrub: (String) -> String = { $0 }) throws(OpenMarketError) -> ProductDetail {
        let detail: ProductDetail
        switch generation {
        case .v2021: detail = try decode(Wire2021.Item2021.self, from: body, endpoint: endpoint, scrub: scrub).detail
        case .v2022January, .v2022October: detail = try decode(ProductDetail.self, from: body, endpoint: endpoint, scrub: scrub)
        }
        try ServerFacts.check(detail.summary, endpoint: endpoint, scrub: scrub)
        for image in detail.images ?? [] where image.id < 0 {
            throw .decoding(endpoint: endpoint, detail: "product \(detail.id): image id \(image.id) is below 0")
        }
        return detail
    }

    /// The message of an error answer: the JSON error body of any generation, else the text
    /// of a short plain answer; an HTML page says nothing worth repeating. At most 300
    /// characters, whatever the server sent.
    public static func errorMessage(_ body: Data) -> String {
        let message: String
        if let answer = try? JSONDecoder().decode(APIErrorBody.self, from: body) {
            message = answer.message
        } else {
            let text = String(decoding: body.prefix(1200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            message = text.contains("<") ? "" : text
        }
        return message.count > 300 ? String(message.prefix(299)) + "…" : message
    }

    static func decode<T: Decodable>(_ type: T.Type, from body: Data, endpoint: String,
                                     scrub: (String) -> String) throws(OpenMarketError) -> T {
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch {
            throw .decoding(endpoint: endpoint, detail: scrub(OpenMarketClient.explain(error)))
        }
    }
}

/// A server's numbers checked as a sheet's are, before anything is decided from them: an id
/// above 0, amounts and a stock not below 0, a sale price not above the price. A product that
/// fails refuses the whole answer, naming the product and the field: nothing is written from a
/// page that cannot be trusted. (An id written `3.0` is read exactly, digit by digit, so it
/// names product 3 and no other; `3.5` is refused where it is decoded.)
enum ServerFacts {
    static func check(_ product: ProductSummary, endpoint: String, scrub: (String) -> String) throws(OpenMarketError) {
        func refuse(_ what: String) -> OpenMarketError {
            .decoding(endpoint: endpoint, detail: scrub("product \(product.id): \(what); a server's numbers are checked as a sheet's are, so nothing was decided from this answer"))
        }
        guard product.id > 0 else { throw refuse("id \(product.id) is no id (ids are whole numbers above 0)") }
        guard product.vendorId >= 0 else { throw refuse("vendor_id \(product.vendorId) is below 0") }
        guard product.price >= 0 else { throw refuse("price \(product.price) is below 0") }
        guard product.discountedPrice >= 0 else { throw refuse("discounted_price \(product.discountedPrice) is below 0") }
        guard product.discountedPrice <= product.price else {
            throw refuse("discounted_price \(product.discountedPrice) is above the price \(product.price)")
        }
        guard product.bargainPrice >= 0 else { throw refuse("bargain_price \(product.bargainPrice) is below 0") }
        guard product.stock >= 0 else { throw refuse("stock \(product.stock) is below 0") }
    }
}
