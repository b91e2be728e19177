import Foundation

public enum ManifestFormat: String, Sendable, CaseIterable {
    case csv, json, jsonl, xlsx

    /// The sheets openmarket reads, by extension, in the order help and pages list them: the
    /// one list the reader, the console's upload field and sheet list, the feeds and the help use.
    public static let extensions: [(name: String, format: ManifestFormat)] = [
        ("csv", .csv), ("tsv", .csv), ("txt", .csv), ("xlsx", .xlsx), ("xlsm", .xlsx), ("ods", .xlsx),
        ("json", .json), ("jsonl", .jsonl), ("ndjson", .jsonl),
    ]

    /// The format a file's extension names; nil: not a sheet's extension.
    public static func named(_ url: URL) -> ManifestFormat? {
        let given = url.pathExtension.lowercased()
        return extensions.first { $0.name == given }?.format
    }

    /// Whether a file of this name is a sheet openmarket reads (by its extension).
    public static func isSheet(_ url: URL) -> Bool { named(url) != nil }

    /// The extensions as help says them: `.csv, .tsv, … or .ndjson`.
    public static var extensionsSaid: String {
        let names = extensions.map { "." + $0.name }
        return names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    }

    /// By extension (`extensions`); anything else is CSV (or TSV), unless it starts as a zip
    /// archive does (a workbook saved under another name).
    public init(url: URL) {
        if let known = Self.named(url), known != .csv {
            self = known
            return
        }
        let head = (try? FileHandle(forReadingFrom: url)).flatMap { try? $0.read(upToCount: 4) }
        self = head == Data([0x50, 0x4B, 0x03, 0x04]) ? .xlsx : .csv
    }

    /// Formats whose first row (CSV) or found header row (a sheet) names the columns.
    var hasHeaderRow: Bool { self == .csv || self == .xlsx }
}
