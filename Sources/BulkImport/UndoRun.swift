import Foundation
import Manifest
import OpenMarketAPI
import ShopState
import Support

public struct UndoOptions: Sendable {
    /// The report folder of the run to take back (it holds `run.jsonl`).
    public var folder: URL
    /// Also take back what changed since the run (a product edited after it).
    public var force = false
    /// Report what undo would do; nothing is written.
    public var dryRun = false
    /// The account's link store.
    public var links: URL?

    public init(folder: URL) { self.folder = folder }

    /// Where the undo keeps its own record and report: `folder/undo`.
    public var undoFolder: URL { folder.appendingPathComponent("undo", isDirectory: true) }
}

/// Takes back one recorded run: products it created are deleted, fields it updated
/// restored, products it deleted made again with their saved photos, and the keys
/// linked as they were. Each step is decided against the live shop, so a product
/// changed since the run is left alone (and reported) unless `force`, and a step an
/// interrupted undo already took is not taken twice. The undo records itself in the
/// same form (`undo/run.jsonl`), so it can be taken back too.
public final class UndoRun: @unchecked Sendable {
    public let options: UndoOptions
    let client: any Shop
    let links: LinkStore?
    let report: ImportReport?
    let matcher: ServerMatcher
    private var recorder: RunRecorder?
    private var counts: [String: Int] = [:]
    private let lock = NSLock()
    private let stopping = StopSignal()
    /// The undo's writes, exactly once (made when the undo's record is open).
    private lazy var writer = ProductWriter(shop: client, matcher: matcher, links: links, recorder: recorder,
                                            intents: RecordIntents(recorder: recorder),
                                            lostAnswers: ProductWriter.lostAnswers, stopping: stopping)
    /// Told after each step (done, total, failed).
    public var onProgress: (@Sendable (_ done: Int, _ total: Int, _ failed: Int) -> Void)?

    public init(options: UndoOptions, client: any Shop, report: ImportReport?) throws {
        self.options = options
        self.client = client
        self.report = report
        self.matcher = ServerMatcher(client: client)
        do {
            links = try options.links.map { url throws(LinkStore.Failure) in try LinkStore(url: url) }
        } catch {
            throw ImportStop(error.description)
        }
    }

    public func stop(_ reason: String) { stopping.stop(reason) }

    private var isStopping: Bool { stopping.isStopping }

    /// What undo would take back, in the order it does it (the run's last step first),
    /// one step per product.
    static func steps(_ entries: [RunEntry]) -> [RunEntry] {
        var seen = Set<Int>()
        var steps: [RunEntry] = []
        for entry in entries.reversed() {
            guard let id = entry.id, [.created, .updating, .deleting].contains(entry.event) else { continue }
            // A product made and then deleted by the same run (replaced twice) is one step.
            if seen.insert(id).inserted { steps.append(entry) }
        }
        return steps
    }

    /// Blocking: call from a thread of its own. Throws `ImportStop` when the run cannot
    /// be undone at all (no record, another account); a run already undone is a summary
    /// that says so (`alreadyDone`), with no rows.
    public func run() throws -> ImportSummary {
        let started = Date()
        let folder = options.folder
        guard let entries = try RunRecorder.read(folder), let header = entries.first(where: { $0.event == .begin })?.header else {
            throw ImportStop("\(folder.path) has no record of a run (\(RunRecorder.fileName)): only runs that wrote to the shop can be undone (a dry run records nothing)", exitCode: .badInput)
        }
        let account = ImportRun.accountTag(options.links)
        guard header.account == account else {
            throw ImportStop("that run was made on another account (\(header.server)): give the same server and credentials as the run", exitCode: .badInput)
        }
        let accountLock = options.dryRun ? nil : try AccountState.lock(links: options.links, holder: "undo of \(folder.lastPathComponent)")
        defer { accountLock?.release() }
        guard let earlier = try openRecord(header: header, account: account) else {
            var summary = ImportSummary(server: client.address, mode: .sync, dryRun: false, journal: "")
            summary.undoes = folder.path
            summary.alreadyDone = "already undone: see \(options.undoFolder.appendingPathComponent("report.html").path). To take the undo back: openmarket undo \(options.undoFolder.path)"
            return summary
        }

        let steps = Self.steps(entries)
        var failed = 0
        // The report lists the rows in the sheet's order, whatever order they were taken back in.
        var outcomes: [RowOutcome] = []
        defer {
            for outcome in outcomes.sorted(by: RowOutcome.inSheetOrder) {
                report?.add(outcome)
            }
        }
        for (index, step) in steps.enumerated() {
            if isStopping { break }
            var outcome: RowOutcome
            do {
                switch step.event {
                case .created: outcome = try undoCreate(step, doneBefore: earlier.done.contains(step.id ?? 0))
                case .updating: outcome = try undoUpdate(step, doneBefore: earlier.done.contains(step.id ?? 0))
                default: outcome = try undoDelete(step, remade: earlier.remade[step.id ?? 0],
                                                  remaking: earlier.remaking.contains(step.id ?? 0))
                }
            } catch {
                outcome = row(step, .failed)
                outcome.error = "\(error)"
            }
            if outcome.isFailure { failed += 1 }
            lock.lock()
            counts[outcome.status.rawValue, default: 0] += 1
            lock.unlock()
            outcomes.append(outcome)
            onProgress?(index + 1, steps.count, failed)
        }

        lock.lock()
        var summary = ImportSummary(server: header.server, mode: .sync, dryRun: options.dryRun,
                                    journal: options.undoFolder.appendingPathComponent(RunRecorder.fileName).path)
        summary.counts = counts
        summary.rows = steps.count
        summary.stopped = stopping.reason
        summary.stoppedStatus = stopping.status
        lock.unlock()
        summary.undoes = folder.path
        summary.links = options.links?.path
        summary.seconds = Date().timeIntervalSince(started)
        summary.productsPerSecond = summary.seconds > 0 ? Double(summary.written) / summary.seconds : 0
        if !stopping.isStopping {
            recorder?.end(counts: summary.counts)
            if recorder != nil { try? links?.finishRun(folder: options.undoFolder.path, counts: summary.counts) }
        }
        return summary
    }

