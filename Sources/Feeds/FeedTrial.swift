import Foundation
import Manifest

/// `feed test`: a supplier's file read through a feed, nothing sent. For the first rows,
/// the supplier's cells next to our fields and the rule that made the price; after them,
/// the rows that fail or that the filter leaves out.
public enum FeedTrial {
    /// One row as the trial shows it.
    public struct Row: Sendable {
        public var number: Int
        /// The supplier's cells, in file order.
        public var cells: [SupplierCell]
        /// Our fields as the row sets them (the checked values when the row is valid).
        public var fields: [(column: Column, value: String)]
        public var explanations: [Column: String]
        public var protected: ColumnSet
        public var skipped: String?
        public var issues: [RowIssue]
        /// Among the first rows (shown whole), or after them (shown when it fails or is left out).
        public var isFirst: Bool

        public var hasError: Bool { issues.contains { $0.severity == .error } }
    }

    public struct Result: Sendable {
        public var summary: ValidationSummary
        /// The supplier's columns no part of the feed reads.
        public var unused: [String]
    }

    /// Reads `url` through `feed`; `onRow` sees the first `first` rows and, after them, those
    /// that fail or are left out.
    public static func run(_ url: URL, feed: Feed, options: ValidationOptions, first: Int,
                           onFileIssue: (RowIssue) -> Void, onRow: (Row) -> Void) throws(ManifestError) -> Result {
        var options = options
        options.mapping = FeedMapping(feed: feed, keepCells: true)
        var seen = 0
        var unused: [String]?
        let summary = try ManifestCheck.run(url, encoding: options.encoding, delimiter: options.delimiter, options: options,
                                            onFileIssue: onFileIssue) { raw, draft, issues in
            seen += 1
            let cells = raw.origin?.cells ?? []
            if unused == nil { unused = unusedHeaders(cells.map(\.header), feed: feed) }
            let row = Row(number: raw.number, cells: cells, fields: fields(raw, draft), explanations: raw.origin?.explanations ?? [:],
                          protected: raw.origin?.protected ?? [], skipped: raw.origin?.skipped, issues: issues, isFirst: seen <= first)
            if row.isFirst || row.hasError || row.skipped != nil { onRow(row) }
        }
        return Result(summary: summary, unused: unused ?? [])
    }

    /// Our fields in manifest order: the checked draft's when the row is valid, else the cells as mapped.
    static func fields(_ raw: RawRow, _ draft: ProductDraft?) -> [(column: Column, value: String)] {
        guard let draft else {
            return Column.allCases.compactMap { column in raw.values[column].flatMap { $0.isEmpty ? nil : (column, $0) } }
        }
        return Column.allCases.compactMap { column -> (Column, String)? in
            switch column {
            case .key: return draft.key.map { (column, $0) }
            case .id: return draft.id.map { (column, String($0)) }
            default: break
            }
            guard draft.given.contains(column) else { return nil }
            switch column {
            case .name: return (column, draft.fields.name)
            case .description: return (column, draft.fields.description)
            case .price: return (column, PricePolicy.grouped(draft.fields.price.amount))
            case .currency: return (column, draft.fields.currency)
            case .discountedPrice: return (column, PricePolicy.grouped(draft.fields.discountedPrice.amount))
            case .stock: return (column, draft.stockDelta.map { $0 >= 0 ? "+\($0)" : "\($0)" } ?? String(draft.fields.stock))
            case .images: return (column, draft.images.map(\.display).joined(separator: "; "))
            // Read into the discount (shown there); not a field of its own.
            case .key, .id, .salePrice, .vendor: return nil
            }
        }
    }

    /// Headers of the file that the feed neither maps nor tests.
    static func unusedHeaders(_ headers: [String], feed: Feed) -> [String] {
        let referenced = feed.referencedHeaders
        return headers.enumerated().compactMap { index, header in
            guard !header.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            let used = referenced.contains {
                switch $0 {
                case .header(let text): HeaderMatch.normalise(text) == HeaderMatch.normalise(header)
                case .position(let position): position == index
                case .slot(let position, _): position == index
                }
            }
            return used ? nil : header
        }
    }
}
