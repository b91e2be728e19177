import Foundation
import Manifest

/// A supplier's feed as a feed file describes it (see `FeedFile` for the TOML): which of
/// the supplier's columns are our fields, the values that are the same on every row, the
/// supplier's words for values, how a selling price is made from a cost, the rows left out,
/// and the fields set only when a product is made. Values only: one feed file per shop,
/// several for one supplier's feed to several shops.
public struct Feed: Sendable {
    /// The file's name without `.toml` (how `feed run` and reports name it).
    public var name: String
    /// Where it was read from.
    public var url: URL
    /// Our field ← the supplier's column, in the file's order.
    public var columns: [(field: Column, source: HeaderRef)] = []
    /// Our fields made of more than one column (a template, the first of several, a choice;
    /// see `ValueSpec`), in manifest order.
    public var values: [(field: Column, spec: ValueSpec)] = []
    /// How a platform's export spreads a product over its rows (nil: a row is a product).
    public var layout: RowLayout?
    /// Where the products' photos are, when a map gathers them (nil: the images column).
    public var photos: PhotoRule?
    /// Options held in one row, each a product of its own (nil: a row is one product).
    public var options: OptionRule?
    /// How a sheet's header chooses this map by itself (a shipped map).
    public var detect: MapDetection?
    /// The supplier's cost price, from which `prices` makes the selling price.
    public var cost: HeaderRef?
    /// The same value on every row, by field.
    public var constants: [Column: String] = [:]
    /// The supplier's words and what they mean, by field (`[maps.stock]`), and for the cost (`[maps.cost]`).
    public var maps: [Column: ValueMap] = [:]
    public var costMap: ValueMap?
    public var prices: PricePolicy?
    public var filter = RowFilter()
    public var protected: ColumnSet = []
    /// What `feed run` needs: where the file comes from, which shop, how to sync, the
    /// checks that hold a bad file, whom to tell (see `FeedRunSettings`).
    public var run = FeedRunSettings()

    public init(name: String, url: URL) {
        self.name = name
        self.url = url
    }

    /// Every supplier column the feed reads (mapped, or tested by a rule or the filter).
    var referencedHeaders: [HeaderRef] {
        var all = columns.map(\.source) + values.flatMap(\.spec.headers)
        if let cost { all.append(cost) }
        all += filter.skip.map(\.source) + filter.only.map(\.source) + filter.active.map(\.source) + filter.ends
        all += (layout?.headers ?? []) + (photos?.headers ?? []) + (options?.headers ?? [])
        all += (prices?.rules ?? []).flatMap { $0.when.map(\.source) }
        var seen = Set<HeaderRef>()
        return all.filter { seen.insert($0).inserted }
    }
}

/// A supplier's column: by its header, or by its position (`#3`, the third).
public enum HeaderRef: Sendable, Hashable, CustomStringConvertible {
    case header(String)
    /// From 0.
    case position(Int)
    /// A column a map bound to a file found there once (`BoundFeed`): its place in the row
    /// (-1: not in the file), and the column as the map names it (what messages say). A row's
    /// cell is then read by its place, not looked up by its header's text every row.
    indirect case slot(Int, HeaderRef)

    init(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("#"), let number = Int(trimmed.dropFirst()), number >= 1 {
            self = .position(number - 1)
        } else {
            self = .header(trimmed)
        }
    }

    public var description: String {
        switch self {
        case .header(let text): text
        case .position(let index): "#\(index + 1)"
        case .slot(_, let named): named.description
        }
    }
}

/// The supplier's words for values (`"품절" = 0`): matched on the trimmed cell, exactly,
/// then ignoring letter case.
public struct ValueMap: Sendable, Equatable {
    public let entries: [String: String]
    private let lowered: [String: String]

    public init(entries: [String: String]) {
        self.entries = entries
        var lowered: [String: String] = [:]
        for (word, value) in entries where lowered[word.lowercased()] == nil { lowered[word.lowercased()] = value }
        self.lowered = lowered
    }

    /// `cell` is trimmed already.
    func apply(_ cell: String) -> String? {
        entries[cell] ?? lowered[cell.lowercased()]
    }
}

/// A test of a supplier's cell: it matches when the cell is one of `values` (trimmed,
/// letter case ignored).
public struct CellTest: Sendable, Equatable {
    public var source: HeaderRef
    public var values: [String] { didSet { lowered = Set(values.map { $0.lowercased() }) } }
    private var lowered: Set<String>

    public init(source: HeaderRef, values: [String]) {
        self.source = source
        self.values = values
        lowered = Set(values.map { $0.lowercased() })
    }

    /// `cell` is trimmed already (as the feed's rows give it).
    func matches(_ cell: String) -> Bool {
        values.contains(cell) || lowered.contains(cell.lowercased())
    }

    var text: String {
        "\(source) = \(values.count == 1 ? values[0] : values.joined(separator: " or "))"
    }
}

/// Rows left out: those matching any `skip` test, and (when there are `only` tests) those
/// matching none of them; and rows not for sale (`active` tests, e.g. Shopify's `Status =
/// "active"`), unless the merchant asks for them (`--include-inactive`). `why` says why a
/// skipped value is left out, by the value (`variable = "its variations are the products"`).
public struct RowFilter: Sendable, Equatable {
    public var skip: [CellTest] = []
    public var only: [CellTest] = []
    public var active: [CellTest] = []
    /// A sale's last day (`판매종료일`): a date before today says the row is not on sale.
    public var ends: [HeaderRef] = []
    public var why: [String: String] = [:]
    /// The same in Korean (`why_ko`), said to a Korean reader.
    public var whyKorean: [String: String] = [:]
}
