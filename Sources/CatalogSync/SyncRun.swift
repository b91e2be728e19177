import Foundation
import Words
import ImagePrep
import Manifest
import OpenMarketAPI
import ShopState
import Support

/// read → validate → decide (against the live shop) → prepare images (all cores)
/// → write (`jobs` workers) → record. The stages overlap through bounded
/// queues, so memory stays flat.
public final class SyncRun: RowSink, @unchecked Sendable {
    public let options: SyncOptions
    let client: any Shop
    let journal: Journal
    let links: LinkStore?
    let matcher: ServerMatcher
    /// What the run does, for `undo` (nil in a dry run, or when not asked for).
    let recorder: RunRecorder?
    /// Every write of the run, exactly once.
    let writer: ProductWriter
    /// The work on one row (decide, prepare, write), returning its outcome.
    let work: RowWork
    /// How many writes are in flight at once (fixed, or found while the run goes).
    let inFlight: AdaptiveLimit
    let vendor: VendorFact
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    private var fieldsChanged: [String: Int] = [:]
    private var stockToZero = 0
    private var priceGuarded = 0
    private var photosDiffer = 0
    private var finished = 0
    private var failures = 0
    private var total = 0
    private let stopping = StopSignal()
    private let started = Date()
    /// Why delete-missing sent nothing, when it was refused as a whole.
    private var deletesRefused: Phrase?
    /// Products the shop seems to hold twice for one key, once every row is decided.
    private var shopCopies: [ShopCopy] = []
    /// How the source was read (another platform's export, with its map).
    private var readAs: Phrase?
    /// Finished rows go to the report in the sheet's order.
    private let order = RowOrder()
    /// Held from taking rows out of `order` to handing them on: two workers each given rows
    /// in order, handing them on at once, interleaved them (report.csv read 8, 17, 9, …).
    private let delivering = NSLock()
    /// What validation said of a row's photo names (found by ignoring letter case), by
    /// row, for the row's note in the report.
    private var photoNameNotes: [Int: [Phrase]] = [:]
    /// Where finished rows go (streamed: the run keeps no row in memory).
    public let report: RunReport?
    /// Told each finished row (`feed test --live` shows a few rows' plans).
    public var onOutcome: (@Sendable (RowOutcome) -> Void)?
    /// Told after each row, with the counts so far.
    public var onProgress: (@Sendable (_ done: Int, _ total: Int, _ failed: Int) -> Void)?
    /// Told while the live catalog is read (pages so far).
    public var onReadingShop: (@Sendable (_ pages: Int) -> Void)?

