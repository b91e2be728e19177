import Foundation
import Hummingbird
import Words

/// The console's words: the page's language, and the one table of words (`WordTable`) the
/// run's reports read too.
enum ConsoleWords {
    typealias Language = Words.Language

    static let cookieName = "openmarket-console-language"

    /// The language asked for: the page's own choice (a cookie), else the browser's first.
    static func language(of request: Request) -> Language {
        if let chosen = Cookies.value(request, named: cookieName), let language = Language(rawValue: chosen) {
            return language
        }
        return Language.accepted(request.headers[.acceptLanguage] ?? "")
    }

    static func words(_ language: Language) -> [String: String] { WordTable.words(language) }

    static var table: [String: (en: String, ko: String)] { WordTable.table }
}
