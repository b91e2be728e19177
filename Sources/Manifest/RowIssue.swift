import Words
/// One problem found in a manifest: where (file, row as a spreadsheet shows
/// it, column), what (the value, the rule), and what to do.
public struct RowIssue: Sendable, Equatable, Codable {
    public enum Severity: String, Sendable, Codable { case error, warning }

    public var file: String
    /// The row number a spreadsheet shows (the header is row 1); 0 for the file itself.
    public var row: Int
    public var column: String?
    /// The file's own header of `column` when it is not our name (`이미지` for images).
    public var header: String?
    public var value: String?
    public var severity: Severity
    /// A stable name for the rule, for scripts (`name-length`, `price-format`…).
    public var rule: String
    public var message: String
    /// What the message names (a platform's title, a column), for the blanks `{1}`, `{2}` of its
    /// text in another language.
    public var terms: [String]?

    public init(file: String, row: Int, column: String?, value: String?, severity: Severity, rule: String, message: String) {
        self.file = file
        self.row = row
        self.column = column
        self.value = value
        self.severity = severity
        self.rule = rule
        self.message = message
    }

    /// The column as the merchant's sheet names it, with ours: `이미지 (images)`.
    public var columnLabel: String? {
        guard let column else { return nil }
        return header.map { "\($0) (\(column))" } ?? column
    }

    /// `products.csv, row 7, column price: value '12.000,50': …`
    public var description: String {
        var place = file
        if row > 0 { place += ", row \(row)" }
        if let label = columnLabel { place += ", column \(label)" }
        let shown = value.map { " value '\($0.count > 60 ? String($0.prefix(57)) + "…" : $0)'" } ?? ""
        return "\(place):\(shown) \(message) [\(rule)]"
    }
}

/// A problem with the file as a whole: it cannot be read as a manifest.
public struct ManifestError: SaysPhrase, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var message: String
    /// The catalogue's words for it, when it has them (the file's name the first value).
    public var said: Phrase?
    /// What it says in the reader's language: the catalogue's words, else the English.
    public var phrase: Phrase { said ?? .verbatim(description) }
    /// The text's encoding could not be told (UTF-16 without a byte-order mark, an unknown code
    /// page): a door asks for it (`--encoding`, the console's choice).
    public var encodingUnknown = false

    public init(file: String, message: String, encodingUnknown: Bool = false) {
        self.file = file
        self.message = message
        self.encodingUnknown = encodingUnknown
    }

    public var description: String { "\(file): \(message)" }

    /// The same error whatever words the catalogue has for it.
    public static func == (a: ManifestError, b: ManifestError) -> Bool {
        (a.file, a.message, a.encodingUnknown) == (b.file, b.message, b.encodingUnknown)
    }

    /// `message` in English; `key` the catalogue's words for it, filled with the file's name.
    public init(file: String, say key: String, message: String) {
        self.init(file: file, message: message)
        said = Phrase(key, file)
    }
}
