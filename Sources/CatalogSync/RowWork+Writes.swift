import Foundation
import Words
import Manifest
import OpenMarketAPI
import ShopState
import Support

/// The write stage (`jobs` workers): what each row's decision asks of the shop, through
/// the run's `ProductWriter` (journal → server → record → links, exactly once), and the
/// row's outcome.
extension RowWork {
    func write(_ item: WorkItem) -> RowOutcome {
        if options.dryRun { return planned(item) }
        switch item.decision.action {
        case .create: return create(item)
        case .update(let id, let changes): return update(item, id: id, changes: changes)
        case .unchanged(let id): return relink(item, id: id)
        case .replace(let oldID): return replace(item, oldID: oldID)
        }
    }

    /// A dry run: what the row would do.
    private func planned(_ item: WorkItem) -> RowOutcome {
        switch item.decision.action {
        case .create:
            return item.withPhotos(item.outcome(.wouldCreate))
        case .update(let id, let changes):
            var outcome = item.outcome(.wouldUpdate)
            outcome.productID = id
            WorkItem.describe(&outcome, changes)
            outcome.notes = item.decision.notes
            item.notePhotos(&outcome)
            return outcome
        case .unchanged:
            return item.unchangedOutcome()
        case .replace(let oldID):
            var outcome = item.outcome(.wouldCreate)
            outcome.productID = oldID
            outcome.notes = [Phrase("n_would_replace", String(oldID))]
            return outcome
        }
    }

    /// What the writer is told of a row.
    private func subject(_ item: WorkItem) -> WriteSubject {
        WriteSubject(key: item.key, byName: item.byName, row: item.draft.row, hash: item.hash)
    }

    private func create(_ item: WorkItem) -> RowOutcome {
        var outcome = item.withPhotos(item.outcome(.created))
        let registered: ProductWriter.Registered
        do {
            // An earlier run of this manifest sent this row without hearing back: look first.
            // (A pending link says the same of a run of any sheet: the journal's line may have
            // been lost to a power cut, the link's is durable.)
            let unknown = if case .sent? = journal.state(of: item.key) { true } else { item.decision.link?.state == .pending }
            registered = try writer.register(
                Self.newProduct(item.draft), images: item.images, for: subject(item), matching: item.draft,
                earlierSendUnknown: unknown,
                pending: ProductLink(key: item.key, byName: item.byName, productID: nil, state: .pending, pushed: nil,
                                     photos: item.photoHashes))
        } catch {
            if error.kind == .notSent { return item.notSent(.verbatim(error.message)) }
            return item.failed(error.message, attempts: error.attempts)
        }
        let product = registered.product
        if registered.found {
            outcome.notes.append(.verbatim(registered.attempts == 0
                ? "found on the server from an earlier run whose answer was lost; not sent again"
                : "the answer was lost; found on the server instead of sending again"))
        } else {
            vendor.learn(product.vendorId)
        }
        outcome.attempts = registered.attempts
        if let mismatch = Self.buyerPriceMismatch(wanted: Self.newProduct(item.draft), answered: product) {
            outcome.notes.append(.verbatim(mismatch))
        }
        outcome.productID = product.id
        outcome.thumbnail = product.thumbnail
        do {
            // Its pending link was durable before the request (unless found by the first look).
            let pendingSaved = !(registered.found && registered.attempts == 0)
            try writer.settle(subject(item), id: product.id, pushed: Product(product), photos: item.photoHashes, created: true,
                              durableLink: !pendingSaved)
        } catch {
            let done = registered.found ? "but " : "created, but "
            outcome.notes.append(.verbatim(done + error.message))
        }
        return item.timed(outcome)
    }

    private func update(_ item: WorkItem, id: Int, changes: FieldChanges) -> RowOutcome {
        var outcome = item.outcome(.updated)
        outcome.productID = id
        outcome.notes = item.decision.notes
        outcome.attempts = 1
        let before = item.decision.live.map(Product.init)
        let updated: ProductDetail
        do {
            updated = try writer.edit(id: id, changes.body, for: subject(item),
                                      recording: before.map { ($0, $0.applying(changes.body)) })
        } catch {
            if error.kind == .notSent { return item.notSent(.verbatim(error.message)) }
            return item.failed("\(changes.text): \(error.message)", attempts: 1)
        }
        WorkItem.describe(&outcome, changes)
        if let before, let mismatch = Self.buyerPriceMismatch(wanted: before.applying(changes.body), answered: updated.summary) {
            outcome.notes.append(.verbatim(mismatch))
        }
        outcome.thumbnail = updated.summary.thumbnail
        item.notePhotos(&outcome)
        do {
            try writer.settle(subject(item), id: id, pushed: Product(updated.summary), photos: item.decision.link?.photos,
                              created: false)
        } catch {
            outcome.notes.append(Phrase("n_updated_but", error.message))
        }
        return item.timed(outcome)
    }

