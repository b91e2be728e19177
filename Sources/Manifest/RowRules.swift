import Foundation
import OpenMarketContract

/// The rules of one row on its own, a section per column; what they find is gathered
/// here (`issues`, `createProblems`, the columns `given`). Made and used by one
/// `ManifestValidator.check` call; rows are checked on several threads, each its own.
struct RowRules {
    let raw: RawRow
    let file: String
    /// The validator's options, shared: a copy per row retained each of their references.
    private let shared: SharedOptions
    var options: ValidationOptions { _read { yield shared.value } }
    let restore: (String) -> String
    var issues: [RowIssue]
    /// What a new product lacks: an error only for a row that creates.
    var createProblems: [RowIssue] = []
    var given = ColumnSet()
    /// The price cell as a plain number's digits, when it is one (`discount(sale:)` subtracts in whole numbers).
    var plainPrice: (value: UInt64, decimals: Int)?

    /// Each cell as `text` gives it, worked out once (the money rules ask for the currency's
    /// and the discount's cells several times).
    private let texts: RowValues

    init(raw: RawRow, file: String, options: SharedOptions, restore: @escaping (String) -> String) {
        self.raw = raw
        self.file = file
        shared = options
        self.restore = restore
        issues = raw.notes
        // Most rows' cells are already what `text` gives (not blank, no space at their ends,
        // no apostrophe first): the row's own values then, with no second set made.
        let ignoreID = options.value.ignoreID
        if raw.values.allSatisfy({ column, value in
            !(column == .id && ignoreID) && !value.isEmpty && value.utf8.first != UInt8(ascii: "'")
                && ManifestValidator.isTrimmed(value)
        }) {
            texts = raw.values
            return
        }
        var texts = RowValues()
        for (column, value) in raw.values where !(column == .id && ignoreID) {
            let trimmed = ManifestValidator.trimmed(value)
            if trimmed.isEmpty { continue }
            // Only a cell that starts with an apostrophe was neutralised against formulas.
            texts[column] = trimmed.utf8.first == UInt8(ascii: "'") ? restore(trimmed) : trimmed
        }
        self.texts = texts
    }

    mutating func issue(_ column: Column?, _ value: String?, _ rule: String, _ message: String, _ severity: RowIssue.Severity = .error) {
        issues.append(RowIssue(file: file, row: raw.number, column: column?.rawValue, value: value,
                               severity: severity, rule: rule, message: message))
    }

    mutating func needed(_ column: Column, _ value: String?, _ rule: String, _ message: String) {
        createProblems.append(RowIssue(file: file, row: raw.number, column: column.rawValue, value: value, severity: .error,
                                       rule: rule, message: "a new product needs \(message)"))
    }

    /// The cell, trimmed, formula neutralisation undone; nil when blank.
    func text(_ column: Column) -> String? { texts[column] }

    /// key and id (a key used twice: see `ManifestValidator.acrossRows`).
    mutating func identity() -> (key: String?, id: Int?) {
        var id: Int? = nil
        if let cell = text(.id) {
            if let value = Int(cell), value > 0 { id = value } else {
                issue(.id, cell, "id-format", "must be a product id (a whole number above 0), or empty for a new product")
            }
        }
        let key = text(.key)
        if key == nil, let reason = options.keyUnstated {
            issue(.key, nil, "key-missing", reason)
        } else if key == nil, text(.id) == nil, let reason = options.keyEmpty {
            issue(.key, nil, "key-empty", reason)
        }
        if let key, let damage = Self.excelDamage(key) {
            if key.contains("/") || key.uppercased().contains("E+") {
                // Never a new product of a key Excel surely rewrote (its digits gone, or a date in
                // the sheet's locale): its product would be one nobody meant.
                createProblems.append(RowIssue(file: file, row: raw.number, column: Column.key.rawValue, value: key, severity: .error,
                                               rule: "key-excel", message: "a new product needs a key as typed, and this one \(damage.prefix(1).lowercased())\(damage.dropFirst())"))
            } else {
                // `2024-03-05` may be a key as typed (export writes it so): said, not refused.
                issue(.key, key, "key-excel", damage, .warning)
            }
        }
        return (key, id)
    }

