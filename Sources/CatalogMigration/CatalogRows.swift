import CatalogExport
import CatalogSync
import Foundation
import Manifest
import OpenMarketAPI
import ShopState
import Support

/// Another shop's catalog as the rows of a sync (`openmarket migrate`): the products of one
/// account (or server) made into another. The source is scanned like an export, each product's detail read on
/// `jobs` threads and handed in id order to the sync, whose stages download the photos
/// from the source (only those in flight are held), shrink them if needed and register the
/// products with the journal, the run record and the report.
///
/// A product is known on the target as it is on the source: by its merchant key from the
/// source account's link store (with the hashes of the photos its merchant sent, so that
/// the merchant's sheet matches it there too), else by its name, as import knows a row
/// without a key. A second run creates nothing twice, and the merchant's sheet imported into
/// the target afterwards finds every product.
public final class CatalogRows: RowSource, @unchecked Sendable {
    public let source: any Shop
    public let filter: CatalogFilter
    /// What the source account's link store knows, by product id (none: every product by name).
    public let sourceLinks: [Int: ProductLink]
    public var perPage = 100
    /// Detail readers on the source.
    public var jobs = 4
    public var maxPasses = 4
    /// Progress of the listing: pages read, the source's last page.
    public var onListing: (@Sendable (_ page: Int, _ lastPage: Int) -> Void)?
    public let label: String
    public var kind: RunKind { .migrate }
    public var manifest: URL? { nil }
    /// One journal per source account and target account.
    public var journalName: String? {
        "migrate-from-\(FNV.tag(source.address + "|" + (source.writer?.account ?? "")))"
    }

    /// What the source side saw.
    public struct SourceSummary: Sendable {
        public var scan: CatalogScan.Result
        /// Listed, then gone before their details were read.
        public var deleted: Int
        /// Source product id → the target product it became (created, found or unchanged).
        public var copied: [Int: Int] = [:]
    }

    private let lock = NSLock()
    private var seen = SourceSummary(scan: .empty, deleted: 0)
    /// The listed ids, by row (row N is `listedIDs[N - 1]`).
    private var listedIDs: [Int] = []
    /// What the source side saw, once `rows(into:)` returned.
    public var sourceSummary: SourceSummary { lock.withLock { seen } }

    public init(source: any Shop, filter: CatalogFilter, sourceLinks: [Int: ProductLink] = [:]) {
        self.source = source
        self.filter = filter
        self.sourceLinks = sourceLinks
        self.label = "the products of \(source.address)"
    }

    /// The source account's links by product id, from its link store (none when it has none).
    public static func links(of account: AccountState?) throws -> [Int: ProductLink] {
        guard let store = try account?.store() else { return [:] }
        var byID: [Int: ProductLink] = [:]
        for link in try store.all().values where link.state == .linked {
            if let id = link.productID { byID[id] = link }
        }
        return byID
    }

    public func rows(into sink: any RowSink) throws {
        let scan = CatalogScan(client: source, filter: filter, perPage: perPage, maxPasses: maxPasses)
        scan.isStopped = { [sink] in sink.isStopping }
        let listing = onListing
        scan.onPage = { page, lastPage in listing?(page, max(page, lastPage)) }
        let listed: CatalogScan.Result
        do {
            listed = try scan.run()
        } catch is CancellationError {
            listed = .empty
        }
        let ids = listed.ids
        lock.withLock {
            seen.scan = listed
            listedIDs = ids
        }
        let source = self.source
        try sink.rows(count: ids.count, exact: true, listed: nil) { feed in
            OrderedWork.run(
                count: ids.count, jobs: jobs, window: jobs * 8,
                isStopped: { [sink] in sink.isStopping },
                work: { index -> Result<ProductDetail, OpenMarketError> in
                    do throws(OpenMarketError) { return .success(try source.product(id: ids[index])) } catch { return .failure(error) }
                },
                deliver: { [self] index, result in
                    let id = ids[index]
                    let key = sourceLinks[id]?.merchantKey ?? ""
                    switch result {
                    case .success(let detail) where detail.summary.id != id:
                        feed.reject(.failed(row: index + 1, key: key, name: detail.summary.name,
                                            error: "the source answered the request for product \(id) with product \(detail.summary.id)"))
                    case .success(let detail):
                        feed.submit(Self.draft(detail, row: index + 1, link: sourceLinks[id]))
                    case .failure(let error) where error.status == 404:
                        lock.withLock { seen.deleted += 1 }
                        feed.reject(.skipped(row: index + 1, key: key, note: "product \(id) was deleted from the source during the migration"))
                    case .failure(let error):
                        feed.reject(.failed(row: index + 1, key: key, name: "product \(id)", error: "reading it from the source: \(error)"))
                    }
                })
        }
    }

    /// A finished row that became a target product: the source product it was.
    public func finished(_ outcome: RowOutcome) {
        guard let target = outcome.productID, !outcome.isFailure else { return }
        lock.withLock {
            guard outcome.row >= 1, outcome.row <= listedIDs.count else { return }
            seen.copied[listedIDs[outcome.row - 1]] = target
        }
    }

    /// A source product as a row: its photos are fetched from the source by URL; its key
    /// and its photos' identity are the source link's.
    static func draft(_ detail: ProductDetail, row: Int, link: ProductLink?) -> ProductDraft {
        let entry = ManifestEntry(detail, images: (detail.images ?? []).map(\.url))
        var draft = ProductDraft(row: row, key: link?.merchantKey, id: nil, name: entry.fields.name,
                                 description: entry.fields.description, price: entry.fields.price, currency: entry.fields.currency,
                                 discountedPrice: entry.fields.discountedPrice, stock: entry.fields.stock, images: entry.images.map { .url($0) })
        if let photos = link?.photos, photos.count == draft.images.count { draft.knownPhotoHashes = photos }
        return draft
    }
}
