import Foundation
import Support
import Manifest
import OpenMarketContract

/// What `export` writes for each product's photos.
public enum ExportImages: String, Sendable, CaseIterable, Codable {
    /// No files: the manifest lists the server's image URLs (import downloads them).
    case none
    /// The server's thumbnails, downloaded.
    case thumbnails
    /// The full images, downloaded.
    case originals
}

/// Which products an export or a migration takes.
public struct CatalogFilter: Sendable, Equatable, Codable {
    public enum Vendor: Sendable, Equatable, Codable {
        /// The authenticated vendor's products (found by asking the server which are ours).
        case me
        case id(Int)
    }

    public var vendor: Vendor?
    /// Passed to the server as `search_value` (a substring of the name).
    public var search: String?
    /// Only products created at or after this time.
    public var since: Date?

    public init(vendor: Vendor? = nil, search: String? = nil, since: Date? = nil) {
        self.vendor = vendor
        self.search = search
        self.since = since
    }

    public var isEmpty: Bool { vendor == nil && (search ?? "").isEmpty && since == nil }
}

public struct ExportOptions: Sendable {
    /// The folder the manifest, `images/` and `checksums.sha256` go to.
    public var directory: URL
    public var format: ManifestFormat = .csv
    public var images: ExportImages = .originals
    public var filter = CatalogFilter()
    /// Page size asked for; lowered when the server refuses or caps it.
    public var perPage = 100
    /// Detail and image workers: where they start, and with `adaptiveJobs` how many are found
    /// while the export goes (as an import's writes: more while the server answers as fast,
    /// fewer when it queues or says 429), up to `maxJobs`.
    public var jobs = 4
    public var adaptiveJobs = false
    /// The ceiling of adaptive workers (each an idle thread when not needed: a read holds no photo long).
    /// An export makes four reads a product (its detail and three photos) where an import makes one
    /// write: at 50 ms a request, 32 at once took 1.6–1.8× the import of the same catalog, 64 about as long.
    public var maxJobs = 64
    /// Continue an interrupted export in `directory`.
    public var resume = false
    /// Start over even when `directory` holds an earlier export.
    public var overwrite = false
    /// Largest image file downloaded.
    public var maxImageBytes = ServerLimits.maxDownloadBytes
    /// Full passes over the pages at most (the first one included).
    public var maxPasses = 4
    /// Merchant keys by product id (from the account's link store): the `key` column.
    public var keys: [Int: String] = [:]

    public init(directory: URL) {
        self.directory = directory
    }

    /// The manifest's file name for the format.
    public var manifestName: String {
        switch format {
        case .csv: "products.csv"
        case .json: "products.json"
        case .jsonl: "products.jsonl"
        case .xlsx: "products.xlsx"
        }
    }
}
