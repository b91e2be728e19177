import Foundation
import Manifest
import OpenMarketAPI
import Support

/// Finds this vendor's products on the server, and makes sure two rows of one
/// run never take the same product: a product is claimed in the same step that
/// finds it.
final class ServerMatcher: @unchecked Sendable {
    private let client: any Shop
    private let lock = NSLock()
    /// The row that took each product (one entry a row: held compactly).
    private var claimed = CompactMap<Int, Int>()

    init(client: any Shop) { self.client = client }

    /// Takes the product for `row`; returns the row that took it first, if another did.
    func claim(_ id: Int, row: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        if let first = claimed[id], first != row { return first }
        claimed[id] = row
        return nil
    }

    func isClaimed(_ id: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return claimed[id] != nil
    }

    /// Whether the product is this vendor's (`OwnerProbe`).
    func owns(_ id: Int) throws(OpenMarketError) -> Bool {
        try client.ownership(of: id) == .mine
    }

    /// A product of this vendor with exactly this row's fields, not claimed by another
    /// row, claimed for `row` when found. Throws when the server cannot be asked: then
    /// nothing may be sent again.
    func find(_ draft: ProductDraft) throws(OpenMarketError) -> ProductSummary? {
        var found: ProductSummary?
        try client.eachPage(search: draft.fields.name, perPage: 100, maxPages: 50) { walk throws(OpenMarketError) in
            for product in walk.page.pages where Self.matches(product, draft) && !isClaimed(product.id) {
                guard try owns(product.id) else { continue }
                if claim(product.id, row: draft.row) != nil { continue }
                found = product
                return false
            }
            return true
        }
        return found
    }

    /// `find`, as a result. Its pages are asked through the shop, whose requests are retried
    /// by the one pacer and retry policy: no second loop of retries here.
    func look(_ draft: ProductDraft) -> Result<ProductSummary?, OpenMarketError> {
        do throws(OpenMarketError) { return .success(try find(draft)) } catch { return .failure(error) }
    }

    /// Every field a new product would have, exactly (prices as decimals).
    static func matches(_ product: ProductSummary, _ draft: ProductDraft) -> Bool {
        product.name == draft.fields.name && product.currency == draft.fields.currency && product.stock == max(0, draft.stockDelta ?? draft.fields.stock)
            && (product.description ?? draft.fields.description) == draft.fields.description
            && product.price == draft.fields.price && product.discountedPrice == draft.fields.discountedPrice
    }
}