    /// What Excel makes of keys it reads as numbers or dates, said before it becomes a product:
    /// `1.23457E+11` (scientific notation: the digits are gone), `2024-01-02` or `1/2/2024`
    /// (a key such as `1-2` read as a date). Leading zeros it drops are found against the
    /// account's keys at import.
    static func excelDamage(_ key: String) -> String? {
        // One pass over the bytes (every row's key comes through here): digits, the `E+` of
        // scientific notation, and a date's separators; anything else is a key as typed.
        var digits = 0, dots = 0, separators = 0, slash = false, exponent = -1, longestRun = 0, run = 0
        for (index, byte) in key.utf8.enumerated() {
            switch byte {
            case 48...57:
                digits += 1
                run += 1
                longestRun = max(longestRun, run)
                continue
            case UInt8(ascii: "."): dots += 1; separators += 1
            case UInt8(ascii: "-"): separators += 1
            case UInt8(ascii: "/"): separators += 1; slash = true
            case UInt8(ascii: "E"), UInt8(ascii: "e"): guard exponent < 0 else { return nil }; exponent = index
            case UInt8(ascii: "+"): guard exponent >= 0, index == exponent + 1 else { return nil }
            default: return nil
            }
            run = 0
        }
        if exponent > 0, digits > 1, dots <= 1, separators == dots, key.utf8.count > exponent + 2,
           Array(key.utf8)[exponent + 1] == UInt8(ascii: "+") {
            return "looks like a number Excel wrote in scientific notation (its digits are lost): format the key column as Text, type the keys again, and save"
        }
        if exponent < 0, separators == 2, key.utf8.count <= 10, longestRun <= 4, slash || longestRun == 4 {
            return "looks like a date Excel made of the key (it reads 1-2 or 1/2 as a date): format the key column as Text, type the keys again, and save"
        }
        return nil
    }

    /// The vendor an export of several vendors says the row's product is (a vendor id).
    mutating func vendor() -> Int? {
        guard let cell = text(.vendor) else { return nil }
        guard let id = Int(cell), id > 0 else {
            issue(.vendor, cell, "vendor-format", "must be a vendor id (a whole number above 0), as export --vendor all writes it")
            return nil
        }
        return id
    }

    /// The name, counted as a person counts characters (grapheme clusters); `compared` is
    /// the name when its length is right (only then is it compared with other rows').
    mutating func name(key: String?, id: Int?) -> (name: String, compared: String?) {
        let name = text(.name) ?? ""
        var bounds: String { "\(ProductRules.nameLength.lowerBound) to \(ProductRules.nameLength.upperBound) characters" }
        if name.isEmpty {
            if key == nil && id == nil && text(.id) == nil {
                issue(.name, nil, "row-identity", "the row has no key, id or name: nothing says which product it is")
            } else {
                needed(.name, nil, "name-length", "a name (\(bounds))")
            }
            return (name, nil)
        }
        let length = ManifestValidator.characterCount(name)
        guard ProductRules.nameLength.contains(length) else {
            issue(.name, name, "name-length", "must be \(bounds), has \(length)")
            return (name, nil)
        }
        given.insert(.name)
        garbled(.name, name)
        return (name, name)
    }

    /// A warning for text a wrong encoding garbled (`ë…¹ì°¨` for `녹차`): it is sent as it is
    /// only because the merchant may mean it; the warning says how to re-save.
    mutating func garbled(_ column: Column, _ text: String) {
        guard let meant = GarbledText.meant(text) else { return }
        issue(column, text, "text-garbled",
              "looks garbled by a wrong encoding (UTF-8 read as Windows-1252; it was probably \"\(meant.prefix(40))\"): re-save the sheet as UTF-8 (Excel: Save As › CSV UTF-8) and import that",
              .warning)
    }

