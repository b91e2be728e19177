import Foundation
import Words
import Manifest
import OpenMarketAPI
import ShopState
import Support

public struct UndoOptions: Sendable {
    /// The report folder of the run to take back (its record is found by it).
    public var folder: URL
    /// The run's record; nil: found by the folder (`RunRecords.find`).
    public var record: (any RunRecordStore)?
    /// Also take back what changed since the run (a product edited after it).
    public var force = false
    /// Report what undo would do; nothing is written.
    public var dryRun = false
    /// The account's link store.
    public var links: StoreAddress?
    /// The undo's journal (a shard's part of a run names its own); nil: `undo-FOLDER`.
    public var journalName: String?

    /// Where the undo keeps its report, and by which its own record is found: `folder/undo`
    /// (a run recorded on another machine: a folder of this one).
    public var undoFolder: URL

    public init(folder: URL) {
        self.folder = folder
        undoFolder = folder.appendingPathComponent("undo", isDirectory: true)
    }
}

/// Takes back one recorded run, as a source of the one sync: products it created are
/// deleted, fields it updated restored, products it deleted made again with their saved
/// photos, and the keys linked as they were. Each step is decided against the live shop, so
/// a product changed since the run is left alone (and reported) unless `force`, and a step an
/// interrupted undo already took is not taken twice. The sync runs the steps as it runs an
/// import's rows (its write workers and adaptive pace, its record, report, lock and stop);
/// the undo records itself in the same form (`undo/run.jsonl`), so it can be taken back too.
public struct UndoRows: RowSource {
    public let options: UndoOptions
    /// The run's steps, the last first, one per product.
    let steps: [RunEntry]
    let earlier: EarlierAttempt
    /// Where the run's record is (its saved photos with it).
    let record: any RunRecordStore
    /// Set when the run was already taken back: what to say instead of running.
    public let alreadyDone: Phrase?
    /// Whether the run was taken back already, said as `alreadyDone` says it, a plan's too
    /// (a plan of it would only find the products gone).
    public let undoneBefore: Phrase?

    public var kind: RunKind { .undo }
    /// `runs` lists an undo by the folder it took back.
    public var label: String { options.folder.path }
    public var title: String { "undo of \(options.folder.lastPathComponent)" }
    public var manifest: URL? { nil }
    /// Products the undo touches.
    public var count: Int { steps.count }

    /// Reads the run's record. Throws `SyncStop` when the run cannot be undone at all (no
    /// record, another account); a run already undone says so in `alreadyDone`. An undo
    /// left in the folder from an earlier run of it is put aside first.
    public init(_ options: UndoOptions) throws(SyncStop) {
        self.options = options
        let folder = options.folder
        let found: (any RunRecordStore)?
        let entries: [RunEntry]?
        do {
            found = try options.record ?? RunRecords.find(folder, links: options.links)
            entries = try found.flatMap(RunRecorder.read)
        } catch {
            throw SyncStop(say: "s_record_unreadable", folder.path, "\(error)", cause: .input)
        }
        guard let found, let entries, let header = entries.first(where: { $0.event == .begin })?.header else {
            throw SyncStop(say: "s_no_record", folder.path, RunRecorder.fileName, cause: .input)
        }
        record = found
        guard header.account == SyncRun.accountTag(options.links) else {
            throw SyncStop(say: "s_other_account", header.server, cause: .input)
        }
        try MoveGuard.refuseCopiesBeforeSource(folder, links: options.links)
        steps = Self.steps(entries)
        var mine: [RunEntry]
        do {
            let own = try RunRecords.find(options.undoFolder, links: options.links)
            mine = try own.flatMap(RunRecorder.read) ?? []
            if let own, let undoStarted = mine.first?.header?.started, undoStarted < header.started {
                // The folder holds a later run than the one this undo took back: that undo is
                // put aside (a folder's), or closed (the shared state's), and this one starts anew.
                if own is FolderRecord {
                    let aside = folder.appendingPathComponent("undo-of-an-earlier-run-\(Int(undoStarted))")
                    try FileManager.default.moveItem(at: options.undoFolder, to: aside)
                } else if !mine.contains(where: { $0.event == .end }) {
                    try own.append(JSONEncoder().encode(RunEntry(event: .end)), durable: true)
                }
                mine = []
            }
        } catch {
            throw SyncStop("cannot read the undo's own record of \(options.undoFolder.path): \(error)", cause: .input)
        }
        undoneBefore = mine.contains(where: { $0.event == .end })
            ? Self.alreadyUndone(options.undoFolder)
            : nil
        alreadyDone = options.dryRun ? nil : undoneBefore
        earlier = EarlierAttempt(mine)
    }

    /// What an undo of a run taken back already says: where, and how to take the undo back.
    static func alreadyUndone(_ undoFolder: URL) -> Phrase {
        Phrase("f_undo_already", undoFolder.appendingPathComponent("report.html").path, undoFolder.path)
    }

