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
        switch generation {
        case .v2021:
            let answer = try decode(Wire2021.Page2021.self, from: body, endpoint: endpoint, scrub: scrub)
            return Wire2021.page(answer, number: number, search: search)
        case .v2022January, .v2022October:
            return try decode(ProductPage.self, from: body, endpoint: endpoint, scrub: scrub)
        }
    }

    /// One product's detail as `generation` writes it (also the answer to a register or an edit).
    public static func detail(_ body: Data, generation: ServerGeneration,
                              endpoint: String = "product", scrub: (String) -> String = { $0 }) throws(OpenMarketError) -> ProductDetail {
        switch generation {
        case .v2021: return try decode(Wire2021.Item2021.self, from: body, endpoint: endpoint, scrub: scrub).detail
        case .v2022January, .v2022October: return try decode(ProductDetail.self, from: body, endpoint: endpoint, scrub: scrub)
        }
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
