import Foundation
import OpenMarketAPI
import ShopState
import Words

/// A product the shop holds twice for one key: the linked one, and others of exactly its name,
/// currency and price, made within `window` of it and linked to no key: what a lost answer
/// to an earlier version's register left (the server stored it late; it was sent again).
/// Reported on the row and at the end of the run with the command that removes them (a
/// deletion recorded, so that undo brings them back); never removed by itself.
public struct ShopCopy: Sendable, Codable, Equatable {
    /// The row's key as shown (a row matched by name: its name) and its row.
    public var key: String
    public var row: Int
    /// The product linked to the key.
    public var productID: Int
    /// The copies, ascending.
    public var copies: [Int]

    /// Made this close to the linked product: a lost answer's copy is made seconds apart.
    static let window: TimeInterval = 3600

    enum CodingKeys: String, CodingKey {
        case key, row, copies
        case productID = "product_id"
    }
}

extension SyncPlanner {
    /// The note of a row whose product the shop seems to hold more than once (nil: it does not).
    func copies(of product: ProductSummary, row: Int, key: String) -> Phrase? {
        guard allByName.mayHoldSeveral(product.name) else { return nil }
        let copies = unlinked(named: product.name).filter { id in
            guard id != product.id, let other = live.products[id] else { return false }
            return other.currency == product.currency && other.price == product.price
                && abs(other.createdAt.timeIntervalSince(product.createdAt)) <= ShopCopy.window
        }
        guard !copies.isEmpty else { return nil }
        copiesSeen.append(ShopCopy(key: ProductLink.shown(key), row: row, productID: product.id, copies: copies))
        return Phrase("n_shop_copies", copies.map { "#\($0)" }.joined(separator: ", "), String(product.id))
    }

    /// The copies seen, less those a later row took by its name (then they are that row's).
    func shopCopies() -> [ShopCopy] {
        copiesSeen.compactMap { seen in
            var copy = seen
            copy.copies = seen.copies.filter { keyOfProduct[$0] == nil && !takenByName.contains($0) }
            return copy.copies.isEmpty ? nil : copy
        }
    }
}
