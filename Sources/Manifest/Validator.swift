import Foundation
import OpenMarketAPI
import Support

public struct ValidationOptions: Sendable {
    /// Folder that relative image paths (and per-key image folders) are under;
    /// default: the manifest's folder.
    public var imagesDirectory: URL?
    /// Accepted currencies (upper case).
    public var currencies: [String] = ProductRules.sandboxCurrencies
    public var defaultCurrency = "KRW"
    /// Check that image files exist and are photos we read (JPEG, PNG, HEIC, WebP) by their
    /// first bytes (never decoded).
    public var checkImageFiles = true
    /// The text encoding and delimiter, when not detected.
    public var encoding: TextEncoding?
    public var delimiter: Character?
    /// For a workbook: the sheet and its header row.
    public var sheet = SheetChoice()

    public init() {}
}

/// The cells that say which product a row is.
public struct RowIdentity: Sendable, Equatable {
    public var row: Int
    public var key: String?
    public var id: Int?
    public var name: String?
}

/// Turns raw rows into `ProductDraft`s, or into `RowIssue`s that say what to fix.
/// Keeps only hashes of keys and names across rows, so memory stays small for
/// millions of rows.
public final class ManifestValidator: @unchecked Sendable {
    public let file: String
    public let options: ValidationOptions
    /// Where the image cells lead, checked once per reference.
    private let images: ImageReferences
    /// Hashes of keys and names seen, with the row that had them first.
    private var keys: [UInt64: Int32] = [:]
    private var names: [UInt64: Int32] = [:]
    /// CSV cells were neutralised against formulas when written; JSON values were not.
    private let restore: (String) -> String

    public init(reader: ManifestReader, options: ValidationOptions) {
        self.file = reader.url.lastPathComponent
        self.options = options
        let restore: @Sendable (String) -> String
        if reader.format == .csv {
            restore = { CSVCell.restore($0) }
        } else {
            restore = { $0 }
        }
        self.restore = restore
        images = ImageReferences(
            root: options.imagesDirectory ?? reader.url.deletingLastPathComponent(),
            hasImagesColumn: reader.columns.contains(.images) || !reader.format.hasHeaderRow,
            checkFiles: options.checkImageFiles, restore: restore)
    }

    /// Issues about the file as a whole: required columns missing (one error,
    /// not one per row), unknown columns (one warning).
    public static func fileIssues(_ reader: ManifestReader) -> [RowIssue] {
        let file = reader.url.lastPathComponent
        var issues: [RowIssue] = []
        if reader.format.hasHeaderRow, reader.columns.isDisjoint(with: [.key, .id, .name]) {
            issues.append(RowIssue(file: file, row: 1, column: Column.key.rawValue, value: nil, severity: .error,
                                   rule: "column-missing",
                                   message: "no column says which product a row is: add key (or sku, 상품코드), id, or name"))
        }
        if !reader.unknownColumns.isEmpty {
            issues.append(RowIssue(file: file, row: 1, column: nil, value: reader.unknownColumns.joined(separator: ", "),
                                   severity: .warning, rule: "column-unknown",
                                   message: "unknown columns are ignored; known: \(Column.allCases.map(\.rawValue).joined(separator: ", "))"))
        }
        return issues
    }

    /// What `check` found in one row on its own, before the rules across rows.
    struct RowCheck {
        var draft: ProductDraft?
        var issues: [RowIssue]
        var key: String?
        /// The name, when its length is right (only then is it compared with others).
        var name: String?
        /// Where a duplicate-name warning goes among the issues.
        var nameIssueIndex = 0
    }

    /// Sizes the tables of keys and names for about `rows` rows at once: growing
    /// them step by step holds the old and the new table together at every step.
    public func reserve(rows: Int) {
        let rows = min(max(rows, 0), 50_000_000)
        keys.reserveCapacity(rows)
        names.reserveCapacity(rows)
    }

    /// Validates one row. Returns the draft when it has no error.
    public func validate(_ raw: RawRow) -> (draft: ProductDraft?, issues: [RowIssue]) {
        acrossRows(check(raw), row: raw.number)
    }

    /// The rules across rows (a key used twice is an error, a name used twice a
    /// warning), applied in row order. Not thread-safe: one caller, in order.
    func acrossRows(_ check: RowCheck, row: Int) -> (draft: ProductDraft?, issues: [RowIssue]) {
        var issues = check.issues
        var draft = check.draft
        var inserted = 0
        if let key = check.key {
            let hash = Self.hash(key)
            if let first = keys[hash] {
                issues.insert(RowIssue(file: file, row: row, column: Column.key.rawValue, value: key, severity: .error, rule: "key-duplicate",
                                       message: "the same key as row \(first); each row needs its own key"), at: 0)
                inserted = 1
                draft = nil
            } else {
                keys[hash] = Int32(clamping: row)
            }
        }
        if let name = check.name {
            let hash = Self.hash(name)
            if let first = names[hash] {
                issues.insert(RowIssue(file: file, row: row, column: Column.name.rawValue, value: name, severity: .warning,
                                       rule: "name-duplicate",
                                       message: "the same name as row \(first); the server allows it, but check it is not a mistake"),
                              at: min(issues.count, check.nameIssueIndex + inserted))
            } else {
                names[hash] = Int32(clamping: row)
            }
        }
        return (draft, issues)
    }

