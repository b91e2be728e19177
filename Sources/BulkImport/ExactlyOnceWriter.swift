import Foundation
import Manifest
import OpenMarketAPI
import ShopState
import Support

/// The write stage (`jobs` workers): every write goes journal (sent) → server →
/// journal (done) → link store, and a write whose answer was lost is looked for
/// on the server before anything is sent again. A journal or link store that
/// cannot be written stops the run before another request leaves.
extension ImportRun {
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
            var outcome = outcome(item, status: .wouldCreate)
            outcome.imagesBefore = item.before
            outcome.imagesAfter = item.after
            outcome.photo = item.images.first?.data
            outcome.note = item.decision.note
            return outcome
        case .update(let id, let changes):
            var outcome = outcome(item, status: .wouldUpdate)
            outcome.productID = id
            describe(&outcome, changes)
            outcome.note = item.decision.note
            notePhotos(&outcome, item)
            return outcome
        case .unchanged:
            return unchangedOutcome(item)
        case .replace(let oldID):
            var outcome = outcome(item, status: .wouldCreate)
            outcome.productID = oldID
            outcome.note = "would replace product \(oldID): a new product with the row's photos, then \(oldID) deleted"
            return outcome
        }
    }

    private func describe(_ outcome: inout RowOutcome, _ changes: FieldChanges) {
        outcome.changes = changes.text
        outcome.changedFields = changes.fields
        outcome.stockToZero = changes.stockToZero
    }

    /// Before a request: the run must not be stopping, and the journal must take the line.
    private func announce(_ item: WorkItem) -> String? {
        if isStopping { return "not sent: the run stopped before this row" }
        do {
            try journal.record(.sent, key: item.key, hash: item.hash, row: item.draft.row)
        } catch {
            stop("\(error)")
            return "not sent: \(error)"
        }
        return nil
    }

    /// After the server's answer: the journal, the link store and (for a product the
    /// run made, `created`) the run's record learn the product. Returns the problem
    /// when they cannot be written (the run then stops).
    private func record(_ item: WorkItem, id: Int, product: ProductSummary?, photos: [String]?, created: Bool = false) -> String? {
        do {
            try journal.record(.done, key: item.key, hash: item.hash, row: item.draft.row, id: id)
            // The record first: a crash before the link is saved leaves a pending link, which the
            // next run resolves without recording the product again.
            if created, let product {
                try recorder?.created(id: id, key: item.key, byName: item.byName, row: item.draft.row,
                                      after: Self.pushed(product), photoHashes: photos)
            }
            try links?.save(ProductLink(key: item.key, byName: item.byName, productID: id, state: .linked,
                                        pushed: product.map(Self.pushed), photos: photos))
        } catch {
            stop("\(error)")
            return "\(error); the next run finds the product on the server and links it"
        }
        return nil
    }

    static func pushed(_ product: ProductSummary) -> PushedProduct {
        PushedProduct(name: product.name, description: product.description ?? "",
                      price: Money.text(Money.decimal(product.price)), currency: product.currency,
                      discountedPrice: Money.text(Money.decimal(product.discountedPrice)), stock: product.stock)
    }

    private func create(_ item: WorkItem) -> RowOutcome {
        let draft = item.draft
        var outcome = outcome(item, status: .created)
        outcome.imagesBefore = item.before
        outcome.imagesAfter = item.after
        outcome.photo = item.images.first?.data
        outcome.note = item.decision.note
        // An earlier run of this manifest sent this row without hearing back: look first.
        if case .sent? = journal.state(of: item.key) {
            switch matcher.look(draft) {
            case .success(let found?):
                return adopt(found, item, outcome, note: "found on the server from an earlier run whose answer was lost; not sent again")
            case .success(nil):
                break
            case .failure(let error):
                return failed(item, "an earlier run's write has no known outcome and the server cannot be checked now (\(error)); run again to finish")
            }
        }
        let policy = options.lostAnswers
        for attempt in 1...max(1, policy.maxAttempts) {
            outcome.attempts = attempt
            if let problem = announce(item) { return failed(item, problem, attempts: attempt - 1) }
            do {
                try links?.save(ProductLink(key: item.key, byName: item.byName, productID: nil, state: .pending,
                                            pushed: nil, photos: item.photoHashes))
            } catch {
                stop("\(error)")
                return failed(item, "not sent: \(error)", attempts: attempt - 1)
            }
            do {
                let created = try client.register(Self.newProduct(draft), images: item.images)
                _ = matcher.claim(created.id, row: draft.row)
                learnVendor(created.summary.vendorId)
                outcome.productID = created.id
                outcome.thumbnail = created.summary.thumbnail
                if let problem = record(item, id: created.id, product: created.summary, photos: item.photoHashes, created: true) {
                    outcome.note = [outcome.note, "created, but \(problem)"].compactMap { $0 }.joined(separator: "; ")
                }
                return timed(outcome, item)
            } catch let error where error.isAmbiguous {
                // The product may exist: look before sending again. If the server cannot be
                // asked, nothing is sent: the journal keeps the row as sent, and the next run
                // looks again. The wait lets a server that stored it list it.
                Thread.sleep(forTimeInterval: policy.backoff(afterAttempt: attempt))
                switch matcher.look(draft) {
                case .success(let found?):
                    return adopt(found, item, outcome, note: "the answer was lost; found on the server instead of sending again")
                case .success(nil):
                    continue
                case .failure(let lookError):
                    return failed(item, "the answer was lost and the server cannot be checked now (\(lookError)); run again to finish", attempts: attempt)
                }
            } catch {
                try? journal.record(.failed, key: item.key, hash: item.hash, row: draft.row, error: "\(error)")
                return failed(item, "\(error)", attempts: attempt)
            }
        }
        let attempts = max(1, policy.maxAttempts)
        try? journal.record(.failed, key: item.key, hash: item.hash, row: draft.row, error: "no answer after \(attempts) attempts")
        return failed(item, "no answer from the server after \(attempts) attempts, and the product is not on the server", attempts: attempts)
    }

    /// Records a product found on the server as this row's, instead of sending the row again.
    private func adopt(_ found: ProductSummary, _ item: WorkItem, _ start: RowOutcome, note: String) -> RowOutcome {
        var outcome = start
        outcome.productID = found.id
        outcome.thumbnail = found.thumbnail
        outcome.note = note
        if let problem = record(item, id: found.id, product: found, photos: item.photoHashes, created: true) {
            outcome.note = note + "; but \(problem)"
        }
        return timed(outcome, item)
    }

    private func update(_ item: WorkItem, id: Int, changes: FieldChanges) -> RowOutcome {
        var outcome = outcome(item, status: .updated)
        outcome.productID = id
        outcome.note = item.decision.note
        if let problem = announce(item) { return failed(item, problem) }
        if let recorder, let live = item.decision.live {
            let before = Self.pushed(live)
            do {
                try recorder.updating(id: id, key: item.key, byName: item.byName, row: item.draft.row, before: before,
                                      after: before.applying(changes.body))
            } catch {
                stop("\(error)")
                return failed(item, "not sent: the run's record for undo cannot be written (\(error))")
            }
        }
        outcome.attempts = 1
        do {
            let updated = try client.edit(id: id, changes.body)
            describe(&outcome, changes)
            outcome.thumbnail = updated.summary.thumbnail
            notePhotos(&outcome, item)
            if let problem = record(item, id: id, product: updated.summary, photos: item.decision.link?.photos) {
                outcome.note = [outcome.note, "updated, but \(problem)"].compactMap { $0 }.joined(separator: "; ")
            }
            return timed(outcome, item)
        } catch {
            try? journal.record(.failed, key: item.key, hash: item.hash, row: item.draft.row, error: "\(error)")
            return failed(item, "\(changes.text): \(error)", attempts: 1)
        }
    }

    /// An equal row whose link must be written (adopted, or linked by its id): no request.
    private func relink(_ item: WorkItem, id: Int) -> RowOutcome {
        var outcome = unchangedOutcome(item)
        guard item.decision.relink else { return outcome }
        do {
            if item.decision.madeByInterruptedRun, let live = item.decision.live {
                // Made by a run whose answer was lost: taken back with this run.
                try recorder?.created(id: id, key: item.key, byName: item.byName, row: item.draft.row,
                                      after: Self.pushed(live), photoHashes: item.photoHashes)
            }
            try links?.save(ProductLink(key: item.key, byName: item.byName, productID: id, state: .linked,
                                        pushed: item.decision.live.map(Self.pushed), photos: nil))
        } catch {
            stop("\(error)")
            outcome.note = [outcome.note, "not linked: \(error)"].compactMap { $0 }.joined(separator: "; ")
        }
        return outcome
    }

    /// `--replace-photos`, exactly once through crashes: the link is marked pending (still
    /// naming the old product) → the new product is registered (or, after a crash, found on
    /// the server) → the old one is deleted → the link names the new one.
    private func replace(_ item: WorkItem, oldID: Int) -> RowOutcome {
        var merged = item
        merged.draft = Self.merged(item.draft, item.decision.live)
        var outcome = outcome(item, status: .replaced)
        outcome.imagesBefore = item.before
        outcome.imagesAfter = item.after
        outcome.photo = item.images.first?.data
        var newID: Int?
        if item.decision.link?.state == .pending {
            // An interrupted replacement may have made the new product already.
            switch matcher.look(merged.draft) {
            case .success(let found?) where found.id != oldID: newID = found.id
            case .success: break
            case .failure(let error):
                return failed(item, "an earlier replacement has no known outcome and the server cannot be checked now (\(error)); run again")
            }
        }
        if newID == nil {
            if let problem = announce(item) { return failed(item, problem) }
            do {
                try links?.save(ProductLink(key: item.key, byName: item.byName, productID: oldID, state: .pending,
                                            pushed: item.decision.live.map(Self.pushed), photos: item.decision.link?.photos))
            } catch {
                stop("\(error)")
                return failed(item, "not sent: \(error)")
            }
            do {
                let created = try client.register(Self.newProduct(merged.draft), images: item.images)
                _ = matcher.claim(created.id, row: item.draft.row)
                newID = created.id
                outcome.thumbnail = created.summary.thumbnail
            } catch {
                // Ambiguous or refused: the link stays pending on the old product, and the next
                // run looks for the new one before sending again.
                return failed(item, "replacing the photos: \(error); the old product \(oldID) is kept")
            }
        }
        guard let newID else { return failed(item, "replacing the photos: no new product") }
        outcome.productID = newID
        var notes = ["replaced product \(oldID) with \(newID) (new photos)"]
        do {
            if let recorder {
                let made = try client.product(id: newID).summary
                try recorder.created(id: newID, key: item.key, byName: item.byName, row: item.draft.row,
                                     after: Self.pushed(made), photoHashes: item.photoHashes)
                try recorder.deleting(id: oldID, key: item.key, byName: item.byName, row: item.draft.row,
                                      photoHashes: item.decision.link?.photos)
            }
            try client.delete(id: oldID)
            notes[0] += "; \(oldID) deleted"
        } catch {
            notes.append("the old product \(oldID) could not be deleted (\(error)): delete it by hand")
        }
        if let problem = record(item, id: newID, product: nil, photos: item.photoHashes) { notes.append(problem) }
        outcome.note = notes.joined(separator: "; ")
        outcome.photosDiffer = true
        return timed(outcome, item)
    }

    /// The row's fields, with the live product's for the ones it leaves out.
    static func merged(_ draft: ProductDraft, _ live: ProductSummary?) -> ProductDraft {
        guard let live else { return draft }
        var full = draft
        let given = draft.given
        if !given.contains(.name) { full.name = live.name }
        if !given.contains(.description) { full.description = live.description ?? "" }
        if !given.contains(.price) { full.price = Money.decimal(live.price) }
        if !given.contains(.currency) { full.currency = live.currency }
        if !given.contains(.discountedPrice) { full.discountedPrice = Money.decimal(live.discountedPrice) }
        if !given.contains(.stock) { full.stock = live.stock } else if let delta = draft.stockDelta { full.stock = max(0, live.stock + delta) }
        full.stockDelta = nil
        full.given = ProductDraft.allFields
        return full
    }

    static func newProduct(_ draft: ProductDraft) -> NewProduct {
        NewProduct(name: draft.name, description: draft.description, price: Money.double(draft.price), currency: draft.currency,
                   discountedPrice: Money.double(draft.discountedPrice), stock: max(0, draft.stockDelta ?? draft.stock))
    }

    /// The row's time, from when it was read to now.
    private func timed(_ outcome: RowOutcome, _ item: WorkItem) -> RowOutcome {
        var outcome = outcome
        outcome.seconds = Date().timeIntervalSince(item.started)
        return outcome
    }
}

extension OpenMarketError {
    /// The request may or may not have reached the server.
    var isAmbiguous: Bool {
        if case .ambiguous = self { return true }
        return false
    }
}
