import Foundation
import OpenMarketAPI
import OpenMarketContract

/// The answers of the three server generations, read as the client reads them
/// (`ServerAnswers`): a page or a detail, or a decoding error that names what was wrong;
/// an error body gives a message of bounded length.
enum AnswerTargets {
    static let all: [FuzzTarget] = [
        FuzzTarget("answers-2021", reads: "a 2021 server's list page (/items/N) and item (/item/ID)") { data throws(FuzzFinding) in
            try read(data, .v2021)
        },
        FuzzTarget("answers-2022-01", reads: "a 2022-01 server's list page and product detail (snake_case)") { data throws(FuzzFinding) in
            try read(data, .v2022January)
        },
        FuzzTarget("answers-2022-10", reads: "a 2022-10 server's list page and product detail (camelCase)") { data throws(FuzzFinding) in
            try read(data, .v2022October)
        },
        FuzzTarget("error-bodies", reads: "a server's error answer (JSON of each generation, text, HTML)") { data throws(FuzzFinding) in
            let message = ServerAnswers.errorMessage(data)
            if message.count > 300 { throw FuzzFinding("an error message of \(message.count) characters (at most 300)") }
        },
    ]

    static func read(_ data: Data, _ generation: ServerGeneration) throws(FuzzFinding) {
        switch Result(catching: { () throws(OpenMarketError) in try ServerAnswers.page(data, generation: generation, number: 3) }) {
        case .success(let page):
            if page.pages.count > data.count { throw FuzzFinding("a page of \(page.pages.count) products from \(data.count) bytes") }
        case .failure(let error):
            try named(error)
        }
        switch Result(catching: { () throws(OpenMarketError) in try ServerAnswers.detail(data, generation: generation) }) {
        case .success(let detail):
            if let images = detail.images, images.count > data.count {
                throw FuzzFinding("a product of \(images.count) photos from \(data.count) bytes")
            }
        case .failure(let error):
            try named(error)
        }
    }

    /// A refused answer is a decoding error that says what was wrong.
    static func named(_ error: OpenMarketError) throws(FuzzFinding) {
        guard case .decoding(_, let detail) = error, !detail.isEmpty else {
            throw FuzzFinding("an answer refused without saying why: \(error)")
        }
    }
}
