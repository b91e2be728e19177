/// A row's status as a merchant reads it. In Korean the CLI's word stays beside it
/// (`생성됨 (created)`): the terminal, the report and the page say that word.
public enum StatusWords {
    /// Each status's Korean (`status:NAME` in the catalogue).
    public static let korean: [String: String] = Catalogue.shipped.section("status:", "ko")

    /// `created`; `생성됨 (created)`.
    public static func label(_ status: String, _ language: Language) -> String {
        guard language == .ko, let korean = korean[status] else { return status }
        return "\(korean) (\(status))"
    }

    /// A count: `20 created`; `생성됨 20 (created)`.
    public static func count(_ status: String, _ count: Int, _ language: Language) -> String {
        guard language == .ko else { return "\(count) \(status == "not-sent" ? "not sent" : status)" }
        return "\(korean[status] ?? status) \(count) (\(status == "not-sent" ? "not sent" : status))"
    }

    /// The names of a product's fields as a change says them (`price 1000 → 1200`), in Korean.
    public static let fields: [String: String] = Catalogue.shipped.section("field:", "ko")

    /// A row's changes (`price 1000 → 1200 (+20.0 %); stock 8 → 0`) with each field named in
    /// `language`; the values as they are.
    public static func changes(_ text: String, _ language: Language) -> String {
        guard language == .ko, !text.isEmpty else { return text }
        return text.components(separatedBy: "; ").map { part in
            part.components(separatedBy: ", ").map { item in
                let words = item.split(separator: " ", maxSplits: 1).map(String.init)
                guard let first = words.first, let korean = fields[first] else { return item }
                return words.count > 1 ? "\(korean) \(words[1])" : korean
            }.joined(separator: ", ")
        }.joined(separator: "; ")
    }

    /// Why a run stopped, for the reasons openmarket itself gives (a reason with the server's
    /// words stays as it is).
    public static let stoppedFromConsole = "stopped from the console"
    public static let stoppedBySignal = "stopped by a signal"
    /// The start of the reason a run stopped for a server that stopped answering.
    public static let serverSilentPrefix = "the server stopped answering"

    public static func stopReason(_ english: String, _ language: Language) -> String {
        guard language == .ko else { return english }
        let catalogue = Catalogue.shipped
        func said(_ id: String, _ values: String...) -> String { WordTable.fill(catalogue.text(id, language.rawValue) ?? english, values) }
        if english == stoppedFromConsole { return said("stop:console") }
        if english == stoppedBySignal { return said("stop:signal") }
        if english.hasPrefix(serverSilentPrefix + ":") {
            return said("stop:silent", String(english.dropFirst(serverSilentPrefix.count + 2).prefix { $0.isNumber }))
        }
        if english.hasPrefix("stopped after "), english.contains("(--max-errors ") {
            return said("stop:max_errors", String(english.dropFirst("stopped after ".count).prefix { $0.isNumber }))
        }
        return english
    }
}
