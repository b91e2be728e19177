import Support
import Foundation
import Words
import Manifest
import OpenMarketAPI
import ShopState

/// What a row will do, decided before anything is sent.
enum RowAction: Sendable {
    case create
    case update(id: Int, changes: FieldChanges)
    case unchanged(id: Int)
    /// `--replace-photos`: a new product with the row's photos, then the old one deleted.
    case replace(oldID: Int)

    var productID: Int? {
        switch self {
        case .create: nil
        case .update(let id, _), .unchanged(let id), .replace(let id): id
        }
    }
}

/// A row's decision: the action, how its product was found, and what to tell.
struct RowDecision: Sendable {
    var action: RowAction
    /// The product was adopted for this key now (same name, not linked before).
    var adopted = false
    /// Whether the link store must be written even when nothing is sent.
    var relink = false
    /// The product is one an interrupted run created (its answer lost): this run records it as created.
    var madeByInterruptedRun = false
    var link: ProductLink?
    /// How the row was matched, said in the report's Note column.
    var notes: [Phrase] = []
    /// The live product the row was compared with.
    var live: ProductSummary?
    /// The row sells again a product an earlier row took off sale: what became of its stock.
    var backOnSale: Phrase?
}

/// Decides, row by row in manifest order, what each row does to the shop: which
/// product it is (its link, its id, or a product of the vendor with exactly its
/// name), and which fields differ. One caller, in order (the feed's thread).
final class SyncPlanner {
    let options: SyncOptions
    private(set) var links: LinkTable
    private(set) var live: LiveCatalog
    private let matcher: ServerMatcher
    let client: any Shop
    /// Every product of this vendor, by exact name (rows without a key: the name is the key).
    private(set) var allByName = NameIndex()
    /// Products that look like second copies of a row's product (see `copies(of:)`).
    var copiesSeen: [ShopCopy] = []
    /// Products of this vendor that a row took as its product by name: no longer unlinked.
    private(set) var takenByName = Set<Int>()
    /// The key each linked product is linked to.
    private(set) var keyOfProduct = CompactMap<Int, String>()
    /// Products whose owner the list does not say (2021), by exact name: asked once a row
    /// of that name looks for its product.
    private var unsureByName: [String: [Int]] = [:]
    private var creates = 0
    private var updates = 0
    /// Vendors of an export of several vendors, by id: whether each is this account.
    private var vendorIsMine: [Int: Bool] = [:]

    init(options: SyncOptions, links: LinkTable, live: LiveCatalog, matcher: ServerMatcher,
         client: any Shop) {
        self.options = options
        self.links = links
        self.live = live
        self.matcher = matcher
        self.client = client
        links.eachProduct { key, id, state in if state == .linked { keyOfProduct[id] = key } }
        for product in live.products.values { allByName.add(product.name, product.id) }
        for product in live.unsure.values { unsureByName[product.name, default: []].append(product.id) }
        keyOfProduct.compact()
        allByName.compact()
    }

    /// This vendor's products named exactly `name`, ascending.
    func named(_ name: String) -> [Int] { allByName.ids(named: name, in: live.products) }

    /// This vendor's products of this name that no key is linked to, and no row took by name.
    func unlinked(named name: String) -> [Int] {
        named(name).filter { keyOfProduct[$0] == nil && !takenByName.contains($0) }
    }

    struct Refusal: Error {
        var message: String
        /// Refused by `--max-price-change` (a door may offer to run it with `--force`).
        var priceGuard = false
        /// The rules it broke, for the report in the reader's language.
        var problems: [RowProblem]?

        init(message: String, priceGuard: Bool = false, rule: String? = nil, column: String? = nil, value: String? = nil, english: String? = nil) {
            self.message = message
            self.priceGuard = priceGuard
            if let rule { problems = [RowProblem(column: column, value: value, rule: rule, message: english ?? message)] }
        }

        init(message: String, problems: [RowProblem]) {
            self.message = message
            self.problems = problems
        }
    }

