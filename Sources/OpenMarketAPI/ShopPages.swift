import Foundation
import OpenMarketContract

/// The one way through a shop's list, page after page (import's live catalog, the matcher
/// of lost creates, `list --all`): the end is the server's own word. A page with no next is
/// the end; a page a search left empty is the end only where the server counts its products
/// (a 2021 server has no search and no count: its pages are filtered here, and its list ends
/// at the first empty page of the whole list, which says no next).
extension Shop {
    /// Gives `body` each page in order, from page `first`, until the end or until `body` says
    /// stop (false). Page 1 refused (400) is asked again at half the size (servers with a cap on
    /// `items_per_page`), and a size the server caps is taken as the page size. With `ahead`,
    /// the pages the server announced are asked for that many at a time ahead of their turn (a
    /// round trip each at a distance); they are still given in order. Returns the pages read.
    @discardableResult
    public func eachPage(search: String? = nil, perPage: Int, from first: Int = 1, maxPages: Int = 100_000, ahead: Int = 0,
                         _ body: (PageWalk) throws(OpenMarketError) -> Bool) throws(OpenMarketError) -> Int {
        var number = max(1, first)
        var size = max(1, perPage)
        var prefetch: PagesAhead?
        defer { prefetch?.cancel() }
        var read = 0
        while read < maxPages {
            let result: ProductPage
            do {
                if let early = try prefetch?.take(number) {
                    result = early
                } else {
                    result = try page(number, perPage: size, search: search)
                }
            } catch {
                if error.status == 400 && size > 1 && number == 1 {
                    size = max(1, size / 2)
                    continue
                }
                throw error
            }
            read += 1
            if number == 1, result.totalKnown, result.hasNext, !result.pages.isEmpty, result.pages.count < size {
                size = result.pages.count
            }
            if prefetch == nil, ahead > 0, result.totalKnown, result.lastPage > number {
                let (size, search) = (size, search)
                prefetch = PagesAhead(from: number + 1, through: result.lastPage, inFlight: ahead) { n throws(OpenMarketError) in
                    try page(n, perPage: size, search: search)
                }
            }
            guard try body(PageWalk(number: number, perPage: size, page: result)),
                  result.hasNext, !result.pages.isEmpty || !result.totalKnown else { return read }
            number += 1
        }
        return read
    }

    /// Every product the list shows, each once (a product created meanwhile shifts later
    /// pages, so one can come twice), in the server's order, and the server's count.
    public func allProducts(search: String? = nil, perPage: Int = 100) throws(OpenMarketError) -> (products: [ProductSummary], total: Int) {
        var seen = Set<Int>()
        var products: [ProductSummary] = []
        var total = 0
        try eachPage(search: search, perPage: perPage) { walk in
            total = walk.page.totalCount
            for product in walk.page.pages where seen.insert(product.id).inserted { products.append(product) }
            return true
        }
        return (products, total)
    }
}

/// One page of a walk through the list: its number, the page size in use (after a 400 or a
/// server's cap), and the page.
public struct PageWalk: Sendable {
    /// Pages asked for at once by a whole listing (a sync's reading of the shop, export's,
    /// backup's), once the first page names the last: at 50 ms a page of 100 one at a time
    /// reads 2,000 products a second; the client's pacer still spaces the requests.
    public static let pagesInFlight = 8

    public var number: Int
    public var perPage: Int
    public var page: ProductPage
}

/// How far a listing reads: the pages the first page that counts announced, with room for
/// products made meanwhile (a tenth, at least 10). A server whose pages go on past them (its
/// last page always one ahead) is not read for ever. Import's reading of the shop and export's
/// passes both end here.
public struct PageAllowance: Sendable {
    /// The pages allowed; `Int.max` until a page says how many products there are.
    public private(set) var limit = Int.max
    /// The product count the first counting page announced, and its pages.
    public private(set) var announcedProducts: Int?
    public private(set) var announcedPages: Int?

    public init() {}

    /// Takes the first count a page gives; later pages do not move the limit.
    public mutating func see(_ walk: PageWalk) {
        guard limit == Int.max, walk.page.totalKnown else { return }
        let perPage = max(1, walk.perPage)
        let announced = max(walk.page.lastPage, (walk.page.totalCount + perPage - 1) / perPage)
        limit = announced + max(10, announced / 10)
        announcedProducts = walk.page.totalCount
        announcedPages = announced
    }

    /// Whether a listing that has read `pages` pages may read another.
    public func allows(after pages: Int) -> Bool { pages < limit }
}

/// Pages of a pass fetched ahead of their turn, `inFlight` at a time, taken in order.
/// Each fetch runs on a thread of its own: a request blocks its thread for a round trip, and
/// Dispatch's global queue on Linux runs only as many blocks at once as there are cores (on 2
/// cores, 2 pages were in flight however many were asked for).
final class PagesAhead: @unchecked Sendable {
    private let condition = NSCondition()
    private var next: Int
    private let last: Int
    private let inFlight: Int
    /// Pages asked for and not yet taken (in flight or answered).
    private var pending: Set<Int> = []
    private var answers: [Int: Result<ProductPage, OpenMarketError>] = [:]
    private var cancelled = false
    private let fetch: @Sendable (Int) throws(OpenMarketError) -> ProductPage

    init(from first: Int, through last: Int, inFlight: Int, fetch: @escaping @Sendable (Int) throws(OpenMarketError) -> ProductPage) {
        next = first
        self.last = last
        self.inFlight = max(1, inFlight)
        self.fetch = fetch
        condition.lock()
        fill()
        condition.unlock()
    }

    /// The page, waiting for it if it was asked for ahead; nil when it was not (the caller asks).
    func take(_ page: Int) throws(OpenMarketError) -> ProductPage? {
        condition.lock()
        guard pending.contains(page) else { condition.unlock(); return nil }
        while answers[page] == nil { condition.wait() }
        pending.remove(page)
        let answer = answers.removeValue(forKey: page)
        fill()
        condition.unlock()
        return try answer?.get()
    }

    /// No more pages are asked for; those in flight end on their own.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.unlock()
    }

    /// Under the lock: asks for pages until `inFlight` are pending.
    private func fill() {
        while !cancelled && pending.count < inFlight && next <= last {
            let page = next
            next += 1
            pending.insert(page)
            let thread = Thread { [self] in
                let answer: Result<ProductPage, OpenMarketError>
                do throws(OpenMarketError) { answer = .success(try fetch(page)) } catch { answer = .failure(error) }
                condition.lock()
                answers[page] = answer
                condition.broadcast()
                condition.unlock()
            }
            thread.name = "openmarket.page"
            thread.start()
        }
    }
}
