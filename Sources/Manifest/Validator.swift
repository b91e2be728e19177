import Foundation
import OpenMarketContract
import Support

public struct ValidationOptions: Sendable {
    /// Folder that relative image paths (and per-key image folders) are under;
    /// default: the manifest's folder.
    public var imagesDirectory: URL?
    /// An http(s) address that relative photo names are under instead (a file fetched from a
    /// URL names its photos beside it, as a browser resolves a page's links).
    public var imagesBaseURL: URL?
    /// A file the merchant did not write by hand (a supplier's feed, a sheet uploaded to the
    /// console): its photo paths, absolute ones too, must lead inside the images folder or one
    /// of `photoFolders` (`--images-from`), else `[image-path-escape]`. A merchant's own sheet
    /// on the command line may name any file.
    public var confinePhotos = false
    public var photoFolders: [URL] = []
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
    /// A supplier's file: read through a feed's map into our columns (`--feed`, `--map`).
    public var mapping: (any HeaderMapping)?
    /// Maps a sheet's header chooses by itself when `mapping` is nil: other platforms'
    /// exports (the Feeds module's `ShippedMaps`).
    public var platformMaps: [any PlatformMap] = []
    /// The currency of rows that do not state one (`--currency`); nil: `defaultCurrency`,
    /// except in a platform's export that states none, where such a row cannot create.
    public var currency: String?
    /// Why a row without a currency cannot create (set from the file: an export that states none).
    var currencyUnstated: String?
    /// Descriptions are HTML throughout (a platform's export): made text without a warning a row.
    var htmlExpected = false
    /// What an empty stock cell means in a platform's export (available, no count), said when it cannot create.
    var stockUnstated: String?
    /// Prices and discounts in whole amounts only: a 2021 server takes no cents
    /// (`validate --api 2021`, and every run against such a server).
    public var wholeAmounts = false
    /// What an empty stock cell means for a new product (`--default-stock N`); nil: the row
    /// cannot create a product. An update keeps the shop's stock either way.
    public var defaultStock: Int?
    /// Descriptions in HTML (another platform's export) are sent as they are instead of as
    /// the text a buyer would read (`--keep-html`).
    public var keepHTML = false
    /// No id column is read (`--ignore-id`): rows are matched by key or name only.
    public var ignoreID = false
    /// A row without the merchant's key, in a platform's file whose own code stands beside it
    /// (Cafe24, SmartStore), is matched by its name (`--key-by name`); otherwise it fails.
    public var keyByName = false
    /// Why a row without a key fails (set from the file: a platform's file that needs its key column).
    var keyUnstated: String?
    /// Why a row with an empty key (and no id) fails in a sheet of our columns that has a key
    /// column: matched by its name it could change another product of that name.
    var keyEmpty: String?
    /// The merchant answers on a page, not with flags (the console): a message names the page's
    /// form or button where the command line's names a flag.
    public var answersOnPage = false

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
    /// The options as given, with what the file says added (a platform's export); held once and
    /// shared by the rules of every row.
    private let shared: SharedOptions
    public var options: ValidationOptions { shared.value }
    /// Where the image cells lead, checked once per reference.
    private let images: ImageReferences
    /// What `warm` read, kept so that the reads are not left out as unused.
    var warmed: UInt32 = 0
    /// Hashes of keys and names seen, with the row that had them first.
    let keys = RowHashes()
    let names = RowHashes()
    /// CSV cells were neutralised against formulas when written; JSON values were not.
    private let restore: (String) -> String

    /// The file's own headers of our columns, where they are not our names.
    private let headers: [String: String]

