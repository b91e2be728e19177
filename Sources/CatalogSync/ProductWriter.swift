import Foundation
import Manifest
import OpenMarketAPI
import ShopState
import Support

/// Whom a write is for: the link key (a merchant key, or `name:` and the name), the row it
/// came from (0 when none), and what a journal compares (`hash`) or an undo remakes (`restores`).
struct WriteSubject: Sendable {
    var key: String?
    var byName = false
    var row = 0
    /// The row's content hash (import's journal tells a changed row from a done one).
    var hash = ""
    /// The deleted product a register makes again (undo).
    var restores: Int?
}

/// Where the intent of a write is kept before its request leaves, so that a run cut off
/// after sending knows to look on the server before sending again. Import keeps it in the
/// manifest's journal; undo in its own run record (`recreating`).
protocol WriteIntents: Sendable {
    /// Before a request: the intent is recorded, on disk when it returns unless `durable` is
    /// false (a create whose pending link is made durable right after says the same).
    func sending(_ subject: WriteSubject, durable: Bool) throws
    func done(_ subject: WriteSubject, id: Int) throws
    /// A write the server refused, or that stayed without an answer: kept for the next run.
    func failed(_ subject: WriteSubject, _ error: String)
}

/// Why a write did not happen, and whether the server may have it.
struct WriteFailure: Error, CustomStringConvertible {
    enum Kind: Sendable {
        /// Nothing left: the run was stopping, or the intent could not be recorded.
        case notSent
        /// The server answered no (or never answered, and the product is not there).
        case refused
        /// The server may have it and cannot be asked now: nothing is sent again until it can.
        case unknown
    }
    var kind: Kind
    var message: String
    /// Requests sent for it.
    var attempts = 0
    var description: String { message }
}

/// One product's write, exactly once, for every command that writes products: import's
/// rows and `--replace-photos`, `--delete-missing`, undo, and through import, migrate,
/// restore and feed runs. Each write goes intent (journal) → server → run record (for
/// undo) → link store. A register whose answer was lost is looked for on the server before
/// anything is sent again, under one retry policy; a record or link that cannot be written
/// stops the run before another request leaves.
public final class ProductWriter: Sendable {
    /// After a register's answer is lost: a quick loss is looked for and sent again; one after
    /// the transport's answer timeout (a slow server, which may still be storing what it was
    /// sent) is looked for over a wait and otherwise left unknown.
    /// Half as long again as the client waited for the answer (curl's low-speed check gives
    /// up about 5 s after its time, what it sent counting for that long): 50 s at the default 30.
    public static let lostAnswers = LostAnswerWait(slowAfter: Double(TransportSettings().lowSpeedTime),
                                                   seconds: Double(TransportSettings().lowSpeedTime) * 1.5 + 5)

    let shop: any Shop
    let matcher: ServerMatcher
    let links: LinkStore?
    let recorder: RunRecorder?
    let intents: any WriteIntents
    let lostAnswers: LostAnswerWait
    let stopping: StopSignal
    let gate: CredentialGate
    /// Stops the run when the server stops answering writes.
    let breaker: AnswerBreaker

    init(shop: any Shop, matcher: ServerMatcher, links: LinkStore?, recorder: RunRecorder?, intents: any WriteIntents,
         lostAnswers: LostAnswerWait, stopping: StopSignal, credentialsChecked: Bool = true) {
        self.shop = shop
        self.matcher = matcher
        self.links = links
        self.recorder = recorder
        self.intents = intents
        self.lostAnswers = lostAnswers
        self.stopping = stopping
        gate = CredentialGate(checked: credentialsChecked, stopping: stopping)
        breaker = AnswerBreaker(stopping: stopping)
    }

    /// A product the server has for a register: made by this call, or found after a lost answer.
    struct Registered {
        var product: ProductSummary
        /// Found on the server instead of sent (again): the answer to an earlier send was lost.
        var found = false
        var attempts = 0
    }