    /// What the row does. Throws a refusal (the row fails with it) or, when the server
    /// cannot be asked, an `OpenMarketError` (the row fails; nothing is sent).
    func decide(_ draft: ProductDraft, identity: String) throws -> RowDecision {
        try checkVendor(draft)
        let link = links[identity]
        var decision: RowDecision
        if options.mode == .create {
            if let link, link.state == .linked, let id = link.productID, try isLive(id) {
                throw Skip(note: Phrase("n_create_exists", String(id), shown(identity)))
            }
            if let offSale = draft.offSale { throw Skip(note: absent(offSale)) }
            decision = RowDecision(action: .create, link: link)
        } else if let found = try target(draft, identity: identity, link: link) {
            decision = found
            if let offSale = draft.offSale {
                decision.notes.append(offSale.kind == .ended ? Phrase("n_off_sale_ended", offSale.column, offSale.value)
                                      : Phrase("n_off_sale", offSale.column, offSale.value))
            }
            if let back = decision.backOnSale { decision.notes.append(back) }
        } else if let offSale = draft.offSale {
            // Not on sale and not in the shop: never made.
            throw Skip(note: absent(offSale))
        } else {
            if options.mode == .update {
                throw Refusal(message: "no product of this vendor has this key or name, and --mode update only changes existing products",
                              rule: "mode-update-missing", value: shown(identity))
            }
            decision = RowDecision(action: .create, link: link)
        }

        switch decision.action {
        case .create:
            if !draft.createProblems.isEmpty {
                throw Refusal(message: "\(shown(identity)) is not in the shop, so this row would create a product: "
                    + draft.createProblems.map { "\($0.columnLabel ?? ""): \($0.message) [\($0.rule)]" }.joined(separator: "; "),
                              problems: draft.createProblems.map { RowProblem(column: $0.columnLabel, value: $0.value, rule: $0.rule, message: $0.message) })
            }
            if let delta = draft.stockDelta, delta < 0 {
                throw Refusal(message: "stock \(delta): a new product starts at 0 and cannot go below it",
                              rule: "stock-change-new", column: "stock", value: String(delta))
            }
            if let max = options.maxCreates, creates >= max {
                throw Refusal(message: "not created: the run already created \(max) products (--max-creates \(max))",
                              rule: "max-creates", value: String(max))
            }
            creates += 1
            // A new product's price made by a feed's rule says how (an update says it in its changes).
            if let how = draft.explanations[.price] {
                decision.notes.append(Phrase("n_price_how", String(describing: draft.fields.price), how))
            }
        case .update(let id, let changes):
            if let max = options.maxUpdates, updates >= max {
                throw Refusal(message: "not updated (\(changes.text)): the run already updated \(max) products (--max-updates \(max))",
                              rule: "max-updates", value: String(max))
            }
            updates += 1
            _ = id
        case .unchanged, .replace:
            break
        }
        if let id = decision.action.productID, let first = matcher.claim(id, row: draft.row) {
            throw Refusal(message: "product \(id) is already the product of row \(first) in this file; two rows cannot be one product")
        }
        return decision
    }

    /// A row of an export of several vendors is imported only when its vendor is this
    /// account: known from the shop, else asked of the row's product (only its owner gets
    /// its delete key). Another vendor's row fails, naming the vendor.
    private func checkVendor(_ draft: ProductDraft) throws {
        guard let vendor = draft.vendor else { return }
        if vendorIsMine[vendor] == nil, let mine = live.vendorID { vendorIsMine[vendor] = vendor == mine }
        if vendorIsMine[vendor] == nil, let id = draft.id {
            // Only a definite answer stands for the vendor (a product deleted since says nothing).
            switch try OwnerProbe.ownership({ () throws(OpenMarketError) -> String in try client.deleteKey(id: id) }) {
            case .mine: vendorIsMine[vendor] = true
            case .anotherVendors: vendorIsMine[vendor] = false
            case .noSuchProduct: break
            }
        }
        guard vendorIsMine[vendor] != true else { return }
        let account = live.vendorID.map { "this account is vendor \($0)" } ?? "this account does not own its product \(draft.id.map(String.init) ?? "")"
        throw Refusal(message: "the row is vendor \(vendor)'s product (the sheet is an export of several vendors' products) and \(account): only the account's own rows are imported; export --vendor me makes a backup of one's own shop")
    }

    /// A row with nothing to do (create mode, key already in the shop; not on sale, not in the shop).
    struct Skip: Error { var note: Phrase }

    private func absent(_ offSale: OffSale) -> Phrase {
        Phrase(options.validation.answersOnPage ? "n_off_sale_absent_page" : "n_off_sale_absent", offSale.column, offSale.value)
    }