    /// An equal row whose link must be written (adopted, or linked by its id): no request.
    private func relink(_ item: WorkItem, id: Int) -> RowOutcome {
        var outcome = item.unchangedOutcome()
        guard item.decision.relink else { return outcome }
        do {
            // Made by a run whose answer was lost: taken back with this run.
            let made = item.decision.madeByInterruptedRun && item.decision.live != nil
            try writer.settle(subject(item), id: id, pushed: item.decision.live.map(Product.init),
                              photos: made ? item.photoHashes : item.decision.link?.photos, created: made)
        } catch {
            outcome.notes.append(Phrase("n_not_linked", error.message))
        }
        return outcome
    }

    /// `--replace-photos`, exactly once through crashes: the link is marked pending (still
    /// naming the old product) → the new product is registered (or, after a crash, found on
    /// the server) → the old one is deleted → the link names the new one.
    private func replace(_ item: WorkItem, oldID: Int) -> RowOutcome {
        let draft = Self.merged(item.draft, item.decision.live)
        var outcome = item.withPhotos(item.outcome(.replaced))
        let newID: Int
        let made: ProductSummary
        // The old product is this row's: a lookup after a lost answer must not take it for the new one.
        _ = matcher.claim(oldID, row: item.draft.row)
        do {
            let registered = try writer.register(
                Self.newProduct(draft), images: item.images, for: subject(item), matching: draft,
                earlierSendUnknown: item.decision.link?.state == .pending,
                pending: ProductLink(key: item.key, byName: item.byName, productID: oldID, state: .pending,
                                     pushed: item.decision.live.map(Product.init), photos: item.decision.link?.photos))
            guard registered.product.id != oldID else { return item.failed("replacing the photos: no new product") }
            newID = registered.product.id
            made = registered.product
            outcome.thumbnail = made.thumbnail
        } catch {
            // Ambiguous or refused: the link stays pending on the old product, and the next
            // run looks for the new one before sending again.
            return item.failed("replacing the photos: \(error.message); the old product \(oldID) is kept")
        }
        outcome.productID = newID
        var notes = ["replaced product \(oldID) with \(newID) (new photos)"]
        do {
            // Recorded for undo as made by this run, with the photos it was made with.
            try writer.recording {
                try recorder?.created(id: newID, key: item.key, byName: item.byName, row: item.draft.row,
                                      after: Product(made), photoHashes: item.photoHashes)
            }
            try writer.delete(id: oldID, for: WriteSubject(key: nil, byName: item.byName, row: item.draft.row),
                              photoHashes: item.decision.link?.photos)
            notes[0] += "; \(oldID) deleted"
        } catch {
            notes.append("the old product \(oldID) could not be deleted (\(error.message)): delete it by hand")
        }
        do {
            try writer.settle(subject(item), id: newID, pushed: nil, photos: item.photoHashes, created: false)
        } catch {
            notes.append(error.message)
        }
        outcome.note = notes.joined(separator: "; ")
        outcome.photosDiffer = true
        return item.timed(outcome)
    }

    /// The row's fields, with the live product's for the ones it leaves out.
    static func merged(_ draft: ProductDraft, _ live: ProductSummary?) -> ProductDraft {
        guard let live else { return draft }
        var full = draft
        let given = draft.given
        if !given.contains(.name) { full.fields.name = live.name }
        if !given.contains(.description) { full.fields.description = live.description ?? "" }
        if !given.contains(.price) { full.fields.price = live.price }
        if !given.contains(.currency) { full.fields.currency = live.currency }
        if !given.contains(.discountedPrice) { full.fields.discountedPrice = live.discountedPrice }
        if !given.contains(.stock) { full.fields.stock = live.stock } else if let delta = draft.stockDelta { full.fields.stock = max(0, live.stock + delta) }
        full.stockDelta = nil
        full.given = ProductDraft.allFields
        return full
    }

    /// What the buyer pays as the shop answered the write, when it is not what the sheet says.
    static func buyerPriceMismatch(wanted: Product, answered: ProductSummary) -> String? {
        let sheet = wanted.price - wanted.discountedPrice
        let shop = answered.price - answered.discountedPrice
        guard sheet != shop else { return nil }
        return "the shop answered price \(answered.price), discount \(answered.discountedPrice): the buyer pays \(shop), the sheet says \(sheet); check the product"
    }

    static func newProduct(_ draft: ProductDraft) -> Product {
        Product(name: draft.fields.name, description: draft.fields.description, price: draft.fields.price, currency: draft.fields.currency,
                   discountedPrice: draft.fields.discountedPrice, stock: max(0, draft.stockDelta ?? draft.fields.stock))
    }
}
