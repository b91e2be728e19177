/// A file whose headers are not ours (a supplier's, `상품코드, 상품명, 공급가…`) read
/// through a map into our columns. The reader asks the map which headers it knows
/// (to find a sheet's header row), binds it to the file's header once, then hands
/// it each row's cells by position. The feeds module makes one from a feed file.
public protocol HeaderMapping: Sendable {
    /// Whether the map reads a header of this text (a sheet's header row is the first
    /// that names two of them).
    func knows(header: String) -> Bool

    /// The map bound to a file's headers (position from 0, text). Throws when a header
    /// the map needs is not there (naming it, and the closest header the file has).
    func bind(headers: [(Int, String)], file: String) throws(ManifestError) -> any BoundHeaderMapping

    /// The export this map reads, when it reads another platform's ("a Shopify product
    /// export"), and whether such a file states no currency. Nil for a supplier's map.
    var export: ExportKind? { get }

    /// The same map keeping each row's cells as the file has them (`RowOrigin.cells`): for
    /// `feed test`, and for the rows to fix in the file's own columns.
    func keepingCells() -> any HeaderMapping
}

extension HeaderMapping {
    public var export: ExportKind? { nil }
    public func keepingCells() -> any HeaderMapping { self }
}

/// Another platform's export, as its map knows it.
public struct ExportKind: Sendable {
    public var title: String
    public var asksCurrency: Bool
    /// The header of the merchant's own code, when a row without it must not be matched by its
    /// name (the platform's own code stands beside it: Cafe24's `상품코드`).
    public var keyHeader: String?

    public init(title: String, asksCurrency: Bool, keyHeader: String? = nil) {
        self.title = title
        self.asksCurrency = asksCurrency
        self.keyHeader = keyHeader
    }
}

/// A map bound to one file's header.
public protocol BoundHeaderMapping: Sendable {
    /// Our columns the rows will have.
    var columns: ColumnSet { get }
    /// What the file as a whole lacks that is not an error (a column of the map the file
    /// does not have: a partial file), as warnings of row 1.
    var fileNotes: [RowIssue] { get }
    /// The cells of one row (by position; never all blank) as a row of our columns.
    /// Thread-safe: CSV rows are mapped on several threads.
    func row(_ cells: [String], number: Int, notes: [RowIssue]) -> RawRow
    /// The file's header one of our columns comes from (`stock` → `재고수량`), for messages.
    func source(of column: Column) -> String?
}

/// A map that reads a file's rows together: another platform's export, where one product's
/// rows are grouped by a column (Shopify's `Handle`) or name a parent row (WooCommerce's
/// `Parent`), its fields are written on the group's first row only and its photos on rows of
/// their own. `row` keeps each row's cells (`RowOrigin.record`); once the file is read,
/// `assemble` makes the products' rows of them, in file order.
public protocol GroupedMapping: BoundHeaderMapping {
    /// The products of `rows`, the first of them the `firstPosition`-th row read (not blank)
    /// under the header. A map that does not span rows is given each row as it is read.
    func assemble(_ rows: [RawRow], firstPosition: Int) -> [RawRow]
    /// The products of one row's cells (as `row` takes them), the `position`-th row read under
    /// the header, each handed to `body` as it is made: a map that does not span rows is given
    /// each row so, with no array of rows made for it.
    func products(_ cells: [String], number: Int, notes: [RowIssue], position: Int, each body: (RawRow) -> Void)
    /// Whether a product is made of several rows of the file (a Shopify product's rows), not
    /// only several products of one row (options).
    var spansRows: Bool { get }
}

extension GroupedMapping {
    public func products(_ cells: [String], number: Int, notes: [RowIssue], position: Int, each body: (RawRow) -> Void) {
        for product in assemble([row(cells, number: number, notes: notes)], firstPosition: position) { body(product) }
    }
}

/// A map a sheet's header chooses by itself: another platform's product export, read with
/// the map shipped for it (`--map` chooses another, or none).
public protocol PlatformMap: HeaderMapping {
    /// What the file is, as the note says it: "a Shopify product export".
    var title: String { get }
    /// The same in Korean ("쇼피파이 상품 내보내기"), when the map says it.
    var koreanTitle: String? { get }
    /// The map's name (`Shopify`), as the note says it.
    var mapName: String { get }
    /// Whether a header row (as written) is this platform's.
    func matches(headers: [String]) -> Bool
    /// The platform's own columns, told by a header even where this map does not read the sheet.
    var platformColumns: PlatformColumns? { get }
}

extension PlatformMap {
    public var koreanTitle: String? { nil }
}

/// What a map made of a supplier's row, beside the values.
public struct RowOrigin: Sendable, Equatable {
    /// Why the feed's filter leaves the row out, or nil when it does not.
    public var skipped: String?
    /// The same as a phrase of the word table and its blanks, for a reader of another language.
    public var skippedWords: PhraseRef?
    /// The row says its product is not on sale (`판매상태` 품절, a past end date): it takes a
    /// product the shop holds off sale (stock 0) and never makes one.
    public var offSale: OffSale?
    /// How a value was made, by column: `cost 8,200, markup 30 %, up to 100`.
    public var explanations: [Column: String] = [:]
    /// Fields set when a product is made and never overwritten after.
    public var protected: ColumnSet = []
    /// The supplier's cells (header, value) in file order, when the map keeps them
    /// (`feed test`).
    public var cells: [SupplierCell]?
    /// The row's cells by position, kept by a `GroupedMapping` until the file is read.
    public var record: [String]?

    public init(skipped: String? = nil, explanations: [Column: String] = [:], protected: ColumnSet = [],
                cells: [SupplierCell]? = nil) {
        self.skipped = skipped
        self.explanations = explanations
        self.protected = protected
        self.cells = cells
    }
}

/// Why a row says its product is not on sale: the column and the value that say so
/// (`판매상태` = `품절`), or the end date passed (`판매종료일` = `2026-11-30`). A reference, so
/// that every row's draft carries one word for it (nil on nearly all rows), not two texts.
public final class OffSale: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable { case status, ended }
    public let kind: Kind
    public let column: String
    public let value: String

    public init(kind: Kind = .status, column: String, value: String) {
        self.kind = kind
        self.column = column
        self.value = value
    }

    public static func == (lhs: OffSale, rhs: OffSale) -> Bool {
        lhs.kind == rhs.kind && lhs.column == rhs.column && lhs.value == rhs.value
    }

    public var description: String { "\(column)=\(value)" }
}

/// One of a supplier's cells, with its header.
public struct SupplierCell: Sendable, Equatable {
    public var header: String
    public var value: String

    public init(header: String, value: String) {
        self.header = header
        self.value = value
    }
}

/// A phrase of the word table (`Words`), named below it: its key and its blanks.
public struct PhraseRef: Sendable, Equatable {
    public var key: String
    public var terms: [String]

    public init(_ key: String, _ terms: [String]) {
        self.key = key
        self.terms = terms
    }
}
