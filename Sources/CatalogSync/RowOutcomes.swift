import Support
import Foundation
import Words
import Manifest
import OpenMarketAPI
import ShopState

/// Work a source decides itself beside the rows (an undo's steps): the rows it reports, in
/// order, and its write, which returns their outcomes. One write worker takes a task whole,
/// so that steps of one product or key run in their order.
public struct RowTask: Sendable {
    var rows: [Int]
    var write: @Sendable () -> [RowOutcome]
}

/// A row on its way through the pipeline.
struct WorkItem: Sendable {
    var draft: ProductDraft
    /// The row's link key: its merchant key, else `name:` and its name.
    var key: String
    var byName: Bool
    var hash: String
    var started: Date
    var decision: RowDecision
    var images: [UploadImage] = []
    var before: [Int] = []
    var after: [Int] = []
    /// Content hashes of the row's photos (computed when they are read).
    var photoHashes: [String]?
    var photosDiffer = false
    /// What preparing the photos found worth telling (a photo too small to look sharp).
    var photoNotes: [Phrase] = []
}

/// Every outcome of a row is assembled here, from the row as it went through the stages.
extension WorkItem {
    func outcome(_ status: RowOutcome.Status) -> RowOutcome {
        RowOutcome(row: draft.row, key: byName ? "" : key,
                   name: draft.fields.name.isEmpty ? (decision.live?.name ?? "") : draft.fields.name, status: status,
                   seconds: Date().timeIntervalSince(started), thumbnail: decision.live?.thumbnail)
    }

    /// An equal row: nothing sent.
    func unchangedOutcome() -> RowOutcome {
        var outcome = outcome(decision.adopted ? .linked : .unchanged)
        outcome.productID = decision.action.productID
        outcome.notes = decisionNotes
        notePhotos(&outcome)
        return outcome
    }

    func notePhotos(_ outcome: inout RowOutcome) {
        guard photosDiffer else { return }
        outcome.photosDiffer = true
        outcome.notes.append(Phrase("n_photos_differ"))
    }

    /// The planner's notes of the row (how it was matched).
    var decisionNotes: [Phrase] { decision.notes }

    /// The run stopped before the row was sent: not a failure, not among the rows to fix.
    func notSent(_ why: Phrase = RowOutcome.notSentNote) -> RowOutcome {
        var outcome = outcome(.notSent)
        outcome.notes = decisionNotes + [why]
        outcome.productID = decision.action.productID
        return outcome
    }

    /// The row failed: the error, and the row's values (report.xlsx gives them back to fix).
    func failed(_ message: String, attempts: Int = 0) -> RowOutcome {
        var outcome = outcome(.failed)
        outcome.error = message
        outcome.attempts = attempts
        outcome.productID = decision.action.productID
        var values: [String: String] = [:]
        for column in draft.given {
            switch column {
            case .name: values["name"] = draft.fields.name
            case .description: values["description"] = draft.fields.description
            case .price: values["price"] = draft.fields.price.description
            case .currency: values["currency"] = draft.fields.currency
            case .discountedPrice: values["discounted_price"] = draft.fields.discountedPrice.description
            case .stock: values["stock"] = draft.stockDelta.map { $0 < 0 ? String($0) : "+\($0)" } ?? String(draft.fields.stock)
            case .images: values["images"] = draft.images.map(\.display).joined(separator: "; ")
            case .id, .key, .salePrice, .vendor: break
            }
        }
        outcome.values = values
        return outcome
    }

    /// The outcome with the row's time, from when it was read to now.
    func timed(_ outcome: RowOutcome) -> RowOutcome {
        var outcome = outcome
        outcome.seconds = Date().timeIntervalSince(started)
        return outcome
    }

    /// The photos as prepared, on a row that sends them; and what a new product is made with
    /// (`price 32000 KRW, discount 2000, stock 8`), in the report's changes column.
    func withPhotos(_ outcome: RowOutcome) -> RowOutcome {
        var outcome = outcome
        if outcome.changesSaid == nil {
            let full = RowWork.merged(draft, decision.live)
            var parts = [FieldChange.phrase(field: "price", value: "\(full.fields.price) \(full.fields.currency)")]
            if full.fields.discountedPrice > 0 { parts.append(FieldChange.phrase(field: "discount", value: "\(full.fields.discountedPrice)")) }
            parts.append(FieldChange.phrase(field: "stock", value: "\(max(0, full.stockDelta ?? full.fields.stock))"))
            outcome.changesSaid = .list(parts, separator: ", ")
        }
        outcome.notes = decisionNotes + photoNotes
        outcome.imagesBefore = before
        outcome.imagesAfter = after
        outcome.photo = images.first?.data
        return outcome
    }

    /// What the changes were, on a row that updates (or would).
    static func describe(_ outcome: inout RowOutcome, _ changes: FieldChanges) {
        outcome.changesSaid = changes.phrase
        outcome.changedFields = changes.fields
        outcome.stockToZero = changes.stockToZero
    }
}

extension RowOutcome {
    /// A row that failed before it reached the stages (it could not be read or validated).
    static func failed(_ raw: RawRow, message: String) -> RowOutcome {
        var outcome = RowOutcome.failed(row: raw.number, key: raw.values[.key] ?? "", name: raw.values[.name] ?? "", error: message)
        // Whole values: report.xlsx gives them back to be fixed and imported again.
        for (column, value) in raw.values { outcome.values[column.rawValue] = value }
        if let list = raw.imageList { outcome.values["images"] = list.joined(separator: "; ") }
        return outcome
    }
}

/// What identifies a row's content and a photo: SHA-256 in hex.
enum ContentHash {
    /// SHA-256 of the row's content: what the server would store.
    static func of(_ draft: ProductDraft) -> String {
        let product: Product = draft.fields
        let parts: [String] = [product.name, product.description, "\(product.price)", product.currency, "\(product.discountedPrice)",
                               String(product.stock)]
        let text = (parts + [draft.stockDelta.map { "Δ\($0)" } ?? "",
                    draft.given.map(\.rawValue).sorted().joined(separator: ","),
                    draft.images.map(\.display).joined(separator: "\n")]).joined(separator: "\u{1F}")
        return SHA256.hash(data: Data(text.utf8)).hex
    }

    /// A photo file's identity: SHA-256 of its bytes.
    static func photo(_ data: Data) -> String { SHA256.hash(data: data).hex }

    /// A photo given by URL is known by its address (it is not downloaded to compare).
    static func photo(url: String) -> String { "url:" + SHA256.hash(data: Data(url.utf8)).hex }
}