    /// What an interrupted attempt of this undo already did: products it made again (old id →
    /// new), ones it was making again, and the steps it sent.
    struct EarlierAttempt {
        var remade: [Int: Int] = [:]
        var remaking = Set<Int>()
        var done = Set<Int>()
    }

    /// Opens the undo's own record, after putting aside an undo of an earlier run of the same
    /// folder; returns what an interrupted attempt did, or nil when the run is already undone.
    private func openRecord(header: RunHeader, account: String) throws -> EarlierAttempt? {
        var mine = try RunRecorder.read(options.undoFolder) ?? []
        if let undoStarted = mine.first?.header?.started, undoStarted < header.started {
            // The folder holds a later run than the one this undo took back: keep that undo aside.
            let aside = options.folder.appendingPathComponent("undo-of-an-earlier-run-\(Int(undoStarted))")
            try FileManager.default.moveItem(at: options.undoFolder, to: aside)
            mine = []
        }
        if mine.contains(where: { $0.event == .end }) && !options.dryRun { return nil }
        if !options.dryRun {
            do {
                let recorder = try RunRecorder(folder: options.undoFolder,
                                               header: RunHeader(kind: .undo, account: account, server: header.server,
                                                                 source: options.folder.path),
                                               client: client)
                self.recorder = recorder
                try links?.beginRun(RecordedRun(folder: options.undoFolder.path, kind: .undo, started: Date(),
                                                source: options.folder.path), resumed: recorder.resumed)
            } catch {
                throw ImportStop("cannot record the undo in \(options.undoFolder.path): \(error)")
            }
        }
        var earlier = EarlierAttempt()
        for entry in mine {
            if entry.event == .recreating, let old = entry.restores { earlier.remaking.insert(old) }
            if entry.event == .created, let old = entry.restores, let id = entry.id { earlier.remade[old] = id }
            if entry.event == .deleting || entry.event == .updating, let id = entry.id { earlier.done.insert(id) }
        }
        return earlier
    }

    private func row(_ step: RunEntry, _ status: RowOutcome.Status, name: String = "") -> RowOutcome {
        RowOutcome(row: step.row ?? 0, key: step.byName == true ? "" : (step.key ?? ""), name: name, status: status,
                   productID: step.id)
    }

    /// The product as the shop has it now; nil when it is gone.
    private func live(_ id: Int) throws -> ProductSummary? {
        do {
            return try client.product(id: id).summary
        } catch {
            if error.status == 404 { return nil }
            throw error
        }
    }

    /// A product the run created: deleted, unless it changed since.
    private func undoCreate(_ step: RunEntry, doneBefore: Bool) throws -> RowOutcome {
        let id = step.id ?? 0
        var outcome = row(step, .unchanged, name: step.after?.name ?? "")
        guard let product = try live(id) else {
            if let key = step.key, let link = try links?.link(key), link.productID == id { try links?.remove(key) }
            if doneBefore { outcome.status = .deleted; outcome.note = "deleted by an earlier attempt of this undo" } else {
                outcome.note = "product \(id), created by the run, is already gone"
            }
            return outcome
        }
        let now = PushedProduct(product)
        if let after = step.after, now != after {
            let changed = after.describeChanges(to: now)
            if !options.force {
                outcome.status = .skipped
                outcome.note = "changed since the run (\(changed)): left alone; undo --force deletes it anyway"
                return outcome
            }
            outcome.note = "changed since the run (\(changed)); deleted because of --force"
        }
        outcome.thumbnail = product.thumbnail
        if options.dryRun {
            outcome.status = .wouldDelete
            return outcome
        }
        let photos = try step.key.flatMap { key in try links?.link(key)?.photos } ?? step.photoHashes
        try writer.delete(id: id, for: subject(step), photoHashes: photos)
        outcome.status = .deleted
        outcome.note = [outcome.note, step.restores.map { "it had replaced deleted product \($0)" }].compactMap { $0 }.joined(separator: "; ")
        if outcome.note?.isEmpty == true { outcome.note = nil }
        return outcome
    }