    /// `journalSink` replaces the journal's file writer (tests of a full disk).
    public init(options: SyncOptions, client: any Shop, report: RunReport?,
                journalSink: (any AppendLog.Sink)? = nil) throws {
        self.options = options
        self.report = report
        self.client = client
        do {
            self.links = try options.links.map { address throws(LinkStore.Failure) in try AccountState.open(address) }
        } catch {
            throw SyncStop(error.description)
        }
        // A shared account's journal is in the shared state (a restart on any machine replays
        // it), an account kept here in a file: one place, chosen once.
        let journalStore: any JournalStore = if let store = self.links, store.isShared {
            options.shard.map { SharedJournal(store: store, run: options.runName ?? "", shard: $0) }
                ?? SharedJournal(store: store, journal: options.journal)
        } else {
            FileJournal(url: options.journal, sink: journalSink)
        }
        self.journal = try Journal(store: journalStore)
        self.matcher = ServerMatcher(client: client)
        if let folder = options.record, !options.dryRun {
            let header = RunHeader(kind: options.runKind, account: Self.accountTag(options.links), server: client.address,
                                   source: options.runSource ?? options.manifest?.path ?? "")
            do {
                // Where the account keeps records (one place): a shard's of a shared account in its state, each
                // attempt a part of its own (a shard killed and started again elsewhere keeps the
                // killed attempt's record: its products are the run's too), so that the whole run
                // can be taken back from any machine (`undo --run NAME`).
                let store: any RunRecordStore
                if let shard = options.shard, let links, links.isShared, let run = options.runName {
                    let attempt = String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)
                    store = SharedRecord(store: links, run: run, part: "\(shard) \(attempt)")
                } else {
                    store = RunRecords.place(of: folder, links: links)
                }
                recorder = try RunRecorder(store: store, header: header, client: client)
            } catch {
                throw SyncStop(say: "s_cannot_record", folder.path, "\(error)")
            }
        } else {
            recorder = nil
        }
        writer = ProductWriter(shop: client, matcher: matcher, links: links, recorder: recorder,
                               intents: RunIntents(journal: journal, recorder: recorder), lostAnswers: options.lostAnswers, stopping: stopping,
                               credentialsChecked: options.credentialsChecked)
        vendor = VendorFact(links: links)
        inFlight = options.adaptiveJobs
            ? AdaptiveLimit(initial: options.jobs, range: 1...max(options.jobs, options.maxJobs))
            : AdaptiveLimit(initial: options.jobs, range: options.jobs...options.jobs, fixed: true)
        work = RowWork(options: options, journal: journal, writer: writer, matcher: matcher, recorder: recorder, shop: client,
                       vendor: vendor)
    }

    /// The account an undo must be run against: the link store's file name.
    public static func accountTag(_ links: StoreAddress?) -> String {
        links?.tag ?? ""
    }

    /// The rows the run will have (for progress and the summary).
    func setTotal(_ count: Int) { lock.lock(); total = count; lock.unlock() }

    /// Graceful stop: no new rows start; rows in flight finish.
    public func stop(_ reason: String) { stopping.stop(reason) }

    /// Whether a stop was asked for (a feed stops reading when it is).
    public var isStopping: Bool { stopping.isStopping }

    func finish(_ outcome: RowOutcome) {
        var outcome = outcome
        lock.lock()
        if let photoNotes = photoNameNotes.removeValue(forKey: outcome.row) { outcome.notes += photoNotes }
        finished += 1
        counts[outcome.status.rawValue, default: 0] += 1
        for field in outcome.changedFields { fieldsChanged[field, default: 0] += 1 }
        if outcome.stockToZero { stockToZero += 1 }
        if outcome.photosDiffer { photosDiffer += 1 }
        if outcome.priceGuarded { priceGuarded += 1 }
        if outcome.isFailure {
            failures += 1
            if let max = options.maxErrors, failures >= max {
                let reason = Phrase("stop:max_errors", String(failures), String(max))
                stopping.stop(reason.text(.en), said: (reason.key, reason.values))
            }
        }
        let (done, failed, total) = (finished, failures, self.total)
        lock.unlock()
        delivering.withLock { release(order.finished(outcome)) }
        onProgress?(done, total, failed)
    }

    /// A row enters the run: its outcome is reported in this order.
    func handIn(_ row: Int) { order.handedIn(row) }

    private func release(_ outcomes: [RowOutcome]) {
        for outcome in outcomes {
            report?.add(outcome)
            onOutcome?(outcome)
        }
    }

    /// What validation said of a row's photo names, kept for its note in the report.
    func notePhotoNames(row: Int, _ notes: [Phrase]) {
        lock.lock(); photoNameNotes[row] = notes; lock.unlock()
    }

    public func name(columns: [String: String]) { report?.columnHeaders = columns }

    public func original(rows: @escaping @Sendable (Set<Int>) throws -> OriginalRows?) { report?.originalRows = rows }

    public func read(as reading: Phrase) {
        lock.lock()
        readAs = reading
        lock.unlock()
    }

    public func rows(count: Int, exact: Bool, listed: ListedProducts?, _ feed: (RowFeed) throws -> Void) throws {
        setTotal(count)
        var seen = 0
        try runStages(listed: options.deleteMissing ? listed : nil) { submit, reject in
            try withoutActuallyEscaping(submit) { submit in
                try withoutActuallyEscaping(reject) { reject in
                    try feed(RowFeed(submitDraft: { [self] draft, notes in
                        seen += 1
                        if !notes.isEmpty { notePhotoNames(row: draft.row, notes) }
                        submit(draft)
                    }, rejectRow: { outcome in
                        seen += 1
                        reject(outcome)
                    }))
                }
            }
            // An estimate until the last row.
            if !exact { setTotal(seen) }
        }
    }

    private func runStages(
        listed: ListedProducts?, feed: (_ submit: (ProductDraft) -> Void, _ reject: (RowOutcome) -> Void) throws -> Void
    ) throws {
        let planner = try plan()
        var missing: [MissingProduct] = []
        if let listed {
            (missing, deletesRefused) = try missingProducts(listed, planner)
            lock.lock(); total += missing.count; lock.unlock()
        }
        try recordRunStart()
        // Rows waiting hold their photos: as many as the writes in flight at most (the ceiling
        // counts them), and enough to keep the workers busy.
        let prepareQueue = BoundedQueue<WorkItem>(capacity: max(16, options.prepareWorkers * 4))
        // Prepared rows waiting for a write: as many as the writes allowed now (the queue
        // follows the adaptive limit), not as the ceiling would allow.
        let uploadQueue = BoundedQueue<Upload>(capacity: inFlight.state.limit)
        let preparing = startPreparing(prepareQueue, uploadQueue)
        let uploading = startUploading(uploadQueue)
        defer {
            prepareQueue.close()
            uploadQueue.close()
        }
        try feed({ [self] draft in
            handIn(draft.row)
            if isStopping {
                let identity = ProductLink.identity(key: draft.key, name: draft.fields.name)
                finish(.notSent(row: draft.row, key: identity.byName ? "" : identity.key, name: draft.fields.name))
                return
            }
            switch work.decide(draft, planner) {
            case .next(let item): prepareQueue.put(item)
            case .done(let outcome): finish(outcome)
            }
        }, { [self] outcome in
            handIn(outcome.row)
            finish(outcome)
        })
        prepareQueue.close()
        preparing.wait()
        uploadQueue.close()
        uploading.wait()
        // Rows after one that never finished (the run stopped) are reported all the same.
        delivering.withLock { release(order.drain()) }
        let copies = planner.shopCopies()
        lock.withLock { shopCopies = copies }
        if !missing.isEmpty && (deletesRefused == nil || options.dryRun) { deleteMissing(missing) }
    }

    /// Listed by `openmarket runs` once it may write (not when refused before).
    func recordRunStart() throws {
        guard let recorder, let folder = options.record else { return }
        do {
            try links?.beginRun(RecordedRun(folder: folder.path, kind: options.runKind, started: Date(),
                                            source: options.runSource ?? options.manifest?.path ?? "", runName: options.runName),
                                resumed: recorder.resumed)
        } catch {
            throw SyncStop(error.description)
        }
    }

    public func tasks(count: Int, _ feed: (_ tools: TaskTools, _ submit: (RowTask) -> Void) throws -> Void) throws {
        setTotal(count)
        try recordRunStart()
        let tools = TaskTools(shop: client, links: links, writer: writer)
        try perform { submit in try withoutActuallyEscaping(submit) { try feed(tools, $0) } }
    }

    /// Tasks through the write workers until `feed` returns and every task is done.
    func perform(_ feed: (_ submit: (RowTask) -> Void) throws -> Void) rethrows {
        let uploadQueue = BoundedQueue<Upload>(capacity: inFlight.state.limit)
        let uploading = startUploading(uploadQueue)
        defer { uploadQueue.close() }
        try feed({ [self] task in
            for row in task.rows { handIn(row) }
            if isStopping {
                for row in task.rows { finish(.notSent(row: row, key: "", name: "")) }
                return
            }
            uploadQueue.put(.task(task))
        })
        uploadQueue.close()
        uploading.wait()
        delivering.withLock { release(order.drain()) }
    }

    /// Writes in flight now, and the range the run went through.
    public var concurrency: InFlight {
        let state = inFlight.state
        return InFlight(last: state.limit, lowest: state.lowest, highest: state.highest, adaptive: !inFlight.fixed)
    }

    /// The run's counts, recorded with the run (for `runs` and undo), once its rows are done.
    public func summary() -> SyncSummary {
        lock.lock()
        var result = SyncSummary(server: client.address, recordPath: client.recordPath, mode: options.mode,
                                   dryRun: options.dryRun, journal: journal.place)
        result.links = options.links?.description
        result.counts = counts
        result.fieldsChanged = fieldsChanged
        result.stockToZero = stockToZero
        result.priceGuarded = priceGuarded
        result.photosDiffer = photosDiffer
        // A stopped run's rows are the rows it read (each with its outcome, `not sent` among them).
        result.rows = stopping.isStopping ? finished : total
        result.stopped = stopping.reason
        result.stoppedPhrase = stopping.said.map { Phrase($0.key, $0.values) }
        result.stopCause = stopping.cause
        result.deletesRefused = deletesRefused?.text(.en)
        result.deletesRefusedPhrase = deletesRefused
        result.shopCopies = shopCopies.isEmpty ? nil : shopCopies
        result.readAs = readAs?.text(.en)
        result.readAsPhrase = readAs
        lock.unlock()
        result.inFlight = concurrency
        // An undo stopped part way is finished by running it again in the same folder: its
        // record must not say it ended.
        if result.stopped == nil || options.runKind != .undo { recorder?.end(counts: result.counts) }
        if let folder = options.record, recorder != nil {
            try? links?.finishRun(folder: folder.path, counts: result.counts)
        }
        result.seconds = Date().timeIntervalSince(started)
        result.productsPerSecond = result.seconds > 0 ? Double(result.written) / result.seconds : 0
        return result
    }

    /// Reads the account's links and the live shop, before any row is decided: the shop's pages
    /// are in flight while the links are read (both take a while at a big shop's size).
    func plan() throws -> SyncPlanner {
        var vendor: Int?
        do {
            vendor = try links?.fact("vendor_id").flatMap { Int($0) }
        } catch {
            throw SyncStop(error.description)
        }
        let listing = Listing()
        let reader = Thread { [client, options, matcher, onReadingShop, vendor, stopping] in
            listing.finish(Result { () throws(LiveCatalog.Failure) -> LiveCatalog in
                try LiveCatalog.read(client: client, knownVendor: vendor, pageSize: options.catalogPageSize,
                                     ahead: options.catalogPagesAhead, matcher: matcher, onPage: onReadingShop,
                                     stopped: { stopping.isStopping })
            })
        }
        reader.name = "openmarket.listing"
        reader.start()
        var known = LinkTable()
        let linksRead = Result { () throws(LinkStore.Failure) in try links?.each { known[$0.key] = $0 } }
        known.compact()
        let listed = listing.wait()
        if case .failure(let error) = linksRead { throw SyncStop(error.description) }
        var live: LiveCatalog
        switch listed {
        case .success(let catalog): live = catalog
        case .failure(let error): throw SyncStop(error.description)
        }
        var linked = Set<Int>()
        known.eachProduct { _, id, state in if state == .linked { linked.insert(id) } }
        live.claim(linked: linked)
        if vendor == nil, let found = live.vendorID, !options.dryRun {
            vendor = found
            do { try links?.setFact("vendor_id", String(found)) } catch { throw SyncStop(error.description) }
        }
        if vendor != nil { self.vendor.markKnown() }
        return SyncPlanner(options: options, links: known, live: live, matcher: matcher, client: client)
    }

    /// The shop's listing, read on a thread of its own and waited for.
    private final class Listing: @unchecked Sendable {
        private let condition = NSCondition()
        private var result: Result<LiveCatalog, LiveCatalog.Failure>?

        func finish(_ result: Result<LiveCatalog, LiveCatalog.Failure>) {
            condition.lock()
            self.result = result
            condition.broadcast()
            condition.unlock()
        }

        func wait() -> Result<LiveCatalog, LiveCatalog.Failure> {
            condition.lock()
            defer { condition.unlock() }
            while result == nil { condition.wait() }
            return result!
        }
    }

    /// What the write workers take: a prepared row, or a source's own task.
    enum Upload: Sendable {
        case row(WorkItem)
        case task(RowTask)
    }
}
