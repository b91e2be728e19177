/// A sentence kept by its words' key and its numbers, so that it is said later in the reader's
/// language (a feed's last run, on the console's Feeds page in English or Korean).
public struct Phrase: Sendable, Codable, Equatable {
    public var key: String
    public var values: [String]

    public init(_ key: String, _ values: String...) {
        self.init(key, values)
    }

    public init(_ key: String, _ values: [String]) {
        self.key = key
        self.values = values
    }

    /// `20 rows: 18 created, 2 failed`; `20행: 생성됨 18 (created), 실패 2 (failed)`.
    public static func counts(rows: Int, _ counts: [(status: String, count: Int)]) -> Phrase {
        var phrase = Phrase(countsKey)
        phrase.values = [String(rows)] + counts.map { "\($0.status)=\($0.count)" }
        return phrase
    }

    static let countsKey = "counts"

    public func text(_ language: Language) -> String {
        guard key == Self.countsKey else { return WordTable.filled(key, language, values) }
        let rows = values.first ?? "0"
        let counts = values.dropFirst().compactMap { pair -> String? in
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let count = Int(parts[1]) else { return nil }
            return StatusWords.count(parts[0], count, language)
        }
        let said = counts.isEmpty ? WordTable.text("nothing_to_do", language) : counts.joined(separator: ", ")
        return WordTable.filled("report_rows", language, rows) + ": " + said
    }
}