    /// The product the row is, and how it differs; nil when the shop has none. Asked in
    /// order: the id column, the key's link, a create an interrupted run sent, the name.
    private func target(_ draft: ProductDraft, identity: String, link: ProductLink?) throws -> RowDecision? {
        var note: Phrase?
        if let id = draft.id {
            if let decision = try byID(draft, id: id, identity: identity) { return decision }
            note = Phrase("n_id_not_vendors", String(id))
        }
        // A replacement of photos that a crash cut short keeps its old product linked
        // (pending) until the new one is made and the old one deleted.
        if let link, link.state == .linked || link.productID != nil, let id = link.productID {
            if let product = try liveProduct(id) {
                var decision = try compare(draft, product)
                decision.link = link
                decision.notes = note.map { [$0] } ?? []
                if let copies = copies(of: product, row: draft.row, key: identity) { decision.notes.append(copies) }
                return decision
            }
            note = Phrase("n_link_gone", String(id))
        }
        try openUnsure(named: draft.fields.name)
        if link?.state == .pending, let product = pendingMatch(draft) {
            // An earlier run sent this create and lost the answer: the product is there.
            var decision = try compare(draft, product)
            decision.relink = true
            decision.madeByInterruptedRun = true
            decision.link = link
            decision.notes = [Phrase("n_found_interrupted", String(product.id))]
            return decision
        }
        return try byName(draft, identity: identity, note: note)
    }

    /// An id column names the product only where this account says so: the account's state
    /// links that product to the row's key; or the product has the row's name and no other
    /// merchant key (what a match by name would find: an export read back after its links
    /// were lost); or a row of id and stock alone names a product this account linked. Any
    /// other id is taken for another platform's number (WooCommerce's `ID`, SmartStore's
    /// `상품번호`) that happens to be a product of this shop: the row fails, and nothing of
    /// that product is touched.
    private func byID(_ draft: ProductDraft, id: Int, identity: String) throws -> RowDecision? {
        guard let product = live.products[id] else { return nil }
        let ownerKey = keyOfProduct[id]
        let sameName = !draft.fields.name.isEmpty && product.name == draft.fields.name
        let trusted = ownerKey == identity
            || (sameName && (draft.key == nil || ownerKey.map { ProductLink.name(inKey: $0) != nil } ?? true))
            || (draft.key == nil && draft.fields.name.isEmpty && ownerKey != nil)
        guard trusted else {
            let known = ownerKey.map { "linked to \(ProductLink.shown($0))" } ?? "not linked to any key of this account"
            let row = draft.key.map { "the key \($0)" } ?? "the name \"\(draft.fields.name)\""
            throw Refusal(message: "id \(id) is product \(id) \"\(product.name)\" in this shop, \(known), while this row has \(row) [id-untrusted]: the id column looks like another platform's number, so nothing was sent; to match rows by key or name only, run with --ignore-id (or leave the column out of a column map)")
        }
        var decision = try compare(draft, product)
        let owner = ownerKey.flatMap { links[$0] }
        decision.link = owner
        // A row without a key links by name only a product that no key has.
        if draft.key == nil { decision.relink = owner == nil } else { decision.relink = owner?.state != .linked }
        return decision
    }

    /// A key Excel read as a number (`120` for `00120`), or one typed without the zeros a
    /// linked key has: the linked key it means, when exactly one linked key is the same
    /// number. Several: the row fails naming them; never a second product.
    func keyWithoutZeros(_ key: String) throws(Refusal) -> String? {
        guard links[key] == nil, Self.isDigits(key) else { return nil }
        let number = Self.withoutLeadingZeros(key)
        if digitKeys == nil {
            var map: [String: [String]] = [:]
            for linked in links.keys where Self.isDigits(linked) { map[Self.withoutLeadingZeros(linked), default: []].append(linked) }
            digitKeys = map
        }
        let same = (digitKeys?[number] ?? []).filter { $0 != key && links[$0]?.state == .linked }.sorted()
        guard same.count <= 1 else {
            throw Refusal(message: "the key \(key) is \(same.joined(separator: " and ")) without leading zeros (Excel drops them from numbers) [key-zeros]: it cannot say which; write the key in full")
        }
        return same.first
    }

    /// Linked keys made of digits, by their number without leading zeros (built when first asked).
    private var digitKeys: [String: [String]]?

    static func isDigits(_ key: String) -> Bool { !key.isEmpty && key.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }

    static func withoutLeadingZeros(_ key: String) -> String {
        let stripped = key.drop { $0 == "0" }
        return stripped.isEmpty ? "0" : String(stripped)
    }