    /// Registers `product` exactly once. `earlierSendUnknown`: a run before this one sent it
    /// and heard nothing, so the server is asked first. `pending`: the link saved as pending
    /// before each send (the next run resolves it). The product is claimed for the row.
    func register(_ product: Product, images: [UploadImage], for subject: WriteSubject, matching draft: ProductDraft,
                  earlierSendUnknown: Bool = false, pending: ProductLink? = nil) throws(WriteFailure) -> Registered {
        if earlierSendUnknown {
            switch matcher.look(draft) {
            case .success(let found?): return Registered(product: found, found: true)
            case .success(nil): break
            case .failure(let error):
                breaker.ended(error)
                throw WriteFailure(kind: .unknown, message: "an earlier write has no known outcome and the server cannot be checked now (\(error)); run again to finish")
            }
        }
        // An answer lost is never a second product. Lost quickly (a connection the server
        // closed before any answer: an idle keep-alive it was closing), the server is looked at
        // and, without it, sent again, `quickAttempts` in all. Lost after the client waited
        // `slowAfter` for it, the server is slow and may still be storing it: it is looked at
        // over the wait, and one it never lists is left unknown, its intent and pending link
        // kept: the next run looks first and sends it only if the server still does not have
        // it. If the server cannot be asked, nothing is sent either.
        var attempt = 0
        while true {
            attempt += 1
            // With a pending link (durable: the next run of any sheet looks for the product),
            // the journal's line needs no sync of its own.
            try announce(subject, attempts: attempt - 1, durable: pending == nil)
            if let pending { try save(pending, attempts: attempt - 1) }
            let sent = Date()
            do throws(OpenMarketError) {
                let made = try gate.pass { () throws(OpenMarketError) in try shop.register(product, images: images) }
                breaker.answered()
                _ = matcher.claim(made.id, row: subject.row)
                return Registered(product: made.summary, attempts: attempt)
            } catch where error.isAmbiguous {
                if Date().timeIntervalSince(sent) >= lostAnswers.slowAfter {
                    return try afterSlowAnswer(draft, error: error, attempts: attempt)
                }
                Thread.sleep(forTimeInterval: lostAnswers.firstLook * Double(1 << min(attempt - 1, 6)))
                switch matcher.look(draft) {
                case .success(let found?):
                    breaker.answered()
                    return Registered(product: found, found: true, attempts: attempt)
                case .success(nil): break
                case .failure(let lookError):
                    breaker.silent("\(error)")
                    throw WriteFailure(kind: .unknown, message: "the answer was lost and the server cannot be checked now (\(lookError)); run again to finish", attempts: attempt)
                }
                guard attempt < lostAnswers.quickAttempts, !stopping.isStopping else {
                    breaker.silent("\(error)")
                    intents.failed(subject, "no answer after \(attempt) attempts")
                    throw WriteFailure(kind: .refused, message: "no answer from the server after \(attempt) attempts (\(error)), and the product is not on the server", attempts: attempt)
                }
            } catch {
                breaker.ended(error)
                intents.failed(subject, "\(error)")
                throw WriteFailure(kind: .refused, message: "\(error)", attempts: attempt)
            }
        }
    }

    /// Looks for a product whose register a slow server did not answer, over `lostAnswers`'
    /// wait (at growing intervals; a stop ends the wait): found, it is the row's; else unknown.
    private func afterSlowAnswer(_ draft: ProductDraft, error: OpenMarketError, attempts: Int) throws(WriteFailure) -> Registered {
        let started = Date()
        var pause = lostAnswers.firstLook
        while true {
            Thread.sleep(forTimeInterval: pause)
            switch matcher.look(draft) {
            case .success(let found?):
                breaker.answered()
                return Registered(product: found, found: true, attempts: attempts)
            case .success(nil): break
            case .failure(let lookError):
                breaker.silent("\(error)")
                throw WriteFailure(kind: .unknown, message: "no answer (\(error)), and the server cannot be checked now (\(lookError)); not sent again: run again, the next run looks for it first", attempts: attempts)
            }
            let waited = Date().timeIntervalSince(started)
            guard waited < lostAnswers.seconds, !stopping.isStopping else {
                breaker.silent("\(error)")
                throw WriteFailure(kind: .unknown, message: "no answer (\(error)), and the server has not listed it \(Int(waited.rounded())) s later; not sent again, so that it is never made twice: run again, the next run looks for it first and sends it only if the server still does not have it", attempts: attempts)
            }
            pause = min(lostAnswers.mostBetweenLooks, pause * 2, max(0.05, lostAnswers.seconds - waited))
        }
    }

    /// Sends a PATCH; the product's fields before and after it go into the run's record
    /// first, so that undo can put them back.
    func edit(id: Int, _ changes: ProductPatch, for subject: WriteSubject,
              recording fields: (before: Product, after: Product)?) throws(WriteFailure) -> ProductDetail {
        try announce(subject, attempts: 0)
        if let recorder, let fields {
            do {
                try recorder.updating(id: id, key: subject.key ?? "", byName: subject.byName, row: subject.row,
                                      before: fields.before, after: fields.after)
            } catch {
                throw halt("not sent: the run's record for undo cannot be written (\(error))")
            }
        }
        do {
            let edited = try gate.pass { () throws(OpenMarketError) in try shop.edit(id: id, changes) }
            breaker.answered()
            return edited
        } catch {
            breaker.ended(error)
            intents.failed(subject, "\(error)")
            throw WriteFailure(kind: .refused, message: "\(error)", attempts: 1)
        }
    }

