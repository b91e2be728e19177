import Foundation
import ImagePrep
import Manifest
import OpenMarketAPI
import ShopState
import Words
import Support

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
            throw SyncStop(say: "s_report_unwritable", folder.path, "\(error)", cause: .input)
        }
        report.imagesRoot = choices.imagesRoot ?? options.validation.imagesDirectory ?? source.manifest?.deletingLastPathComponent()
        report.productPages = choices.productPages
        report.language = choices.language
        // A run made from a page says its ways on as the page's buttons, not a command again.
        report.onPage = options.validation.answersOnPage
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
        let signals = request.choices.stopOnSignals ? SignalStop.install { run.stop(StatusWords.stoppedBySignal) } : []
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
                throw SyncStop(say: "s_report_folder", parent.path, error.localizedDescription, cause: .input)
            }
        }
    }
}