    /// Not linked: a product of this vendor with exactly the row's name, if there is one. A
    /// row with a key takes a product no other merchant key has (one known only by its name,
    /// from a sheet without keys, gains the key); a row without one (its name is its key) is
    /// the product of that name, whatever key it was linked to.
    private func byName(_ draft: ProductDraft, identity: String, note: Phrase?) throws -> RowDecision? {
        let created = note.map { RowDecision(action: .create, notes: [$0]) }
        guard !draft.fields.name.isEmpty else { return created }
        let pool = draft.key == nil
            ? named(draft.fields.name)
            : named(draft.fields.name).filter { id in keyOfProduct[id].map { ProductLink.name(inKey: $0) != nil } ?? true }
        let candidates = pool.filter { !matcher.isClaimed($0) }
        if candidates.count > 1 {
            throw Refusal(message: "\(candidates.count) products of this vendor are named \"\(draft.fields.name)\" (ids \(candidates.map(String.init).joined(separator: ", "))) and none is linked to \(shown(identity)): add an id column to say which one")
        }
        guard let id = candidates.first, let product = live.products[id] else { return created }
        var decision = try compare(draft, product)
        takenByName.insert(id)
        func noted(_ phrase: Phrase) -> [Phrase] { [note, phrase].compactMap { $0 } }
        switch (keyOfProduct[id], draft.key) {
        case (let otherKey?, _?):
            // The name's link becomes the key's: what was pushed and the photos it was made with go with it.
            decision.link = links[otherKey]
            keyOfProduct[id] = identity
            decision.adopted = true
            decision.relink = true
            decision.notes = noted(Phrase("n_name_gains_key", String(id), ProductLink.name(inKey: otherKey) ?? "", identity))
        case (let otherKey?, nil):
            decision.link = links[otherKey]
            decision.notes = noted(Phrase("n_matched_by_name", String(id), otherKey))
        case (nil, _):
            decision.adopted = true
            decision.relink = true
            decision.notes = noted(Phrase("n_linked_same_name", String(id)))
        }
        return decision
    }

    /// The products of this name whose owner the list did not say: those the password opens
    /// become this vendor's (unlinked) products, the others are left alone. Never guessed.
    private func openUnsure(named name: String) throws {
        guard let ids = unsureByName.removeValue(forKey: name) else { return }
        for id in ids.sorted() where !matcher.isClaimed(id) {
            if let product = live.unsure[id] { try open(product) }
        }
    }

    /// One product whose owner the list did not say, asked (a delete by its id).
    func openUnsure(id: Int) throws {
        guard let product = live.unsure[id] else { return }
        unsureByName[product.name]?.removeAll { $0 == id }
        try open(product)
    }

    /// Asks whether the password opens an unsure product; if it does, the product is this
    /// vendor's (unlinked, found by its name from now on). Either way it is no longer unsure.
    private func open(_ product: ProductSummary) throws {
        live.unsure[product.id] = nil
        guard try matcher.owns(product.id) else { return }
        live.products[product.id] = product
        allByName.add(product.name, product.id)
    }

    /// Every product whose owner the list did not say, asked (`--delete-missing` on a server
    /// without vendors: the merchant's products made elsewhere are theirs to delete too).
    /// One harmless request each; returns how many were asked.
    func openAllUnsure() throws -> Int {
        let asked = live.unsure.count
        for name in unsureByName.keys.sorted() { try openUnsure(named: name) }
        return asked
    }

    /// An unlinked product of this vendor with exactly the row's fields (a create whose
    /// answer was lost).
    private func pendingMatch(_ draft: ProductDraft) -> ProductSummary? {
        let ids = unlinked(named: draft.fields.name).filter { !matcher.isClaimed($0) }
        let matching = ids.compactMap { live.products[$0] }.filter { ServerMatcher.matches($0, draft) }
        guard matching.count == 1, let product = matching.first else { return nil }
        takenByName.insert(product.id)
        return product
    }

    /// The live product with this id: from the listing, or, when the listing missed it
    /// (deleted and re-listed during the read), asked for directly.
    private func liveProduct(_ id: Int) throws -> ProductSummary? {
        if let product = live.products[id] { return product }
        do {
            let detail = try client.product(id: id)
            guard live.vendorID == nil || detail.summary.vendorId == live.vendorID else { return nil }
            live.products[id] = detail.summary
            return detail.summary
        } catch {
            if error.status == 404 { return nil }
            throw error
        }
    }

    private func isLive(_ id: Int) throws -> Bool { try liveProduct(id) != nil }

    private func shown(_ identity: String) -> String { ProductLink.shown(identity) }
}
