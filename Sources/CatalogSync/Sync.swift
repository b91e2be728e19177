import Foundation
import ImagePrep
import Manifest
import OpenMarketAPI
import ShopState
import Support

/// Where a sync's rows come from: a manifest file, a feed's file, a snapshot's products,
/// another shop's catalog, an undo's record, names to delete. A source only says what its
/// rows are, through the sink the sync gives it; the sync owns everything around them
/// (planning against the live shop, the workers and their pace, the record, the report,
/// the summary).
public protocol RowSource: Sendable {
    /// How the run is recorded and listed by `openmarket runs`.
    var kind: RunKind { get }
    /// What the run read, as `runs` says it.
    var label: String { get }
    /// What the report's title names (the label unless said).
    var title: String { get }
    /// The file the rows are read from (the journal is named by it), if they are a file's.
    var manifest: URL? { get }
    /// Hands the rows to `sink`, in order. Blocking.
    func rows(into sink: any RowSink) throws
    /// Told each finished row (a migration learns which source product became which).
    func finished(_ outcome: RowOutcome)
    /// What the source adds to the run's summary (the run an undo took back).
    func annotate(_ summary: inout SyncSummary)
    /// The journal of rows that are no file's, by name (`restore-<snapshot>`); nil: the file's.
    var journalName: String? { get }
    /// Where runs of this source keep their report unless the door gives a folder (an undo's
    /// beside the run it takes back, a delete's in the account's folder); nil: where the door says.
    func reportPlace(dryRun: Bool, account: AccountState) -> ReportPlace?
    /// The folder a new report goes in when the door names none (a sheet's own folder).
    var reportsBeside: URL? { get }
    /// What runs of this source are whatever door asks (a restore compares no photos and
    /// reuses no shrunk photo: its photos are the server's own bytes).
    func shape(_ options: inout SyncOptions, useCaches: inout Bool)
}

extension RowSource {
    public var title: String { label }
    public func finished(_ outcome: RowOutcome) {}
    public func annotate(_ summary: inout SyncSummary) {}
    public var journalName: String? { nil }
    public func reportPlace(dryRun: Bool, account: AccountState) -> ReportPlace? { nil }
    public var reportsBeside: URL? { manifest?.deletingLastPathComponent() }
    public func shape(_ options: inout SyncOptions, useCaches: inout Bool) {}
}

/// The sync's side of a run, as a source sees it: all a source may ask of it.
public protocol RowSink: AnyObject, Sendable {
    var options: SyncOptions { get }
    /// A stop was asked for: a source stops reading.
    var isStopping: Bool { get }
    /// The source's own column headers, for the report.
    func name(columns: [String: String])
    /// Rows to make into products: `count` for progress (`exact: false`: an estimate, the rows
    /// are counted as they come), `listed` what they name for delete-missing; `feed` hands
    /// each row in order and returns when there are no more.
    func rows(count: Int, exact: Bool, listed: ListedProducts?, _ feed: (RowFeed) throws -> Void) throws
    /// Work a source decides itself (an undo's steps), run on the same workers and pace;
    /// `feed` is given the run's writer and hands the tasks in the order the report lists them.
    func tasks(count: Int, _ feed: (_ tools: TaskTools, _ submit: (RowTask) -> Void) throws -> Void) throws
    /// The named products of this account deleted (`openmarket delete`).
    func delete(_ names: [String], reason: String) throws
}

/// Hands one source's rows to the sync.
public struct RowFeed {
    let submitDraft: (ProductDraft, String?) -> Void
    let rejectRow: (RowOutcome) -> Void

    /// A row to make into a product; `note` joins its note in the report.
    public func submit(_ draft: ProductDraft, note: String? = nil) { submitDraft(draft, note) }
    /// A row that cannot be one: its outcome (failed, or left out by a feed's filter).
    public func reject(_ outcome: RowOutcome) { rejectRow(outcome) }
}

/// What a task may write with: the run's shop, link store and the one writer (exactly once,
/// recorded for undo).
public struct TaskTools: Sendable {
    let shop: any Shop
    let links: LinkStore?
    let writer: ProductWriter
}

/// Rows that are no file's: each handed over as a draft (or, when it cannot be one, as a
/// failed or skipped outcome). `names` is what the rows name, for `deleteMissing`.
public struct DraftRows: RowSource {
    public typealias Feed = @Sendable (_ feed: RowFeed) throws -> Void
    public let kind: RunKind
    public let label: String
    public let count: Int
    public let names: [RowNames]?
    let feed: Feed

    /// What a row names (key, id, name), so that `deleteMissing` keeps its product.
    public struct RowNames: Sendable {
        public var key: String?
        public var id: Int?
        public var name: String?
        public init(key: String?, id: Int?, name: String?) { self.key = key; self.id = id; self.name = name }
    }

    public init(kind: RunKind, label: String, count: Int, names: [RowNames]? = nil, feed: @escaping Feed) {
        self.kind = kind
        self.label = label
        self.count = count
        self.names = names
        self.feed = feed
    }

    public var manifest: URL? { nil }

    public func rows(into sink: any RowSink) throws {
        let listed = names.map { names in
            var listed = ListedProducts()
            for (index, row) in names.enumerated() {
                listed.add(row: index + 1, key: row.key, id: row.id, name: row.name)
            }
            return listed
        }
        try sink.rows(count: count, exact: true, listed: listed, feed)
    }
}