    /// The description; `[clear]` empties the live one, a blank cell keeps it.
    mutating func description() -> String {
        let cell = raw.values[.description].map(ManifestValidator.trimmed) ?? ""
        var description = cell
        // Only a cell that starts with `[` or an apostrophe can be the marker (most cells are not:
        // comparing with it by `==` asked Unicode's equivalence of every description).
        let first = cell.utf8.first
        let mayBeMarker = first == UInt8(ascii: "[") || first == UInt8(ascii: "'")
        if mayBeMarker, ManifestValidator.isMarker(cell, escaped: false) {
            description = ""
            given.insert(.description)
        } else if mayBeMarker, cell.hasPrefix("'"), ManifestValidator.isMarker(cell, escaped: true) {
            // `'[clear]`: the text [clear] (as export writes it), not the marker.
            description = String(cell.dropFirst())
            given.insert(.description)
        } else if !description.isEmpty {
            description = restore(cell)
            given.insert(.description)
            garbled(.description, description)
            if !options.keepHTML, HTMLText.looksLikeHTML(description) {
                description = HTMLText.plain(description)
                if !options.htmlExpected { issue(.description, nil, "description-html",
                      "the description is HTML (another platform's export): sent as the text a buyer reads (line breaks for paragraphs, no tags, &amp; as &); --keep-html sends it as it is",
                      .warning) }
            }
        }
        let length = ManifestValidator.characterCount(description)
        if length > ProductRules.descriptionMaxLength {
            issue(.description, description, "description-length",
                  "must be at most \(ProductRules.descriptionMaxLength) characters, has \(length)")
        }
        return description
    }

    /// A count, or a change to the live count (+5, -3); 0 is a count, never "blank".
    ///
    /// What a merchant means by a signed number depends on the sheet: in a sheet that states
    /// products (it has a name column), the stock column states counts, and `-3` — often a
    /// number typed into an Excel cell — is a mistake rather than "sell 3", so it fails the row
    /// saying how to subtract; in a sheet of keys and stock (or other partial columns), `+5`
    /// adds and `-3` subtracts (never below 0). Validate and import say the same.
    ///
    /// An empty cell in a stock column is not 0: a new product's stock is `--default-stock`
    /// when given, else the row cannot create (a whole sheet on sale sold out is worse than a
    /// failed row); an update keeps the shop's stock.
    mutating func stock() -> (count: Int, change: Int?) {
        guard let cell = text(.stock) else {
            if let count = options.defaultStock { return (count, nil) }
            guard raw.values[.stock] != nil else {
                // No stock column: an update keeps the shop's stock; a new product has none given,
                // and nothing given is not 0 (a whole sheet on sale sold out).
                let way = options.answersOnPage ? "choose above what a new product starts with"
                    : "add a stock column, or run with --default-stock N (what a new product starts with)"
                needed(.stock, nil, "stock-missing", "a stock count, and the sheet has no stock column: \(way)")
                return (0, nil)
            }
            if let reason = options.stockUnstated {
                needed(.stock, nil, "stock-empty", reason)
                return (0, nil)
            }
            needed(.stock, nil, "stock-empty",
                   "a stock count, and the cell is empty (an empty cell is not 0): write the count (0 if it is sold out), or run with --default-stock N")
            return (0, nil)
        }
        var refusal: String { "must be a whole number (0 or more), or a change such as +5 or -3" }
        let cleaned = cell.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) ? cell
            : cell.replacingOccurrences(of: ",", with: "").replacingOccurrences(of: "개", with: "")
                .trimmingCharacters(in: .whitespaces)
        let sign = cleaned.first
        guard sign == "+" || sign == "-" else {
            guard let value = Int(cleaned), value >= 0 else {
                issue(.stock, cell, "stock-integer", refusal)
                return (0, nil)
            }
            given.insert(.stock)
            return (value, nil)
        }
        let digits = cleaned.dropFirst()
        guard let value = Int(digits), value >= 0, !digits.hasPrefix("+"), !digits.hasPrefix("-") else {
            issue(.stock, cell, "stock-integer", refusal)
            return (0, nil)
        }
        if sign == "-", value > 0, raw.values[.name] != nil {
            issue(.stock, cell, "stock-negative",
                  "a stock count is 0 or more; to take \(value) off the shop's stock, import a sheet of key and stock with \(cell)")
            return (0, nil)
        }
        given.insert(.stock)
        if sign == "-", value > 0 {
            // A change below 0 only means something for a product that exists.
            needed(.stock, cell, "stock-change-new", "a stock count (0 or more), not \(cell)")
        }
        return (0, sign == "+" ? value : -value)
    }
}

/// A validator's options, held once and shared by the rules of every row.
final class SharedOptions: Sendable {
    let value: ValidationOptions
    init(_ value: ValidationOptions) { self.value = value }
}