    /// Deletes a product after saving it and its photos in the run's record (undo makes it
    /// again from them); the key linked to it is unlinked. `known`: the product as just read.
    /// Returns its first photo as saved (nil without a record).
    @discardableResult
    func delete(id: Int, for subject: WriteSubject, photoHashes: [String]?, known: ProductDetail? = nil) throws(WriteFailure) -> Data? {
        if stopping.isStopping { throw WriteFailure(kind: .notSent, message: "not sent: the run stopped before this") }
        let photo: Data?
        do {
            photo = try recorder?.deleting(id: id, key: subject.key, byName: subject.byName, row: subject.row, photoHashes: photoHashes,
                                           known: known)
        } catch {
            let message = "not deleted: its photos could not be saved for undo (\(error))"
            if error is AppendLog.Failure { throw halt(message) }
            throw WriteFailure(kind: .notSent, message: message)
        }
        do {
            try gate.pass { () throws(OpenMarketError) in try shop.delete(id: id) }
            breaker.answered()
        } catch {
            breaker.ended(error)
            throw WriteFailure(kind: .refused, message: "not deleted: \(error)", attempts: 1)
        }
        if let key = subject.key {
            do {
                if try links?.link(key)?.productID == id { try links?.remove(key) }
            } catch {
                throw halt("deleted, but the link of \(key) cannot be removed (\(error))")
            }
        }
        return photo
    }

    /// After the server's answer: the intent is done, the run's record learns a product the
    /// run made (`created`), and the key is linked to it. A crash between the record and the
    /// link leaves a pending link, which the next run resolves without recording it again.
    /// Throws (and stops the run) when they cannot be written.
    /// `durableLink: false` when a pending link of this key was made durable before the write
    /// (a create): the link is then on disk with the next durable change of the store, and a
    /// power cut before it leaves the pending link, which the next run resolves.
    func settle(_ subject: WriteSubject, id: Int, pushed: Product?, photos: [String]?, created: Bool,
                durableLink: Bool = true) throws(WriteFailure) {
        do {
            try intents.done(subject, id: id)
            if created, let pushed {
                try recorder?.created(id: id, key: subject.key ?? "", byName: subject.byName, row: subject.row,
                                      after: pushed, photoHashes: photos, restores: subject.restores)
            }
            if let key = subject.key {
                try links?.save(ProductLink(key: key, byName: subject.byName, productID: id, state: .linked,
                                            pushed: pushed, photos: photos), durable: durableLink)
            }
        } catch {
            throw halt("\(error); the next run finds the product on the server and links it")
        }
    }

    /// A record line of a step with no request (a product adopted, or taken back by an
    /// earlier attempt): the same failure rule as a write's.
    func recording(_ body: () throws -> Void) throws(WriteFailure) {
        do { try body() } catch { throw halt("not sent: the run's record cannot be written (\(error))") }
    }

    private func announce(_ subject: WriteSubject, attempts: Int, durable: Bool = true) throws(WriteFailure) {
        if stopping.isStopping {
            throw WriteFailure(kind: .notSent, message: "not sent: the run stopped before this row", attempts: attempts)
        }
        do { try intents.sending(subject, durable: durable) } catch { throw halt("not sent: \(error)", attempts: attempts) }
    }

    private func save(_ link: ProductLink, attempts: Int) throws(WriteFailure) {
        do { try links?.save(link) } catch { throw halt("not sent: \(error)", attempts: attempts) }
    }

    /// A state that cannot be written stops the run: no other request leaves.
    private func halt(_ message: String, attempts: Int = 0) -> WriteFailure {
        stopping.stop(message)
        return WriteFailure(kind: .notSent, message: message, attempts: attempts)
    }
}

/// A run's intents: the journal (sent → done or failed, with the row's hash), and, before a
/// deleted product is made again (an undo), a `recreating` line in the run's record; the
/// `created` line that follows is its end.
struct RunIntents: WriteIntents {
    let journal: Journal
    let recorder: RunRecorder?

    func sending(_ subject: WriteSubject, durable: Bool) throws {
        if subject.restores != nil {
            var intent = RunEntry(event: .recreating, id: nil, key: subject.key, byName: subject.byName, row: subject.row)
            intent.restores = subject.restores
            try recorder?.append(intent)
        }
        try journal.record(.sent, key: subject.key ?? "", hash: subject.hash, row: subject.row, durable: durable)
    }

    func done(_ subject: WriteSubject, id: Int) throws {
        try journal.record(.done, key: subject.key ?? "", hash: subject.hash, row: subject.row, id: id)
    }

    func failed(_ subject: WriteSubject, _ error: String) {
        try? journal.record(.failed, key: subject.key ?? "", hash: subject.hash, row: subject.row, error: error)
    }
}

extension OpenMarketError {
    /// The request may or may not have reached the server.
    var isAmbiguous: Bool {
        if case .ambiguous = self { return true }
        return false
    }
}

/// What follows a register whose answer is lost.
public struct LostAnswerWait: Sendable {
    /// An answer lost after the client waited this long for it: a slow server, given
    /// `seconds` to list the product, never sent it again by this run.
    public var slowAfter: TimeInterval
    /// Seconds a slow server is given to list it.
    public var seconds: TimeInterval
    /// The first look, then twice as long between looks, up to `mostBetweenLooks`.
    public var firstLook: TimeInterval = 0.2
    public var mostBetweenLooks: TimeInterval = 5
    /// An answer lost sooner (a connection closed before any answer): looked for, then sent
    /// again, this many sends in all.
    public var quickAttempts = 3

    public init(slowAfter: TimeInterval, seconds: TimeInterval) {
        self.slowAfter = slowAfter
        self.seconds = seconds
    }
}