    /// An undo's record and report go in `undo/` beside the run it takes back (a plan's in a
    /// folder of its own there); its own journal.
    public func reportPlace(dryRun: Bool, account: AccountState) -> ReportPlace? {
        options.dryRun ? .new(in: options.folder, prefix: "undo-plan") : .given(options.undoFolder)
    }

    public var journalName: String? { options.journalName ?? "undo-\(options.folder.lastPathComponent)" }

    /// No photo caches: the saved photos are sent as they are.
    public func shape(_ run: inout SyncOptions, useCaches: inout Bool) {
        run.dryRun = options.dryRun
        useCaches = false
    }

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

    /// The steps as the sync's tasks: steps of one key stay together, in their order (a key
    /// moved from a deleted product to a new one: the new one goes before the old comes back),
    /// and the tasks go in the sheet's order, as the report lists them.
    static func tasks(_ steps: [RunEntry]) -> [[RunEntry]] {
        var groups: [[RunEntry]] = []
        var groupOfKey: [String: Int] = [:]
        for step in steps {
            let key = step.key ?? "#\(step.id ?? 0)"
            if let index = groupOfKey[key] { groups[index].append(step); continue }
            groupOfKey[key] = groups.count
            groups.append([step])
        }
        func place(_ group: [RunEntry]) -> (Int, Int) {
            let first = group.min { ($0.row ?? 0, $0.id ?? 0) < ($1.row ?? 0, $1.id ?? 0) }
            return (first?.row ?? 0, first?.id ?? 0)
        }
        return groups.sorted { place($0) < place($1) }
    }

    public func rows(into sink: any RowSink) throws {
        try sink.tasks(count: steps.count) { tools, submit in
            let undo = UndoSteps(tools: tools, options: options, record: record, earlier: earlier)
            for group in Self.tasks(steps) {
                submit(RowTask(rows: group.map { $0.row ?? 0 }, write: { group.map(undo.take) }))
            }
        }
    }

    public func annotate(_ summary: inout SyncSummary) { summary.undoes = options.folder.path }

    /// What an interrupted attempt of this undo already did: products it made again (old id →
    /// new), ones it was making again, and the steps it sent.
    struct EarlierAttempt: Sendable {
        var remade: [Int: Int] = [:]
        var remaking = Set<Int>()
        var done = Set<Int>()

        init(_ entries: [RunEntry]) {
            for entry in entries {
                if entry.event == .recreating, let old = entry.restores { remaking.insert(old) }
                if entry.event == .created, let old = entry.restores, let id = entry.id { remade[old] = id }
                if entry.event == .deleting || entry.event == .updating, let id = entry.id { done.insert(id) }
            }
        }
    }
}

/// One undo step against the live shop, through the run's writer and link store.
struct UndoSteps: Sendable {
    let options: UndoOptions
    /// The run's record, with the photos it saved before its deletes.
    let record: any RunRecordStore
    let earlier: UndoRows.EarlierAttempt
    let client: any Shop
    let links: LinkStore?
    let writer: ProductWriter

    init(tools: TaskTools, options: UndoOptions, record: any RunRecordStore, earlier: UndoRows.EarlierAttempt) {
        self.options = options
        self.record = record
        self.earlier = earlier
        client = tools.shop
        links = tools.links
        writer = tools.writer
    }

    /// The step's outcome; a step that cannot be taken is a failed row, naming why.
    func take(_ step: RunEntry) -> RowOutcome {
        let started = Date()
        var outcome: RowOutcome
        do {
            let id = step.id ?? 0
            switch step.event {
            case .created: outcome = try undoCreate(step, doneBefore: earlier.done.contains(id))
            case .updating: outcome = try undoUpdate(step, doneBefore: earlier.done.contains(id))
            default: outcome = try undoDelete(step, remade: earlier.remade[id], remaking: earlier.remaking.contains(id))
            }
        } catch {
            outcome = row(step, .failed)
            outcome.error = "\(error)"
        }
        outcome.seconds = Date().timeIntervalSince(started)
        // A read, and a write when one was made: what the run's pace learns from.
        outcome.attempts = [.deleted, .restored, .created].contains(outcome.status) ? 2 : 1
        return outcome
    }

    private func row(_ step: RunEntry, _ status: RowOutcome.Status, name: String = "") -> RowOutcome {
        RowOutcome(row: step.row ?? 0, key: step.byName == true ? "" : (step.key ?? ""), name: name, status: status,
                   productID: step.id)
    }

    /// The product as the shop has it now; nil when it is gone.
    private func live(_ id: Int) throws -> ProductSummary? { try detail(id)?.summary }

    private func detail(_ id: Int) throws -> ProductDetail? {
        do {
            return try client.product(id: id)
        } catch {
            if error.status == 404 { return nil }
            throw error
        }
    }

