import Foundation
import OpenMarketAPI

/// Lists a catalog's product ids page by page. Paging is not a snapshot:
/// products created during the scan shift later pages (an item is seen twice),
/// and deleted ones shift them back (an item slips between two pages). So ids
/// are deduplicated, and the scan starts again from page 1 until a full pass
/// finds nothing new, within `maxPasses`.
///
/// Bounded against a server that lies: a pass ends at an empty page, at
/// `hasNext: false`, at a page that repeats the one before, or well past the
/// last page the server itself announced.
public final class CatalogScan: @unchecked Sendable {
    public struct Result: Sendable, Equatable {
        /// Nothing listed (a scan stopped before its first page).
        public static let empty = Result(ids: [], passes: 0, totalCount: 0, seen: 0, appeared: 0, warnings: [], vendorID: nil)
        /// Products that pass the filter, in ascending id order (oldest first).
        public var ids: [Int]
        public var passes: Int
        /// The server's `totalCount` at the start of the last pass.
        public var totalCount: Int
        /// Distinct products seen, filtered out or not.
        public var seen: Int
        /// Products first seen after the first pass (created, or slipped between pages, meanwhile).
        public var appeared: Int
        /// What the server did that it should not have.
        public var warnings: [String]
        /// The vendor `--vendor me` turned out to be.
        public var vendorID: Int?
        /// Whether `totalCount` is the server's own count (a 2021 server gives none).
        public var countKnown = true
    }

    public let client: any Shop
    public let filter: CatalogFilter
    public private(set) var perPage: Int
    public let maxPasses: Int
    /// Pages asked for ahead of their turn (0: one at a time).
    public var pagesAhead = PageWalk.pagesInFlight
    /// After each page: its number and the server's last page.
    public var onPage: (@Sendable (_ page: Int, _ lastPage: Int) -> Void)?
    /// After each page: its products that pass the filter, as the page shows them (a backup
    /// keeps their fields from the list, without asking for each product).
    public var onProducts: (@Sendable ([ProductSummary]) -> Void)?
    /// Asked before each page; true ends the scan (it throws `CancellationError`).
    public var isStopped: @Sendable () -> Bool = { false }

    /// Pass 1's page 1 (its ids and count), and whether every page of it said the same count.
    private var firstPage: (ids: [Int], totalCount: Int)?
    /// Every page read gave the server's count.
    private var countKnown = true
    private var countSteady = true
    private var confirmedByFirstPage = false
    private var ids = Set<Int>()
    private var others = Set<Int>()
    private var myVendor: Int?
    private var notMine = Set<Int>()
    private var warnings: [String] = []
    /// Whether the server's pages are newest first (a 2021 server's are not: another pass
    /// is then the only way to see what changed while paging).
    private var newestFirst = true

    public init(client: any Shop, filter: CatalogFilter, perPage: Int, maxPasses: Int = 4) {
        self.client = client
        self.filter = filter
        self.perPage = max(1, perPage)
        self.maxPasses = max(2, maxPasses)
        if case .id(let id)? = filter.vendor { myVendor = id }
    }

    /// Scans; `state` records each page (and `recovered` continues an earlier scan).
    /// Scans with no export state (`migrate`).
    public func run() throws -> Result { try run(state: nil, recovered: nil) }

    func run(state: ExportState?, recovered: ExportState.Recovered?) throws -> Result {
        if filter.vendor == .me, client.writer == nil {
            throw ExportError("f_vendor_me")
        }
        var pass = 1
        var page = 1
        var appeared = 0
        var forceAnotherPass = false
        if let recovered {
            ids = recovered.ids
            others = recovered.others
            if let scanned = recovered.scanned {
                return Result(ids: ids.sorted(), passes: 0, totalCount: scanned.totalCount, seen: ids.count + others.count,
                              appeared: scanned.appeared, warnings: [], vendorID: nil)
            }
            if let last = recovered.lastPage {
                pass = last.pass
                page = last.page + 1
                if last.perPage > 0 { perPage = last.perPage }
                forceAnotherPass = pass > 1
            }
        }
        var totalCount = 0
        while pass <= maxPasses {
            let (newInPass, total) = try scanPass(pass, from: page, state: state)
            totalCount = total
            if pass > 1 { appeared += newInPass }
            if pass > 1 && newInPass == 0 && !forceAnotherPass { break }
            // Newest first, ids only growing: a product created meanwhile would be the newest,
            // one deleted would lower the count. The same newest product and the same count
            // throughout: nothing moved, and one small request confirms what a second pass would.
            if pass == 1 && page == 1 && !forceAnotherPass && newestFirst, let first = firstPage, countSteady, try unmoved(first) {
                confirmedByFirstPage = true
                break
            }
            forceAnotherPass = false
            if pass == maxPasses && newInPass > 0 {
                warnings.append("the catalog kept changing: pass \(pass) still found \(newInPass) new products; those created from now on are not in this export")
            }
            pass += 1
            page = 1
        }
        let result = Result(ids: ids.sorted(), passes: confirmedByFirstPage ? 1 : min(pass, maxPasses), totalCount: totalCount,
                            seen: ids.count + others.count, appeared: appeared, warnings: warnings, vendorID: myVendor)
        state?.record(.init(t: .scanned, totalCount: totalCount, appeared: appeared), sync: true)
        var counted = result
        counted.countKnown = countKnown
        return counted
    }