    /// What names a row's product, read from its cells as `check` reads them, whether
    /// or not the row is valid.
    public func identity(of raw: RawRow) -> RowIdentity {
        func text(_ column: Column) -> String? {
            guard let value = raw.values[column] else { return nil }
            let trimmed = Self.trimmed(value)
            return trimmed.isEmpty ? nil : restore(trimmed)
        }
        return RowIdentity(row: raw.number, key: text(.key), id: text(.id).flatMap { Int($0) }, name: text(.name))
    }

    /// The value that clears a description (a blank cell keeps the live one).
    public static let clearMarker = "[clear]"

    /// The rules of one row on its own. Thread-safe: rows can be checked on several threads.
    ///
    /// A value that is there must be right (an error otherwise). A value that is not
    /// there (blank cell, missing column) keeps the live product's; what a new product
    /// needs (name, price, photos) is kept in `createProblems`, an error only for a row
    /// that creates (and a warning for `validate`, which does not know the shop).
    func check(_ raw: RawRow) -> RowCheck {
        var issues: [RowIssue] = raw.notes
        var createProblems: [RowIssue] = []
        var given = Set<Column>(minimumCapacity: Column.allCases.count)
        func issue(_ column: Column?, _ value: String?, _ rule: String, _ message: String, _ severity: RowIssue.Severity = .error) {
            issues.append(RowIssue(file: file, row: raw.number, column: column?.rawValue, value: value,
                                   severity: severity, rule: rule, message: message))
        }
        func needed(_ column: Column, _ value: String?, _ rule: String, _ message: String) {
            createProblems.append(RowIssue(file: file, row: raw.number, column: column.rawValue, value: value, severity: .error,
                                           rule: rule, message: "a new product needs \(message)"))
        }
        func text(_ column: Column) -> String? {
            guard let value = raw.values[column] else { return nil }
            let trimmed = Self.trimmed(value)
            return trimmed.isEmpty ? nil : restore(trimmed)
        }

        // key and id (a key used twice: see acrossRows)
        let key = text(.key)
        var id: Int? = nil
        if let raw = text(.id) {
            if let value = Int(raw), value > 0 { id = value } else {
                issue(.id, raw, "id-format", "must be a product id (a whole number above 0), or empty for a new product")
            }
        }

        // name and description, counted as a person counts characters (grapheme clusters)
        let name = text(.name) ?? ""
        let nameLength = Self.characterCount(name)
        var comparedName: String? = nil
        let nameIssueIndex = issues.count
        if name.isEmpty {
            if key == nil && id == nil && text(.id) == nil {
                issue(.name, nil, "row-identity", "the row has no key, id or name: nothing says which product it is")
            } else {
                needed(.name, nil, "name-length",
                       "a name (\(ProductRules.nameLength.lowerBound) to \(ProductRules.nameLength.upperBound) characters)")
            }
        } else if !ProductRules.nameLength.contains(nameLength) {
            issue(.name, name, "name-length",
                  "must be \(ProductRules.nameLength.lowerBound) to \(ProductRules.nameLength.upperBound) characters, has \(nameLength)")
        } else {
            comparedName = name
            given.insert(.name)
        }
        var description = raw.values[.description].map { restore(Self.trimmed($0)) } ?? ""
        if description == Self.clearMarker {
            description = ""
            given.insert(.description)
        } else if !description.isEmpty {
            given.insert(.description)
        }
        let descriptionLength = Self.characterCount(description)
        if descriptionLength > ProductRules.descriptionMaxLength {
            issue(.description, description, "description-length",
                  "must be at most \(ProductRules.descriptionMaxLength) characters, has \(descriptionLength)")
        }

        // currency: from the column, else from a symbol in the price, else the default (for a new product)
        var currency: String? = nil
        if let raw = text(.currency) {
            if let code = Money.currencyCode(raw), options.currencies.contains(code) {
                currency = code
                given.insert(.currency)
            } else {
                issue(.currency, raw, "currency-unknown", "must be one of \(options.currencies.joined(separator: ", "))")
            }
        }

        // price
        var price: Decimal? = nil
        var priceDecimals = 0
        if let raw = text(.price) {
            switch Money.parse(raw) {
            case .failure(let problem):
                issue(.price, raw, "price-format", problem.message)
            case .success(let parsed):
                if let symbolCurrency = parsed.currency {
                    if let currency, currency != symbolCurrency {
                        issue(.price, raw, "price-currency", "the price is written in \(symbolCurrency) but the currency column says \(currency)")
                    } else if currency == nil, text(.currency) == nil {
                        currency = symbolCurrency
                        given.insert(.currency)
                    }
                }
                price = parsed.amount
                priceDecimals = parsed.decimals
                given.insert(.price)
            }
        } else {
            needed(.price, nil, "price-missing", "a price (0 or more)")
        }
        let finalCurrency = currency ?? (text(.currency) == nil ? options.defaultCurrency : nil)
        if let amount = price, let code = finalCurrency, !issues.contains(where: { $0.column == Column.price.rawValue }) {
            if let problem = Money.check(amount, decimals: priceDecimals, currency: code) {
                issue(.price, raw.values[.price], problem.rule, problem.message)
            }
        }

        // discounted_price
        var discount: Decimal = 0
        if let raw = text(.discountedPrice) {
            switch Money.parse(raw) {
            case .failure(let problem): issue(.discountedPrice, raw, "discount-format", problem.message)
            case .success(let parsed):
                discount = parsed.amount
                given.insert(.discountedPrice)
                if let code = finalCurrency, let problem = Money.check(discount, decimals: parsed.decimals, currency: code) {
                    issue(.discountedPrice, raw, problem.rule.replacingOccurrences(of: "price", with: "discount"), problem.message)
                } else if let amount = price, amount >= 0, discount > amount {
                    issue(.discountedPrice, raw, "discount-over-price", "must not be more than the price (\(amount))")
                }
            }
        }

        // stock: a count, or a change to the live count (+5, -3); 0 is a count, never "blank"
        var stock = 0
        var stockDelta: Int? = nil
        if let raw = text(.stock) {
            let cleaned = raw.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) ? raw
                : raw.replacingOccurrences(of: ",", with: "").replacingOccurrences(of: "개", with: "")
                    .trimmingCharacters(in: .whitespaces)
            let sign = cleaned.first
            if sign == "+" || sign == "-" {
                if let value = Int(cleaned.dropFirst()), value >= 0, !cleaned.dropFirst().hasPrefix("+"), !cleaned.dropFirst().hasPrefix("-") {
                    stockDelta = sign == "+" ? value : -value
                    given.insert(.stock)
                    if sign == "-", value > 0 {
                        // A change below 0 only means something for a product that exists.
                        needed(.stock, raw, "stock-change-new",
                               "a stock count: it starts at 0, and \(raw) would take it below (a row that updates may subtract)")
                    }
                } else {
                    issue(.stock, raw, "stock-integer", "must be a whole number (0 or more), or a change such as +5 or -3")
                }
            } else if let value = Int(cleaned), value >= 0 {
                stock = value
                given.insert(.stock)
            } else {
                issue(.stock, raw, "stock-integer", "must be a whole number (0 or more), or a change such as +5 or -3")
            }
        }

