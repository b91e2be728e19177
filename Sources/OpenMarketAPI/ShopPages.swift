import Foundation
import OpenMarketContract

/// The one way through a shop's list, page after page (import's live catalog, the matcher
/// of lost creates, `list --all`): the end is the server's own word. A page with no next is
/// the end; a page a search left empty is the end only where the server counts its products
/// (a 2021 server has no search and no count: its pages are filtered here, and its list ends
/// at the first empty page of the whole list, which says no next).
extension Shop {
    /// Gives `body` each page in order until the end or until `body` says stop (false).
    /// A first page refused (400) at more than 20 a page is asked again at half the size
    /// (servers with a cap on `items_per_page`). Returns the pages read.
    @discardableResult
    public func eachPage(search: String? = nil, perPage: Int, maxPages: Int = 100_000,
                         _ body: (ProductPage) throws(OpenMarketError) -> Bool) throws(OpenMarketError) -> Int {
        var number = 1
        var size = max(1, perPage)
        while number <= maxPages {
            let result: ProductPage
            do {
                result = try page(number, perPage: size, search: search)
            } catch {
                if error.status == 400 && size > 20 && number == 1 {
                    size = max(20, size / 2)
                    continue
                }
                throw error
            }
            guard try body(result), result.hasNext, !result.pages.isEmpty || !result.totalKnown else { return number }
            number += 1
        }
        return maxPages
    }

    /// Every product the list shows, each once (a product created meanwhile shifts later
    /// pages, so one can come twice), in the server's order, and the server's count.
    public func allProducts(search: String? = nil, perPage: Int = 100) throws(OpenMarketError) -> (products: [ProductSummary], total: Int) {
        var seen = Set<Int>()
        var products: [ProductSummary] = []
        var total = 0
        try eachPage(search: search, perPage: perPage) { page in
            total = page.totalCount
            for product in page.pages where seen.insert(product.id).inserted { products.append(product) }
            return true
        }
        return (products, total)
    }
}
