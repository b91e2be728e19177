import Words

/// Why an export or a migration cannot start or go on, said so a person can act on it.
public struct ExportError: Error, Sendable, CustomStringConvertible {
    /// A phrase of the word table, said in the reader's language where it is shown.
    public var phrase: Phrase

    /// In English, as logs and scripts read it.
    public var description: String { phrase.text(.en) }

    public init(_ key: String, _ values: String...) {
        phrase = Phrase(key, values)
    }
}
