import BulkImport
import CatalogExport
import Foundation
import Manifest
import OpenMarketAPI
import Support

/// `openmarket migrate`: the products of one account (or server) imported into
/// another, as a stream. The source is scanned like an export, each product's
/// detail read on `jobs` threads, and handed in id order to an `ImportRun` on
/// the target, whose stages download the photos from the source (only those in
/// flight are held), shrink them if needed, and register the products with the
/// import's journal, resume and report. Each product's journal key is its id on
/// the source, so a second run creates nothing twice.
public final class Migration: @unchecked Sendable {
    public let source: OpenMarketClient
    public let run: ImportRun
    public let filter: CatalogFilter
    public var perPage = 100
    /// Detail readers on the source.
    public var jobs = 4
    public var maxPasses = 4
    /// Progress of the listing: pages read, the source's last page.
    public var onListing: (@Sendable (_ page: Int, _ lastPage: Int) -> Void)?

    /// What the source side saw.
    public struct SourceSummary: Sendable {
        public var scan: CatalogScan.Result
        /// Listed, then gone before their details were read.
        public var deleted: Int
    }

    public init(source: OpenMarketClient, run: ImportRun, filter: CatalogFilter) {
        self.source = source
        self.run = run
        self.filter = filter
    }

    /// The journal key of a source product.
    public static func key(forSourceID id: Int) -> String { "source-product-\(id)" }

    /// Runs the migration. Blocking: call from a thread of its own.
    public func migrate() throws -> (ImportSummary, SourceSummary) {
        let scan = CatalogScan(client: source, filter: filter, perPage: perPage, maxPasses: maxPasses)
        scan.isStopped = { [run] in run.isStopping }
        let listing = onListing
        scan.onPage = { page, lastPage in listing?(page, max(page, lastPage)) }
        let listed: CatalogScan.Result
        do {
            listed = try scan.run()
        } catch is CancellationError {
            listed = .empty
        }
        let ids = listed.ids
        let source = self.source
        var deleted = 0
        let summary = try run.run(rows: ids.count) { submit, reject in
            OrderedWork.run(
                count: ids.count, jobs: jobs, window: jobs * 8,
                isStopped: { [run] in run.isStopping },
                work: { index -> Result<ProductDetail, OpenMarketError> in
                    do throws(OpenMarketError) { return .success(try source.product(id: ids[index])) } catch { return .failure(error) }
                },
                deliver: { index, result in
                    let id = ids[index]
                    let key = Self.key(forSourceID: id)
                    switch result {
                    case .success(let detail) where detail.summary.id != id:
                        reject(.failed(row: index + 1, key: key, name: detail.summary.name,
                                       error: "the source answered the request for product \(id) with product \(detail.summary.id)"))
                    case .success(let detail):
                        submit(Self.draft(detail, row: index + 1, key: key))
                    case .failure(let error) where error.status == 404:
                        deleted += 1
                        reject(.skipped(row: index + 1, key: key, note: "product \(id) was deleted from the source during the migration"))
                    case .failure(let error):
                        reject(.failed(row: index + 1, key: key, name: "product \(id)", error: "reading it from the source: \(error)"))
                    }
                })
        }
        return (summary, SourceSummary(scan: listed, deleted: deleted))
    }

    /// A source product as a row to import: its photos are fetched from the source by URL.
    static func draft(_ detail: ProductDetail, row: Int, key: String) -> ProductDraft {
        let entry = ManifestEntry(detail, images: (detail.images ?? []).map(\.url))
        return ProductDraft(row: row, key: key, id: nil, name: entry.name, description: entry.description, price: entry.price,
                            currency: entry.currency, discountedPrice: entry.discountedPrice, stock: entry.stock,
                            images: entry.images.map { .url($0) })
    }
}
