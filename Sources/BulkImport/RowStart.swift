import Crypto
import Foundation
import Manifest
import OpenMarketAPI
import ShopState

/// The first steps of a row, on the feed's thread in manifest order: the
/// journal's word on it, then what it does to the shop. And how outcomes are built.
extension ImportRun {
    /// The row as work for the pipeline, or nil when it finished here (failed, skipped).
    func decide(_ draft: ProductDraft, _ planner: SyncPlanner) -> WorkItem? {
        let identity = ProductLink.identity(key: draft.key, name: draft.name)
        let hash = Self.contentHash(draft)
        let started = Date()
        var item = WorkItem(draft: draft, key: identity.key, byName: identity.byName, hash: hash, started: started,
                            decision: RowDecision(action: .create))
        // create: rows this manifest's journal saw finished are not created again.
        if options.mode == .create, case .done(let id, let doneHash)? = journal.state(of: identity.key) {
            var outcome = outcome(item, status: .unchanged)
            outcome.productID = id
            if doneHash == hash {
                outcome.note = "already done in an earlier run"
            } else {
                outcome.status = .skipped
                outcome.note = "already created as product \(id) in an earlier run; the row has changed since: run without --mode create to update it"
            }
            finish(outcome)
            return nil
        }
        do {
            item.decision = try planner.decide(draft, identity: identity.key)
            return item
        } catch let skip as SyncPlanner.Skip {
            var outcome = outcome(item, status: .skipped)
            outcome.note = skip.note
            finish(outcome)
        } catch let refusal as SyncPlanner.Refusal {
            finish(failed(item, refusal.message))
        } catch {
            finish(failed(item, "the shop could not be asked about this row (\(error)); nothing was sent for it: run again"))
        }
        return nil
    }

    /// Whether the row's photos are compared with the ones its product was created with.
    func needsPhotoCheck(_ item: WorkItem) -> Bool {
        options.comparePhotos && item.draft.given.contains(.images) && item.decision.link?.photos != nil
    }

    /// An equal row: nothing sent.
    func unchangedOutcome(_ item: WorkItem) -> RowOutcome {
        var outcome = outcome(item, status: item.decision.adopted ? .linked : .unchanged)
        outcome.productID = item.decision.action.productID
        outcome.note = item.decision.note
        notePhotos(&outcome, item)
        return outcome
    }

    func notePhotos(_ outcome: inout RowOutcome, _ item: WorkItem) {
        guard item.photosDiffer else { return }
        outcome.photosDiffer = true
        let text = "photos differ from the ones the product was created with: the API cannot replace photos, the product keeps its own"
        outcome.note = [outcome.note, text].compactMap { $0 }.joined(separator: "; ")
    }

    /// SHA-256 of the row's content: what the server would store.
    static func contentHash(_ draft: ProductDraft) -> String {
        let text = [draft.name, draft.description, "\(draft.price)", draft.currency, "\(draft.discountedPrice)",
                    String(draft.stock), draft.stockDelta.map { "Δ\($0)" } ?? "",
                    draft.given.map(\.rawValue).sorted().joined(separator: ","),
                    draft.images.map(\.display).joined(separator: "\n")].joined(separator: "\u{1F}")
        return hex(SHA256.hash(data: Data(text.utf8)))
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    func outcome(_ item: WorkItem, status: RowOutcome.Status) -> RowOutcome {
        RowOutcome(row: item.draft.row, key: item.byName ? "" : item.key,
                   name: item.draft.name.isEmpty ? (item.decision.live?.name ?? "") : item.draft.name, status: status,
                   seconds: Date().timeIntervalSince(item.started), thumbnail: item.decision.live?.thumbnail)
    }

    func failed(_ item: WorkItem, _ message: String, attempts: Int = 0) -> RowOutcome {
        var outcome = outcome(item, status: .failed)
        outcome.error = message
        outcome.attempts = attempts
        outcome.productID = item.decision.action.productID
        let draft = item.draft
        var values: [String: String] = [:]
        for column in draft.given {
            switch column {
            case .name: values["name"] = draft.name
            case .description: values["description"] = draft.description
            case .price: values["price"] = Money.text(draft.price)
            case .currency: values["currency"] = draft.currency
            case .discountedPrice: values["discounted_price"] = Money.text(draft.discountedPrice)
            case .stock: values["stock"] = draft.stockDelta.map { $0 < 0 ? String($0) : "+\($0)" } ?? String(draft.stock)
            case .images: values["images"] = draft.images.map(\.display).joined(separator: "; ")
            case .id, .key: break
            }
        }
        outcome.values = values
        return outcome
    }

    static func failedRow(_ raw: RawRow, message: String) -> RowOutcome {
        var outcome = RowOutcome.failed(row: raw.number, key: raw.values[.key] ?? "", name: raw.values[.name] ?? "", error: message)
        // Whole values: report.xlsx gives them back to be fixed and imported again.
        for (column, value) in raw.values { outcome.values[column.rawValue] = value }
        if let list = raw.imageList { outcome.values["images"] = list.joined(separator: "; ") }
        return outcome
    }
}
