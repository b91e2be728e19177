import Foundation
import Words
import Manifest
import OpenMarketAPI
import ShopState
import Support

/// What a manifest names, read before anything is sent (`--delete-missing`).
public struct ListedProducts: Sendable {
    var keys = Set<String>()
    var ids = Set<Int>()
    /// Every row's name (a keyed row may adopt an unlinked product of its name).
    var names = Set<String>()
    /// Names of rows without a key: such a row is the product of its name, linked or not.
    var keylessNames = Set<String>()
    /// Rows with no key, id or name: nothing says which product they keep.
    var unnamed: [Int] = []

    mutating func add(_ identity: RowIdentity) {
        add(row: identity.row, key: identity.key, id: identity.id, name: identity.name)
    }

    mutating func add(row: Int, key: String?, id: Int?, name: String?) {
        if let key { keys.insert(key) }
        if let id { ids.insert(id) }
        if let name {
            names.insert(name)
            if key == nil { keylessNames.insert(name) }
        }
        if key == nil && id == nil && name == nil { unnamed.append(row) }
    }
}

/// A product of this vendor that the manifest no longer lists.
struct MissingProduct: Sendable {
    var product: ProductSummary
    var link: ProductLink?
    var reason: String
}

extension SyncRun {
    /// The vendor's products the manifest does not list, and why deleting them is refused,
    /// if it is. Over `--max-deletes`, a real run is refused as a whole before anything
    /// is sent (exit 1); a dry run lists them and says it would be refused.
    func missingProducts(_ listed: ListedProducts, _ planner: SyncPlanner) throws -> ([MissingProduct], Phrase?) {
        do { _ = try planner.openAllUnsure() } catch {
            throw SyncStop(say: "s_owner_unknown", "\(error)")
        }
        var linkOfProduct: [Int: ProductLink] = [:]
        for link in planner.links.values { if let id = link.productID { linkOfProduct[id] = link } }
        var missing: [MissingProduct] = []
        for product in planner.live.products.values.sorted(by: { $0.id < $1.id }) where !listed.ids.contains(product.id) {
            // A row without a key is the product of its name, whichever key it has.
            if listed.keylessNames.contains(product.name) { continue }
            if let link = linkOfProduct[product.id] {
                if let name = link.byName ? ProductLink.name(inKey: link.key) : nil {
                    if listed.keylessNames.contains(name) { continue }
                } else if listed.keys.contains(link.key) {
                    continue
                }
                let reason = link.byName ? "its name is not in the file (linked without a key)" : "its key \(link.key) is not in the file"
                missing.append(MissingProduct(product: product, link: link, reason: reason))
            } else if !listed.names.contains(product.name) {
                missing.append(MissingProduct(product: product, link: nil,
                                              reason: "not linked to any key, and no row has its id or name"))
            }
        }
        if !listed.unnamed.isEmpty {
            let rows = listed.unnamed.prefix(5).map(String.init).joined(separator: ", ")
            var refused = Phrase("s_deletes_unnamed", rows + (listed.unnamed.count > 5 ? " …" : ""))
            refused.count = listed.unnamed.count
            return (options.dryRun ? missing : [], refused)
        }
        if missing.count > options.maxDeletes {
            let linked = missing.filter { $0.link != nil }.count
            let values = [String(missing.count), String(linked), String(missing.count - linked), String(options.maxDeletes), String(missing.count)]
            var refused = Phrase(options.dryRun ? "s_max_deletes_dry" : "s_max_deletes", values)
            refused.count = missing.count
            if !options.dryRun { throw SyncStop(refused, cause: .refused) }
            return (missing, refused)
        }
        return (missing, nil)
    }

    /// Deletes (or, in a dry run, lists) the products the manifest no longer lists, after
    /// every row is done; a product a row took after all is kept.
    func deleteMissing(_ missing: [MissingProduct]) {
        // As many at once as the writes of the rows, under the same pace; a delete is no
        // row of the sheet (row 0: reported after the rows, as it finishes).
        perform { submit in
            for item in missing {
                submit(RowTask(rows: [], write: { [work, matcher] in
                    matcher.isClaimed(item.product.id) ? [] : [work.delete(item)]
                }))
            }
        }
    }
}

extension RowWork {
    /// One product that leaves the shop: saved for undo, deleted, its key unlinked (or, in a
    /// dry run, what would be).
    func delete(_ item: MissingProduct) -> RowOutcome {
        let product = item.product
        let key = item.link?.merchantKey ?? ""
        var outcome = RowOutcome(row: 0, key: key, name: product.name, status: options.dryRun ? .wouldDelete : .deleted,
                                 productID: product.id, note: item.reason)
        outcome.thumbnail = product.thumbnail
        if options.dryRun { return outcome }
        let started = Date()
        do {
            try writer.delete(id: product.id, for: WriteSubject(key: item.link?.key, byName: item.link?.byName ?? false),
                              photoHashes: item.link?.photos)
            outcome.attempts = 1
        } catch {
            outcome.status = .failed
            outcome.error = error.message
        }
        outcome.seconds = Date().timeIntervalSince(started)
        return outcome
    }
}