    /// A product the run updated: the fields back as they were, unless it changed since.
    private func undoUpdate(_ step: RunEntry, doneBefore: Bool) throws -> RowOutcome {
        let id = step.id ?? 0
        guard let before = step.before, let after = step.after else { return row(step, .skipped) }
        var outcome = row(step, .unchanged, name: before.name)
        guard let product = try live(id) else {
            outcome.status = .skipped
            outcome.note = "product \(id) is no longer in the shop: nothing to restore"
            return outcome
        }
        outcome.thumbnail = product.thumbnail
        let now = PushedProduct(product)
        if now == before {
            if doneBefore, let key = step.key, var link = try links?.link(key), link.productID == id, link.pushed != before {
                link.pushed = before
                try links?.save(link)
            }
            if doneBefore { outcome.status = .restored; outcome.note = "restored by an earlier attempt of this undo" } else {
                outcome.note = "already as before the run"
            }
            return outcome
        }
        if now != after {
            let changed = after.describeChanges(to: now)
            if !options.force {
                outcome.status = .skipped
                outcome.note = "changed since the run (\(changed)): left alone; undo --force restores it anyway"
                return outcome
            }
            outcome.note = "changed since the run (\(changed)); restored because of --force"
        }
        outcome.changes = now.describeChanges(to: before)
        if options.dryRun {
            outcome.status = .wouldRestore
            return outcome
        }
        _ = try writer.edit(id: id, now.patch(to: before), for: subject(step), recording: (now, before))
        if let key = step.key, var link = try links?.link(key), link.productID == id {
            link.pushed = before
            link.updatedAt = Date()
            try links?.save(link)
        }
        outcome.status = .restored
        return outcome
    }

    /// A product the run deleted: made again from what was saved, and its key linked to it.
    private func undoDelete(_ step: RunEntry, remade: Int?, remaking: Bool) throws -> RowOutcome {
        let id = step.id ?? 0
        guard let before = step.before else { return row(step, .skipped) }
        var outcome = row(step, .unchanged, name: before.name)
        if try live(id) != nil {
            outcome.note = "product \(id) is still in the shop: the run did not delete it"
            return outcome
        }
        if let remade, let product = try live(remade) {
            // The attempt may have been cut off before it linked the key.
            try writer.settle(subject(step), id: remade, pushed: PushedProduct(product), photos: step.photoHashes, created: false)
            outcome.status = .created
            outcome.productID = remade
            outcome.note = "product \(id) made again as \(remade) by an earlier attempt of this undo"
            return outcome
        }
        var draft = ProductDraft(row: step.row ?? 0, key: step.key, id: nil, name: before.name, description: before.description,
                                 price: Money.decimal(before.price), currency: before.currency,
                                 discountedPrice: Money.decimal(before.discountedPrice), stock: before.stock, images: [])
        draft.given = ProductDraft.allFields
        // An earlier attempt that sent the register had passed these checks.
        if !options.force, !remaking, let key = step.key, let other = try otherProduct(of: key, than: id) {
            outcome.status = .skipped
            outcome.note = "the key \(key) is now product \(other): \(id) is not made again (undo --force makes it anyway)"
            return outcome
        }
        let files = step.photos ?? []
        guard !files.isEmpty else {
            outcome.status = .failed
            outcome.error = "no saved photos for product \(id): it cannot be made again"
            return outcome
        }
        if options.dryRun {
            outcome.status = .wouldCreate
            outcome.note = "would make product \(id) again with its \(files.count) saved photos"
            return outcome
        }
        let images = try files.map { name in
            let data = try Data(contentsOf: options.folder.appendingPathComponent(name))
            return UploadImage(data: data, filename: (name as NSString).lastPathComponent,
                               mimeType: name.hasSuffix(".png") ? "image/png" : "image/jpeg")
        }
        var subject = subject(step)
        subject.restores = id
        let made = try writer.register(before.newProduct, images: images, for: subject, matching: draft,
                                       earlierSendUnknown: remaking)
        try writer.settle(subject, id: made.product.id, pushed: PushedProduct(made.product), photos: step.photoHashes, created: true)
        outcome.status = .created
        outcome.productID = made.product.id
        outcome.thumbnail = made.product.thumbnail
        outcome.note = switch (made.found, made.attempts) {
        case (false, _): "product \(id) made again as \(made.product.id) with its \(images.count) saved photos"
        case (true, 0): "product \(id) made again as \(made.product.id) (found on the server: an earlier attempt's answer was lost)"
        case (true, _): "product \(id) made again as \(made.product.id) (the answer was lost; found on the server)"
        }
        return outcome
    }

    private func subject(_ step: RunEntry) -> WriteSubject {
        WriteSubject(key: step.key, byName: step.byName ?? false, row: step.row ?? 0)
    }

    /// The live product other than `id` that `key` is linked to now, if any.
    private func otherProduct(of key: String, than id: Int) throws -> Int? {
        guard let link = try links?.link(key), let other = link.productID, other != id else { return nil }
        return try live(other) != nil ? other : nil
    }
}