    public init(reader: ManifestReader, options: ValidationOptions) {
        self.file = reader.url.lastPathComponent
        var options = options
        if let export = reader.mapping?.export {
            options.htmlExpected = true
            if options.defaultStock == nil {
                options.stockUnstated = options.answersOnPage
                    ? "a stock count: \(export.title) says it is available without a count; choose above what a new product starts with"
                    : "a stock count: \(export.title) says it is available without a count; run with --default-stock N (what a new product starts with)"
            }
            if let header = export.keyHeader, !options.keyByName {
                let absent = reader.columns.contains(.key) ? "is empty" : "is not in the file"
                let way = options.answersOnPage
                    ? "fill it with your own product codes and check the sheet again"
                    : "fill it with your own product codes, or run with --key-by name to match such rows by their name"
                options.keyUnstated = "\(header) (your own product code) \(absent): the platform's own product number is not a product of this shop and never a key; \(way)"
            }
            if options.currency == nil, export.asksCurrency {
                options.currencyUnstated = options.answersOnPage
                    ? "needs a currency: \(export.title) does not say it; choose above the currency its prices are in"
                    : "needs a currency: \(export.title) does not say it; run with --currency USD (the currency its prices are in)"
            }
        }
        if reader.mapping == nil, reader.columns.contains(.key), !options.keyByName, options.keyUnstated == nil {
            let header = reader.header(of: .key) ?? Column.key.rawValue
            let way = options.answersOnPage ? "write its key and check the sheet again"
                : "write its key, or run with --key-by name to match rows without one by their name"
            options.keyEmpty = "the sheet has a key column (\(header)) and this row's is empty: it is not matched by its name, which could change another product of that name; \(way)"
        }
        shared = SharedOptions(options)
        var headers: [String: String] = [:]
        for column in Column.allCases { if let own = reader.header(of: column) { headers[column.rawValue] = own } }
        // The merchant's key column a platform's file leaves out is still named on its rows.
        if headers[Column.key.rawValue] == nil, let own = reader.mapping?.export?.keyHeader { headers[Column.key.rawValue] = own }
        self.headers = headers
        let restore: @Sendable (String) -> String
        if reader.format == .csv {
            restore = { CSVCell.restore($0) }
        } else {
            restore = { $0 }
        }
        self.restore = restore
        images = ImageReferences(
            root: options.imagesDirectory ?? reader.url.deletingLastPathComponent(),
            baseURL: options.imagesBaseURL,
            confined: options.confinePhotos ? options.photoFolders : nil,
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
                                   message: "no column says which product a row is: add key (or sku, 상품코드), id, or name"
                                       + (Self.looksLikePlatform(reader.unknownColumns) ? Self.mapWay : "")))
        }
        issues += reader.fileNotes
        if !reader.unknownColumns.isEmpty {
            issues.append(RowIssue(file: file, row: 1, column: nil, value: reader.unknownColumns.joined(separator: ", "),
                                   severity: .warning, rule: "column-unknown",
                                   message: "unknown columns are ignored; known: \(Column.known)"))
        }
        return issues
    }

    /// A header of many columns openmarket does not know, in Korean: another marketplace's file.
    public static func looksLikePlatform(_ headers: [String]) -> Bool {
        headers.filter { $0.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) } }.count >= 4
    }

    /// The way on for a file no shipped map recognises but that looks like a marketplace's.
    public static let mapWay = "; it looks like another platform's file, which a column map reads: "
        + "`openmarket template --map NAME --out mine.toml` starts one from a shipped map (`openmarket template --help` lists them), "
        + "then `--map mine.toml` uses it (docs/maps.md)"

    /// What `check` found in one row on its own, before the rules across rows.
    struct RowCheck {
        var draft: ProductDraft?
        var issues: [RowIssue]
        var key: String?
        /// The name, when its length is right (only then is it compared with others).
        var name: String?
        /// Where a duplicate-name warning goes among the issues.
        var nameIssueIndex = 0
        /// The row has neither key nor id: its name says which product it is.
        var nameIsIdentity = false
        /// The key's and the name's hashes, made on the checking thread (`acrossRows` runs on
        /// one thread for the whole file: it only looks them up).
        var keyHash: UInt64 = 0
        var nameHash: UInt64 = 0
    }

    /// Sizes the tables of keys and names for about `rows` rows at once: growing
    /// them step by step holds the old and the new table together at every step.
    public func reserve(rows: Int) {
        let rows = min(max(rows, 0), 50_000_000)
        keys.reserve(rows)
        names.reserve(rows)
    }

    /// Validates one row. Returns the draft when it has no error.
    public func validate(_ raw: RawRow) -> (draft: ProductDraft?, issues: [RowIssue]) {
        acrossRows(check(raw), row: raw.number)
    }


    /// What names a row's product, read from its cells as `check` reads them, whether
    /// or not the row is valid.
    public func identity(of raw: RawRow) -> RowIdentity {
        func text(_ column: Column) -> String? {
            guard let value = raw.values[column] else { return nil }
            let trimmed = Self.trimmed(value)
            return trimmed.isEmpty ? nil : restore(trimmed)
        }
        return RowIdentity(row: raw.number, key: text(.key), id: options.ignoreID ? nil : text(.id).flatMap { Int($0) }, name: text(.name))
    }

    /// The value that clears a description (a blank cell keeps the live one).
    public static let clearMarker = "[clear]"

    /// A description as a cell holds it: a text that reads as the clear marker (`[clear]`, or
    /// it after apostrophes) is written with one apostrophe more, so that import reads it back
    /// as that text, never as "empty the description". Every format the same.
    public static func descriptionCell(_ text: String) -> String {
        let trimmed = trimmed(text)
        return isMarker(trimmed, escaped: true) ? "'" + trimmed : text
    }

    /// Whether a trimmed cell is the marker (`escaped`: with one or more apostrophes before it).
    static func isMarker(_ cell: String, escaped: Bool) -> Bool {
        guard escaped else { return cell == clearMarker }
        let rest = cell.drop { $0 == "'" }
        return rest == clearMarker[...]
    }

    /// The rules of one row on its own. Thread-safe: rows can be checked on several threads.
    ///
    /// A value that is there must be right (an error otherwise). A value that is not
    /// there (blank cell, missing column) keeps the live product's; what a new product
    /// needs (name, price, photos) is kept in `createProblems`, an error only for a row
    /// that creates (and a warning for `validate`, which does not know the shop).
    func check(_ raw: RawRow) -> RowCheck {
        var rules = RowRules(raw: raw, file: file, options: shared, restore: restore)
        let (key, id) = rules.identity()
        let nameIssueIndex = rules.issues.count
        let (name, comparedName) = rules.name(key: key, id: id)
        let description = rules.description()
        let (currency, price, discount) = rules.money()
        let (stock, stockDelta) = rules.stock()
        let vendor = rules.vendor()
        let images = self.images.sources(raw, key: key, issue: { column, value, rule, message, severity in
                                             rules.issue(column, value, rule, message, severity) },
                                         needed: { value, rule, message in rules.needed(.images, value, rule, message) })
        if !images.isEmpty { rules.given.insert(.images) }

        let hasError = rules.issues.contains { $0.severity == .error }
        // validate shows what a new product would lack, as warnings after the errors.
        // A sheet with no stock column is said once for the file (`ManifestCheck`), not on every row.
        var shown = rules.issues
        // A row not on sale never makes a product: what a new one would lack is not its concern.
        if raw.origin?.offSale != nil { rules.createProblems.removeAll() }
        for problem in rules.createProblems where problem.rule != "stock-missing" {
            var warning = problem
            warning.severity = .warning
            shown.append(warning)
        }
        if !headers.isEmpty {
            for index in shown.indices { shown[index].header = shown[index].column.flatMap { headers[$0] } }
            for index in rules.createProblems.indices { rules.createProblems[index].header = rules.createProblems[index].column.flatMap { headers[$0] } }
        }
        // Each part made where it stays and moved on (a copy retained and released each of its texts).
        var draft: ProductDraft? = nil
        if !hasError, let code = currency {
            var createProblems: [RowIssue] = []
            swap(&createProblems, &rules.createProblems)
            draft = ProductDraft(row: raw.number, key: key, id: id,
                                 fields: Product(name: name, description: description, price: Money(price ?? 0), currency: code,
                                                 discountedPrice: Money(discount), stock: stock),
                                 images: images, given: rules.given, stockDelta: stockDelta, vendor: vendor,
                                 createProblems: createProblems, origin: raw.origin)
        }
        let keyHash = key.map(Self.comparableHash) ?? 0, nameHash = comparedName.map(Self.hash) ?? 0
        return RowCheck(draft: consume draft, issues: consume shown, key: key, name: comparedName, nameIssueIndex: nameIssueIndex,
                        nameIsIdentity: key == nil && id == nil, keyHash: keyHash, nameHash: nameHash)
    }
}