        // images
        let images = self.images.sources(raw, key: key, issue: { column, value, rule, message, severity in
                                            issue(column, value, rule, message, severity) },
                                    needed: { value, rule, message in needed(.images, value, rule, message) })
        if !images.isEmpty { given.insert(.images) }

        let hasError = issues.contains { $0.severity == .error }
        // validate shows what a new product would lack, as warnings after the errors.
        let shown = issues + createProblems.map { var warning = $0; warning.severity = .warning; return warning }
        var result = RowCheck(draft: nil, issues: shown, key: key, name: comparedName, nameIssueIndex: nameIssueIndex)
        guard !hasError, let code = finalCurrency else { return result }
        var draft = ProductDraft(row: raw.number, key: key, id: id, name: name, description: description, price: price ?? 0,
                                 currency: code, discountedPrice: discount, stock: stock, images: images)
        draft.given = given
        draft.stockDelta = stockDelta
        draft.createProblems = createProblems
        result.draft = draft
        return result
    }

    /// Trims whitespace and newlines, without Foundation's work when there is none.
    static func trimmed(_ text: String) -> String {
        let utf8 = text.utf8
        // ASCII ends that are not spaces: nothing to trim (most cells).
        if let first = utf8.first, let last = utf8.last, first > 0x20, first < 0x80, last > 0x20, last < 0x80 { return text }
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last else { return text }
        if !first.properties.isWhitespace && !last.properties.isWhitespace { return text }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `ProductRules.characterCount`, skipping grapheme breaking for ASCII text.
    static func characterCount(_ text: String) -> Int {
        let utf8 = text.utf8
        if utf8.allSatisfy({ $0 < 0x80 && $0 != 0x0D }) { return utf8.count }
        return ProductRules.characterCount(text)
    }

    /// FNV-1a of the text, to remember keys and names without keeping them.
    static func hash(_ text: String) -> UInt64 { FNV.hash(text) }
}
