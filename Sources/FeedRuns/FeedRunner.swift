import CatalogSync
import Feeds
import Foundation
import ImagePrep
import Manifest
import OpenMarketAPI
import ShopState
import Support
import Words

/// `feed run`'s settings beyond the feed file.
public struct FeedRunOptions: Sendable {
    /// Run a held file once anyway (the checks of `[checks]`; never an HTML page).
    public var accept = false
    /// Send the price changes the price guard (`--max-price-change`) holds, for this run.
    public var force = false
    /// Upload workers, and the photo settings, as for `import`.
    /// Writes in flight: nil, found while the run goes (as import's default); N, fixed.
    public var jobs: Int?
    public var images = ImagePrepSettings()
    public var transport = TransportSettings()
    /// The photo cache (this machine's with a shared store behind it); nil: the default.
    public var cache: ImageCache?
    /// Ctrl-C and SIGTERM stop the run gracefully (`feed run` on a terminal or from a timer).
    public var stopOnSignals = false
    /// The language of the run's report.html and report.xlsx.
    public var language: Language = .en
    /// Sees the run request before it runs (the console follows its progress and stops it).
    public var watchSync: (@Sendable (inout RunRequest) -> Void)?

    public init() {}
}

/// What a feed's run did.
public struct FeedRunResult: Sendable {
    public var feed: String
    public var outcome: FeedOutcome
    /// One line: what happened, with the numbers.
    public var message: String
    /// The message by its words and numbers (a hold's check, a run's counts), said in the
    /// reader's language; nil: the message as it is.
    public var phrase: Phrase?
    public var report: URL?
    public var summary: SyncSummary?
    /// Notifications that could not be sent (they never fail the run).
    public var notifyProblems: [String] = []
    public var notified = false
}

/// fetch → check → plan and apply (the import's sync, through the feed) → report → record
/// → notify, for one feed, one run per account at a time.
public final class FeedRunner: @unchecked Sendable {
    let feed: Feed
    let client: any Shop
    let account: AccountState
    private(set) var folder: FeedFolder
    let options: FeedRunOptions

    let root: URL

    /// `root`: where feeds keep their memory (the state folder's `feeds`), one folder per feed
    /// and shop.
    public init(feed: Feed, client: any Shop, account: AccountState, root: URL = FeedFolder.defaultRoot,
                options: FeedRunOptions = FeedRunOptions()) {
        self.feed = feed
        self.client = client
        self.account = account
        self.root = root
        self.folder = FeedFolder(feed: feed, shop: Self.shopTag(account), root: root)
        self.options = options
    }

    /// The shop a feed's memory is kept for: the account's tag (the link store's name).
    public static func shopTag(_ account: AccountState) -> String { SyncRun.accountTag(account.links) }

    /// The account's lock file (one run per account at a time, whatever runs it).
    public var lockURL: URL {
        account.lockURL
    }

    /// Runs the feed once. Blocking: call from a thread of its own.
    public func run() -> FeedRunResult {
        let lock: any HeldLock
        do { lock = try AccountLocks.take(account.links, holder: "feed \(feed.name)") } catch {
            return FeedRunResult(feed: feed.name, outcome: .busy, message: "\(error)")
        }
        defer { lock.release() }
        FeedFolder.remember(feed, root: root)
        var record: FeedRecord
        do {
            // Shared state: the feed's memory is the account's, wherever this run is.
            if account.place.isShared { folder.memory = try account.openStore() }
            record = try folder.record()
        } catch {
            return FeedRunResult(feed: feed.name, outcome: .failed, message: "the feed's record cannot be read: \(error)")
        }
        record.shop = account.serverName
        var result = attempt(&record)
        finish(&result, &record)
        return result
    }

