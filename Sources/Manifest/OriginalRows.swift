import Foundation

/// Rows of a file read through a platform's map, as the file has them: its header and the
/// cells of the rows asked for. The rows to fix of such a file are these, so that fixing them
/// and checking the sheet again reads them with the same map.
public struct OriginalRows: Sendable, Equatable {
    public var headers: [String]
    /// Each row's cells, in `headers`' order, by the row number a spreadsheet shows.
    public var rows: [Int: [String]]

    public init(headers: [String], rows: [Int: [String]]) {
        self.headers = headers
        self.rows = rows
    }
}

extension ManifestReader {
    /// The rows numbered `numbers` as the file has them, read again through its map keeping
    /// each row's cells. Nil for a file read as our own columns, and for a map that makes a
    /// product of several rows (a Shopify product's rows): one row back would lose the others.
    public static func originalRows(_ url: URL, encoding: TextEncoding?, delimiter: Character?, sheet: SheetChoice,
                                    mapping: any HeaderMapping, numbers: Set<Int>) throws -> OriginalRows? {
        guard !numbers.isEmpty else { return nil }
        let reader = try ManifestReader(url: url, encoding: encoding, delimiter: delimiter, sheet: sheet, mapping: mapping.keepingCells())
        if let grouped = reader.bound as? any GroupedMapping, grouped.spansRows { return nil }
        var found = OriginalRows(headers: [], rows: [:])
        while let raw = try reader.next() {
            guard numbers.contains(raw.number), found.rows[raw.number] == nil, let cells = raw.origin?.cells else { continue }
            if found.headers.isEmpty { found.headers = cells.map(\.header) }
            found.rows[raw.number] = cells.map(\.value)
        }
        return found.headers.isEmpty ? nil : found
    }
}
