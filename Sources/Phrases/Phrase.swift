/// A sentence kept by its words' key and its values, so that it is said later in the reader's
/// language (a feed's last run on the console's Feeds page, a row's note in a report, the
/// terminal). Made where the thing happens; never read back from rendered text. Said by the
/// catalogue in `Words` (`text(_:)`); this module holds no words, so that what only makes
/// phrases (ImagePrep, and the sandbox through it) does not link the catalogue.
public struct Phrase: Sendable, Codable, Equatable {
    public var key: String
    public var values: [String]
    /// Phrases said in the blanks after `values` (a photo's warning inside a row's note).
    public var parts: [Phrase]
    /// The count the words are chosen by (a message with plural forms: `1 product`, `2 products`).
    public var count: Int?

    public init(_ key: String, _ values: String..., parts: [Phrase] = []) {
        self.init(key, values, parts: parts)
    }

    public init(_ key: String, _ values: [String], parts: [Phrase] = []) {
        self.key = key
        self.values = values
        self.parts = parts
    }

    /// A message said in the plural form `count` takes.
    public init(_ key: String, count: Int, _ values: String...) {
        self.init(key, values)
        self.count = count
    }

    enum CodingKeys: String, CodingKey { case key, values, parts, count }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        values = try container.decodeIfPresent([String].self, forKey: .values) ?? []
        parts = try container.decodeIfPresent([Phrase].self, forKey: .parts) ?? []
        count = try container.decodeIfPresent(Int.self, forKey: .count)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(values, forKey: .values)
        if !parts.isEmpty { try container.encode(parts, forKey: .parts) }
        try container.encodeIfPresent(count, forKey: .count)
    }

    /// Words that are the same in every language (a server's answer, a feed map's reason).
    public static func verbatim(_ text: String) -> Phrase { Phrase(verbatimKey, text) }

    public static let verbatimKey = "verbatim"

    /// `20 rows: 18 created, 2 failed`; `20행: 생성됨 18 (created), 실패 2 (failed)`.
    public static func counts(rows: Int, _ counts: [(status: String, count: Int)]) -> Phrase {
        var phrase = Phrase(countsKey)
        phrase.values = [String(rows)] + counts.map { "\($0.status)=\($0.count)" }
        return phrase
    }

    public static let countsKey = "counts"

    /// Phrases said one after another, `separator` between (a product's changes: `price 1000 →
    /// 1200; stock 8 → 0`).
    public static func list(_ parts: [Phrase], separator: String) -> Phrase { Phrase(listKey, [separator], parts: parts) }

    public static let listKey = "list"
}

/// An error that says itself as a phrase: in the reader's language wherever it is shown.
public protocol SaysPhrase: Error {
    var phrase: Phrase { get }
}
