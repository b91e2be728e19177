import Foundation
import OpenMarketAPI
import ShopState

/// This vendor's products as the shop has them now, read in pages before a run
/// decides anything (the list answer carries every field but the photos).
/// A page that cannot be read stops the run: it never becomes "no products".
struct LiveCatalog: Sendable {
    /// This vendor's products, by id (held compactly: a shop's size costs little memory).
    var products = ProductTable()
    /// This vendor's id, when known (from the link store, or asked of the server).
    var vendorID: Int?
    /// Pages read.
    var pages = 0
    /// Products whose owner the list does not say (a 2021 server has no vendors): each is
    /// this vendor's only once the password opens it (`ServerMatcher.owns`), asked when a
    /// row would take it by its name. Linked products are known to be ours.
    var unsure = ProductTable()
    /// The list did not say whose each product is (until `claim(linked:)`, every product is unsure).
    private(set) var ownersUnknown = false

    /// Where the list does not say owners, the linked products are this vendor's (ours made
    /// them); the others stay unsure.
    mutating func claim(linked: Set<Int>) {
        guard ownersUnknown else { return }
        for id in linked {
            guard let product = unsure[id] else { continue }
            products[id] = product
            unsure[id] = nil
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads every page. `knownVendor` saves asking the server whose products are ours;
    /// otherwise one product of each vendor seen is asked for its delete key (only its
    /// owner gets it; nothing changes). Once the first page names the last, `ahead` pages are
    /// asked for at once (the client's pacer still spaces them); they are taken in order, each
    /// product kept once by its id. A product the shop moved meanwhile (one created or deleted
    /// shifts the pages) can be missed, as in a reading one page at a time: a linked product is
    /// then asked for by its id before anything is decided about it (`SyncPlanner.liveProduct`).
    ///
    /// Where the list does not say whose each product is, every product is left unsure here:
    /// `claim(linked:)` then takes the linked ones as this vendor's (the links are read while
    /// the pages are in flight).
    static func read(client: any Shop, knownVendor: Int?, pageSize: Int, ahead: Int = 0,
                     matcher: ServerMatcher, onPage: ((Int) -> Void)? = nil, stopped: () -> Bool = { false }) throws(Failure) -> LiveCatalog {
        // Every product read, or, while the vendor is known and every page says whose each
        // product is, this vendor's only (another vendor's is counted, by id, not kept).
        var all = ProductTable()
        var keptOthers = false
        var catalog = LiveCatalog(vendorID: knownVendor)
        var vendorsKnown = true
        var listing = ListingGuard()
        do {
            try client.eachPage(perPage: pageSize, ahead: ahead) { walk in
                guard listing.admit(walk, stopAsked: stopped()) else { return false }
                let result = walk.page
                catalog.pages = listing.pages
                onPage?(catalog.pages)
                vendorsKnown = vendorsKnown && result.vendorsKnown
                let keepAll = knownVendor == nil || !vendorsKnown
                for product in listing.firstSeen(result.pages) {
                    guard keepAll || product.vendorId == knownVendor else { continue }
                    all[product.id] = product
                    if product.vendorId != knownVendor { keptOthers = true }
                }
                return listing.goesOn(after: result)
            }
        } catch {
            throw Failure(description: "reading the shop's products (page \(catalog.pages + 1)) failed: \(error); nothing was written. Run again when the server answers")
        }
        if let why = listing.stop { throw Failure(description: why) }
        all.compact()
        if !vendorsKnown {
            catalog.vendorID = nil
            catalog.unsure = all
            catalog.ownersUnknown = true
            return catalog
        }
        if catalog.vendorID == nil {
            var firstByVendor: [Int: Int] = [:]
            for product in all.values where firstByVendor[product.vendorId].map({ product.id < $0 }) ?? true {
                firstByVendor[product.vendorId] = product.id
            }
            for (vendor, id) in firstByVendor.sorted(by: { $0.key < $1.key }) {
                do {
                    if try matcher.owns(id) { catalog.vendorID = vendor; break }
                } catch {
                    throw Failure(description: "asking the server which products are this vendor's failed: \(error); nothing was written")
                }
            }
        }
        if let vendor = catalog.vendorID {
            // Only this vendor's were kept while its id was known: the table is the catalog as it is.
            if vendor == knownVendor, !keptOthers {
                catalog.products = all
            } else {
                for product in all.values where product.vendorId == vendor { catalog.products[product.id] = product }
                catalog.products.compact()
            }
        }
        return catalog
    }
}

/// Whether a reading of the shop's pages may go on, and why it stopped when it may not: a
/// stop asked (Ctrl-C), a page past the pages the server's first page allows for
/// (`PageAllowance`), or a page of nothing new while the server says there is more. Each
/// product counts once, by its id, however often pages repeat it.
private struct ListingGuard {
    private(set) var pages = 0
    /// Why the reading cannot be trusted (or was stopped); nil while it can.
    private(set) var stop: String?
    private var allowance = PageAllowance()
    private var seen = Set<Int>()
    private var seenBefore = 0
    private var firstTotal: Int?

    /// Before a page is read: false (and `stop` says why) when it must not be.
    mutating func admit(_ walk: PageWalk, stopAsked: Bool) -> Bool {
        if stopAsked {
            stop = "stopped while reading the shop's products (after page \(pages)): nothing was written"
            return false
        }
        allowance.see(walk)
        guard allowance.allows(after: pages) else {
            stop = "reading the shop's products: page \(pages + 1) is past the \(allowance.limit) pages the server's first page allows for (\(allowance.announcedProducts ?? walk.page.totalCount) products), and it says there are more; its pages cannot be trusted, so nothing was written"
            return false
        }
        pages += 1
        seenBefore = seen.count
        if firstTotal == nil, walk.page.totalKnown { firstTotal = walk.page.totalCount }
        return true
    }

    /// The page's products not seen on an earlier page.
    mutating func firstSeen(_ products: [ProductSummary]) -> [ProductSummary] {
        products.filter { seen.insert($0.id).inserted }
    }

    /// After a page: whether the next is to be read. The server's count ends the reading; a page
    /// of nothing new while it says there is more cannot be trusted (a product it hides would
    /// read as gone), unless the shop moved while it was read (its count changed: products made
    /// before this page's place push what was read onto it).
    mutating func goesOn(after result: ProductPage) -> Bool {
        guard result.hasNext, !result.pages.isEmpty else { return false }
        if result.totalKnown, seen.count >= result.totalCount, pages >= result.lastPage { return false }
        let moved = result.totalKnown && firstTotal.map { $0 != result.totalCount } == true
        if seen.count == seenBefore, pages > 1, !moved {
            stop = "reading the shop's products: page \(pages) held only products already read although the server said there were more (\(seen.count) of \(result.totalKnown ? String(result.totalCount) : "an unknown number")); its pages cannot be trusted, so nothing was written"
            return false
        }
        return true
    }
}