/// Where a run's report goes: a folder given by the user (a folder given again keeps the
/// earlier runs' records), or a new folder named by the time in `parent`.
public enum ReportPlace: Sendable {
    case given(URL)
    case new(in: URL, prefix: String)
}

/// What a sync did: the summary, the report (complete, or why not: the run is recorded
/// either way), and where it is.
public struct SyncResult: Sendable {
    public var summary: SyncSummary
    public var report: RunReport
    public var reportFolder: URL { report.directory }
    /// The report could not be written whole (a full disk); the run itself is complete.
    public var reportProblem: ReportWriteError?

    public init(summary: SyncSummary, report: RunReport, reportProblem: ReportWriteError? = nil) {
        self.summary = summary
        self.report = report
        self.reportProblem = reportProblem
    }
}

/// The one sync: rows from any source made into the shop, for every run a `RunRequest`
/// assembles. It owns what each of them needs, so that none wires it by hand: the preflight
/// (the server answers, the credentials are accepted), the lock, the caches, the run record
/// for undo and `runs`, the link store, a stop on a signal, and the report with its
/// thumbnails. Blocking: call from a thread of its own.
enum Sync {
    static func run(_ source: some RowSource, into shop: any Shop, options given: SyncOptions, report place: ReportPlace,
                    useCaches: Bool, request: RunRequest) throws -> SyncResult {
        let choices = request.choices
        let credentialsChecked = try AccountState.preflight(shop)
        // One run that writes per account at a time, whatever runs it (a person, a timer, a
        // second terminal): both would create what the other is creating.
        let lock = choices.holdsAccountLock || given.dryRun
            ? nil : try AccountState.lock(links: given.links, holder: "\(source.kind.rawValue) \(given.runSource ?? source.label)",
                                          shard: choices.shard)
        defer { lock?.release() }
        var options = given
        options.credentialsChecked = credentialsChecked
        // A server that takes whole amounts: a row with cents fails validation, naming the rule.
        if (try? shop.capabilities())?.wholeAmounts == true { options.validation.wholeAmounts = true }
        if useCaches {
            if options.cache == nil { options.cache = try? ImageCache(directory: ImageCache.defaultDirectory) }
            if options.photoHashes == nil { options.photoHashes = try? PhotoHashes(url: PhotoHashes.defaultURL) }
        }
        let (folder, existed) = try reportFolder(place)
        options.record = folder
        let report = try openReport(in: folder, source: source, options: options, choices: choices)
        let summary: SyncSummary
        do {
            summary = try rows(of: source, into: shop, options: options, report: report, request: request)
        } catch {
            // Nothing was imported: leave no half-written report behind (in a folder given
            // again, only this run's files: earlier runs' records stay for undo).
            if existed {
                for name in ["report.csv", ".rows.partial"] { try? FileManager.default.removeItem(at: folder.appendingPathComponent(name)) }
            } else {
                try? FileManager.default.removeItem(at: folder)
            }
            throw error
        }
        report.fetchThumbnail = { url in (try? shop.download(url, maxBytes: 2 << 20)).map { Array($0) } }
        var result = SyncResult(summary: summary, report: report)
        do throws(ReportWriteError) { try report.finish(summary) } catch { result.reportProblem = error }
        return result
    }

    /// The run's report in `folder`, its photo paths relative to the photos' folder.
    private static func openReport(in folder: URL, source: some RowSource, options: SyncOptions, choices: RunChoices) throws -> RunReport {
        let report: RunReport
        do {
            report = try RunReport(directory: folder, source: source.manifest?.lastPathComponent ?? source.title)
        } catch {
            throw SyncStop("cannot write the report in \(folder.path): \(error)", cause: .input)
        }
        report.imagesRoot = choices.imagesRoot ?? options.validation.imagesDirectory ?? source.manifest?.deletingLastPathComponent()
        report.productPages = choices.productPages
        return report
    }

    /// The source's rows through one `SyncRun`, watched as the door asked and stopped by a signal
    /// when it asked; the summary with what the source adds.
    private static func rows(of source: some RowSource, into shop: any Shop, options: SyncOptions, report: RunReport,
                             request: RunRequest) throws -> SyncSummary {
        let run = try SyncRun(options: options, client: shop, report: report)
        run.onProgress = request.onProgress
        let told = request.onOutcome
        run.onOutcome = { outcome in
            source.finished(outcome)
            told?(outcome)
        }
        request.onStart?(run)
        let signals = request.choices.stopOnSignals ? SignalStop.install { run.stop("stopped by a signal") } : []
        defer { signals.forEach { $0.cancel() } }
        try source.rows(into: run)
        var summary = run.summary()
        source.annotate(&summary)
        return summary
    }

    /// The report's folder, made; and whether it was there before (a folder given again).
    static func reportFolder(_ place: ReportPlace) throws(SyncStop) -> (URL, existed: Bool) {
        switch place {
        case .given(let url):
            return (url.standardizedFileURL, FileManager.default.fileExists(atPath: url.path))
        case .new(let parent, let prefix):
            do { return (try RunFolder.make(in: parent, prefix: prefix), false) } catch {
                throw SyncStop("cannot make a report folder in \(parent.path): \(error.localizedDescription)", cause: .input)
            }
        }
    }
}
