/// Every word openmarket shows a merchant, by its id in the message catalogue (`Catalogue`:
/// `Resources/messages/openmarket.pot` and a `.po` file per language): the console's pages,
/// the run's reports (report.html, report.xlsx), the terminal, a row's notes and failures. The statuses stay the CLI's own
/// words beside the Korean (`생성됨 (created)`): a merchant reading a report, a page and a
/// terminal reads one word for one thing.
public enum WordTable {
    /// The words of `language`, by key.
    public static func words(_ language: Language) -> [String: String] {
        let catalogue = Catalogue.shipped
        return Dictionary(uniqueKeysWithValues: catalogue.order.map { ($0, catalogue.text($0, language.rawValue) ?? $0) })
    }

    /// One word; the key itself when the catalogue has no such word (a test checks every key used).
    public static func text(_ key: String, _ language: Language) -> String {
        Catalogue.shipped.text(key, language.rawValue) ?? key
    }

    /// Every message by its id, in English and Korean (from the catalogue, read once).
    public static let table: [String: (en: String, ko: String)] = {
        let catalogue = Catalogue.shipped
        var table: [String: (en: String, ko: String)] = [:]
        for id in catalogue.order {
            table[id] = (catalogue.text(id, "en") ?? id, catalogue.text(id, "ko") ?? id)
        }
        return table
    }()

    /// A message that says a count, in the plural form the language gives `count`.
    public static func counted(_ key: String, _ language: Language, count: Int, _ values: [String]) -> String {
        fill(Catalogue.shipped.text(key, language.rawValue, count: count) ?? key, values)
    }

    /// A word with its blanks filled in order: `filled("report_rows", .ko, "20")` is `20행`.
    public static func filled(_ key: String, _ language: Language, _ values: String...) -> String {
        filled(key, language, values)
    }

    /// `{1}`, `{2}`… take the values in the order the code gives them; a language whose words
    /// come in another order writes its blanks in that order.
    public static func filled(_ key: String, _ language: Language, _ values: [String]) -> String {
        fill(text(key, language), values)
    }

    /// A template's blanks filled in one pass: `{1}`, `{2}`… take the values they number (a blank
    /// with no value stays as written); a value is never read again for blanks (a server's name
    /// holding `{1}` is said as it is).
    public static func fill(_ template: String, _ values: [String]) -> String {
        guard template.contains("{") else { return template }
        var said = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            said += rest[..<open]
            let after = rest[rest.index(after: open)...]
            let digits = after.prefix { $0.isASCII && $0.isNumber }
            if !digits.isEmpty, after.dropFirst(digits.count).first == "}", let number = Int(digits), number >= 1, number <= values.count {
                said += values[number - 1]
                rest = after.dropFirst(digits.count + 1)
            } else {
                said.append("{")
                rest = after
            }
        }
        return said + rest
    }
}

extension WordTable {
    /// A duration as a person reads it: `45 s`, `3 min 05 s`, `2 h 10 min` (`45초`, `3분 05초`).
    public static func duration(_ seconds: Double, _ language: Language) -> String {
        let total = Int(seconds.rounded())
        func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        if total < 60 { return filled("duration_s", language, String(total)) }
        if total < 3600 { return filled("duration_min", language, String(total / 60), twoDigits(total % 60)) }
        return filled("duration_h", language, String(total / 3600), twoDigits((total % 3600) / 60))
    }
}

extension WordTable {
    /// Items said as a list in `language`: `A`, `A and B`, `A, B and C`.
    public static func list(_ items: [String], _ language: Language) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        guard items.count > 2 else { return filled("list_two", language, items[0], items[1]) }
        return filled("list_more", language, items[0], list(Array(items.dropFirst()), language))
    }
}