    /// Fetch, check, import; the record learns the file only when every row went through,
    /// so that a file with failed rows (or a run killed half way) runs again next time.
    private func attempt(_ record: inout FeedRecord) -> FeedRunResult {
        let fetched: FeedSourceReader.Fetched
        do { fetched = try FeedSourceReader(feed: feed, folder: folder, settings: options.transport).fetch(record) } catch {
            return FeedRunResult(feed: feed.name, outcome: .unreachable, message: "the source cannot be fetched: \(error)")
        }
        guard case .file(let file, let hash, let contentType, let validators) = fetched else {
            if case .unchanged(let why) = fetched { return FeedRunResult(feed: feed.name, outcome: .unchanged, message: "\(why); nothing read or sent") }
            return FeedRunResult(feed: feed.name, outcome: .unchanged, message: "unchanged")
        }
        let guarding = FeedGuard(feed: feed, folder: folder)
        let validation = Self.validationOptions(feed)
        let reading: FeedGuard.Reading
        do {
            try guarding.checkIsData(file, contentType: contentType)
            reading = try guarding.read(file, options: validation)
            if !options.accept { try guarding.check(reading, record: record) }
        } catch {
            var held = FeedRunResult(feed: feed.name, outcome: .held, message: "the check \(error.check) failed: \(error.message)")
            held.phrase = error.phrase
            return held
        }
        let result = importRows(file, validation)
        if result.outcome == .done {
            record.sourceHash = hash
            record.validators = validators
            record.rows = reading.rows
            guarding.remember(file, reading)
        }
        return result
    }

    /// How a feed's file is read: through its map, its relative photo names beside it — a
    /// dropped file's in its folder, a fetched file's at its URL, as a browser resolves a
    /// page's links — or where `[source] images` says.
    public static func validationOptions(_ feed: Feed) -> ValidationOptions { SheetReading(feed: feed).options }

    /// The file through the one sync: the feed's run gets what an import gets (the caches,
    /// the run record for undo and `runs`, the report with its thumbnails, a stop on a signal).
    private func importRows(_ file: URL, _ validation: ValidationOptions) -> FeedRunResult {
        var choices = RunChoices()
        choices.validation = validation
        choices.jobs = self.options.jobs
        choices.images = self.options.images
        choices.cache = self.options.cache
        choices.deleteMissing = feed.run.deleteMissing
        choices.maxDeletes = feed.run.maxDeletes
        choices.report = .new(in: folder.reports, prefix: "")
        choices.stopOnSignals = self.options.stopOnSignals
        choices.holdsAccountLock = true
        choices.force = self.options.force
        choices.language = self.options.language
        var request = RunRequest(shop: client, account: account, choices: choices)
        self.options.watchSync?(&request)
        let source = ManifestRows(file, kind: .feed, label: "\(feed.name) ← \(feed.run.source?.display ?? file.path)")
        do {
            let result = try request.run(source)
            let summary = result.summary
            let failed = summary.failed > 0 || summary.stopped != nil || summary.deletesRefused != nil
            var message = Self.describe(summary)
            if let problem = result.reportProblem { message += "; \(problem.description)" }
            var ran = FeedRunResult(feed: feed.name, outcome: failed ? .rowsFailed : .done,
                                    message: message, report: result.reportFolder, summary: summary)
            if summary.stopped == nil, summary.deletesRefused == nil, result.reportProblem == nil {
                ran.phrase = summary.countsPhrase
            }
            return ran
        } catch {
            return FeedRunResult(feed: feed.name, outcome: .failed, message: "\(error)", report: nil)
        }
    }

    /// The record, the notification on a change of state, the old reports pruned.
    private func finish(_ result: inout FeedRunResult, _ record: inout FeedRecord) {
        let now = Date()
        let previous = record.notifiedState ?? .ok
        record.lastOutcome = result.outcome
        record.lastMessage = result.message
        record.lastPhrase = result.phrase
        record.lastRun = now
        if result.outcome.state == .ok { record.lastSuccess = now }
        if let report = result.report { record.lastReport = report.path }
        if result.outcome.state != previous {
            let word = result.outcome.state == .ok ? "recovered" : result.outcome.rawValue
            var text = "openmarket feed \(feed.name): \(word): \(result.message)"
            if let report = result.report { text += " Report: \(report.appendingPathComponent("report.html").path)" }
            result.notifyProblems = FeedNotifier(notify: feed.run.notify, settings: options.transport).send(text)
            result.notified = feed.run.notify.webhook != nil || feed.run.notify.command != nil
            record.notifiedState = result.outcome.state
        }
        if let keep = feed.run.keepReports { folder.pruneReports(keeping: keep) }
        do { try folder.save(record) } catch {
            result.notifyProblems.append("the feed's record could not be saved in \(folder.url.path): \(error.localizedDescription)")
        }
    }

    static func describe(_ summary: SyncSummary) -> String {
        var text = summary.countsLine
        if let stopped = summary.stopped { text += "; stopped: \(stopped)" }
        if let refused = summary.deletesRefused { text += "; \(refused)" }
        return text
    }

}