    /// A product the run created: deleted, unless it changed since.
    private func undoCreate(_ step: RunEntry, doneBefore: Bool) throws -> RowOutcome {
        let id = step.id ?? 0
        var outcome = row(step, .unchanged, name: step.after?.name ?? "")
        guard let detail = try detail(id) else {
            if let key = step.key, let link = try links?.link(key), link.productID == id { try links?.remove(key) }
            if doneBefore { outcome.status = .deleted; outcome.notes = [Phrase("n_deleted_before")] } else {
                outcome.notes = [Phrase("n_created_gone", String(id))]
            }
            return outcome
        }
        let product = detail.summary
        let now = Product(product)
        if let after = step.after, !goesOn(changedFrom: after, to: now, verb: "deletes", done: "deleted", &outcome) { return outcome }
        outcome.thumbnail = product.thumbnail
        if options.dryRun {
            outcome.status = .wouldDelete
            return outcome
        }
        let photos = try step.key.flatMap { key in try links?.link(key)?.photos } ?? step.photoHashes
        // The report's picture: the first photo just saved for undo, not a second download.
        outcome.photo = try writer.delete(id: id, for: subject(step), photoHashes: photos, known: detail)
        outcome.status = .deleted
        if let restores = step.restores { outcome.notes.append(Phrase("n_had_replaced", String(restores))) }
        return outcome
    }

    /// A product the run updated: the fields back as they were, unless it changed since.
    private func undoUpdate(_ step: RunEntry, doneBefore: Bool) throws -> RowOutcome {
        let id = step.id ?? 0
        guard let before = step.before, let after = step.after else { return row(step, .skipped) }
        var outcome = row(step, .unchanged, name: before.name)
        guard let product = try live(id) else {
            outcome.status = .skipped
            outcome.notes = [Phrase("n_gone_nothing_to_restore", String(id))]
            return outcome
        }
        outcome.thumbnail = product.thumbnail
        let now = Product(product)
        if now == before {
            if doneBefore, let key = step.key, var link = try links?.link(key), link.productID == id, link.pushed != before {
                link.pushed = before
                try links?.save(link)
            }
            if doneBefore { outcome.status = .restored; outcome.notes = [Phrase("n_restored_before")] } else {
                outcome.notes = [Phrase("n_as_before")]
            }
            return outcome
        }
        if !goesOn(changedFrom: after, to: now, verb: "restores", done: "restored", &outcome) { return outcome }
        outcome.changesSaid = now.changesPhrase(to: before)
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
            outcome.notes = [Phrase("n_still_there", String(id))]
            return outcome
        }
        if let remade, let product = try live(remade) {
            // The attempt may have been cut off before it linked the key.
            try writer.settle(subject(step), id: remade, pushed: Product(product), photos: step.photoHashes, created: false)
            outcome.status = .created
            outcome.productID = remade
            outcome.notes = [Phrase("n_remade_before", String(id), String(remade))]
            return outcome
        }
        var draft = ProductDraft(row: step.row ?? 0, key: step.key, id: nil, name: before.name, description: before.description,
                                 price: before.price, currency: before.currency,
                                 discountedPrice: before.discountedPrice, stock: before.stock, images: [])
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
            let data = try record.photo(name)
            return UploadImage(data: data, filename: (name as NSString).lastPathComponent,
                               mimeType: name.hasSuffix(".png") ? "image/png" : "image/jpeg")
        }
        var subject = subject(step)
        subject.restores = id
        let made = try writer.register(before.newProduct, images: images, for: subject, matching: draft,
                                       earlierSendUnknown: remaking)
        try writer.settle(subject, id: made.product.id, pushed: Product(made.product), photos: step.photoHashes, created: true)
        outcome.status = .created
        outcome.productID = made.product.id
        outcome.thumbnail = made.product.thumbnail
        outcome.notes = switch (made.found, made.attempts) {
        case (false, _): [Phrase("n_remade", String(id), String(made.product.id), String(images.count))]
        case (true, 0): [Phrase("n_remade_found", String(id), String(made.product.id))]
        case (true, _): [Phrase("n_remade_lost", String(id), String(made.product.id))]
        }
        return outcome
    }

    /// A product changed since the run (`now` is not what the run left): left alone and said
    /// so (false), unless `--force` (true, with a note). Unchanged: true.
    private func goesOn(changedFrom after: Product, to now: Product, verb: String, done: String, _ outcome: inout RowOutcome) -> Bool {
        guard now != after else { return true }
        let changed = after.describeChanges(to: now)
        guard options.force else {
            outcome.status = .skipped
            outcome.note = "changed since the run (\(changed)): left alone; undo --force \(verb) it anyway"
            return false
        }
        outcome.note = "changed since the run (\(changed)); \(done) because of --force"
        return true
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
