import Foundation
import Hummingbird
import Words

/// A form the console cannot use, said in the page's language on the error page (a 400 by
/// default): what was wrong and what it takes, never an internal path.
struct PageRefusal: Error {
    var status: HTTPResponse.Status = .badRequest
    var phrase: Phrase

    init(_ key: String, _ values: String...) { phrase = Phrase(key, values) }
}

/// What a route could not answer is a console page too, in the page's language, with the
/// page's own way on (the sheets, the runs): an unknown address or job, a bad form, anything
/// unexpected. Never a browser's blank error page.
struct ConsoleErrorPages: RouterMiddleware {
    typealias Context = ConsoleContext

    func handle(_ request: Request, context: ConsoleContext, next: (Request, ConsoleContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let refusal as PageRefusal {
            return page(request, context, status: refusal.status, detail: refusal.phrase.text(ConsoleWords.language(of: request)))
        } catch let error as HTTPError {
            return page(request, context, status: error.status, detail: error.body)
        } catch {
            return page(request, context, status: .internalServerError, detail: "\(error)")
        }
    }

    private func page(_ request: Request, _ context: ConsoleContext, status: HTTPResponse.Status, detail: String?) -> Response {
        let language = ConsoleWords.language(of: request)
        let key = switch status.code {
        case 404: "error_not_found"
        case 400, 422: "error_bad_request"
        case 409: "error_busy"
        default: "error_failed"
        }
        let detailText = detail.map { $0.isEmpty ? "" : " (\($0))" } ?? ""
        let model = MessagePage( "\(status.code) · \(WordTable.text(key + "_title", language))",
                                     message: WordTable.filled(key, language, detailText))
        guard let shop = context.shop else {
            return ConsoleGuard<ConsoleContext>.plainPage(status: status, title: model.title, message: model.message ?? "")
        }
        return ConsoleLayout(shop: shop).response(request, model, status: status)
    }
}
