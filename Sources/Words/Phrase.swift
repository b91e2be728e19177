@_exported import Phrases

/// A phrase said in the reader's language, by the catalogue.
extension Phrase {
    public func text(_ language: Language) -> String {
        if key == Self.verbatimKey { return values.first ?? "" }
        if key == Self.listKey { return parts.map { $0.text(language) }.joined(separator: values.first ?? "; ") }
        if let count { return WordTable.counted(key, language, count: count, values + parts.map { $0.text(language) }) }
        guard key == Self.countsKey else { return WordTable.filled(key, language, values + parts.map { $0.text(language) }) }
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

extension [Phrase] {
    /// Notes as one text: each said in `language`, `; ` between.
    public func text(_ language: Language) -> String { map { $0.text(language) }.joined(separator: "; ") }
}