    /// One pass from page `first` through the shop's one pager (pages asked ahead, the page
    /// size negotiated on page 1); returns how many products it found that no pass had.
    private func scanPass(_ pass: Int, from first: Int, state: ExportState?) throws -> (new: Int, totalCount: Int) {
        var newInPass = 0
        var previous: [Int] = []
        var limit = Int.max
        var allowance = PageAllowance()
        var endless: ExportError?
        var totalCount = 0
        var stopped = false
        try client.eachPage(search: filter.search, perPage: perPage, from: first, ahead: pagesAhead) { walk throws(OpenMarketError) in
            if isStopped() { stopped = true; return false }
            let (page, result) = (walk.number, walk.page)
            perPage = walk.perPage
            newestFirst = result.newestFirst
            if !result.totalKnown {
                countKnown = false
                // No count (2021): the first empty page ends the pass.
                totalCount = result.totalCount
                if limit == Int.max { limit = 1_000_000 }
            } else if limit == Int.max {
                // The server's own count bounds the pass, with room for products created meanwhile.
                allowance.see(walk)
                limit = allowance.limit
                totalCount = result.totalCount
            }
            let pageIDs = result.pages.map(\.id)
            if pass == 1 {
                if page == 1 { firstPage = (pageIDs, result.totalCount) }
                if result.totalCount != firstPage?.totalCount { countSteady = false }
            }
            if !pageIDs.isEmpty && pageIDs == previous {
                warnings.append("page \(page) repeated page \(page - 1) although the server said there were more; pass \(pass) ended there")
                return false
            }
            previous = pageIDs
            var keptNew: [Int] = []
            var otherNew: [Int] = []
            for product in result.pages {
                guard !ids.contains(product.id), !others.contains(product.id) else { continue }
                if try passes(product, vendorsKnown: result.vendorsKnown) {
                    ids.insert(product.id)
                    keptNew.append(product.id)
                } else {
                    others.insert(product.id)
                    otherNew.append(product.id)
                }
            }
            newInPass += keptNew.count
            onProducts?(result.pages.filter { ids.contains($0.id) })
            state?.record(.init(t: .page, pass: pass, page: page, perPage: perPage, ids: keptNew, other: otherNew))
            onPage?(page, result.lastPage)
            if page >= limit, result.hasNext, !result.pages.isEmpty || !result.totalKnown {
                // A list that outgrows what it announced is not a catalog: the export fails rather
                // than write a part of it as if it were the whole.
                if let products = allowance.announcedProducts, let pages = allowance.announcedPages {
                    endless = ExportError("f_export_endless", String(page), String(pages), String(products))
                    return false
                }
                warnings.append("the server still said hasNext at page \(page), far past its last page (\(result.lastPage)); pass \(pass) ended there")
                return false
            }
            return true
        }
        if stopped { throw CancellationError() }
        if let endless { throw endless }
        return (newInPass, totalCount)
    }

    /// The newest product and the count again (a page of one), against the start of the pass.
    private func unmoved(_ first: (ids: [Int], totalCount: Int)) throws -> Bool {
        if isStopped() { throw CancellationError() }
        let again = try client.page(1, perPage: 1, search: filter.search)
        return again.pages.first?.id == first.ids.first && again.totalCount == first.totalCount
    }

    private func passes(_ product: ProductSummary, vendorsKnown: Bool) throws(OpenMarketError) -> Bool {
        if let since = filter.since, product.createdAt < since { return false }
        switch filter.vendor {
        case nil: return true
        case .id(let id): return product.vendorId == id
        case .me where !vendorsKnown:
            // No vendors (2021): each item is asked whether the password opens it.
            return try client.ownership(of: product.id) == .mine
        case .me:
            if let myVendor { return product.vendorId == myVendor }
            if notMine.contains(product.vendorId) { return false }
            // One question per vendor (`OwnerProbe`).
            switch try client.ownership(of: product.id) {
            case .anotherVendors: notMine.insert(product.vendorId); return false
            case .noSuchProduct: return false
            case .mine:
                myVendor = product.vendorId
                return true
            }
        }
    }
}
