/// A row's status as a merchant reads it. In Korean the CLI's word stays beside it
/// (`생성됨 (created)`): the terminal, the report and the page say that word.
public enum StatusWords {
    /// Each status's Korean (`status:NAME` in the catalogue).
    public static let korean: [String: String] = Catalogue.shipped.section("status:", "ko")

    /// `created`; `생성됨 (created)`.
    public static func label(_ status: String, _ language: Language) -> String { labelled("status:\(status)", status, language) }

    /// A word scripts match (a status, a run's kind) in `language` with the word itself beside:
    /// `가져오기 (import)`; the word alone where the catalogue has no translation (English).
    public static func labelled(_ key: String, _ word: String, _ language: Language) -> String {
        guard let words = Catalogue.shipped.translation(key, language) else { return word }
        return "\(words) (\(word))"
    }

    /// A count: `20 created`; `생성됨 20 (created)`.
    public static func count(_ status: String, _ count: Int, _ language: Language) -> String {
        let english = status == "not-sent" ? "not sent" : status
        guard let words = Catalogue.shipped.translation("status:\(status)", language) else { return "\(count) \(english)" }
        return "\(words) \(count) (\(english))"
    }

    /// Why a run stopped, for the reasons openmarket itself gives (a reason with the server's
    /// words stays as it is).
    public static let stoppedFromConsole = "stopped from the console"
    public static let stoppedBySignal = "stopped by a signal"

    /// A reason openmarket gives in fixed words (a signal, the console's Stop) in `language`;
    /// any other as it is (a reason made with values carries its phrase: `SyncSummary.stopText`).
    public static func stopReason(_ english: String, _ language: Language) -> String {
        switch english {
        case stoppedFromConsole: WordTable.text("stop:console", language)
        case stoppedBySignal: WordTable.text("stop:signal", language)
        default: english
        }
    }
}
