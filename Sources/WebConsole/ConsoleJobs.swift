import CatalogSync
import FeedRuns
import Foundation
import Support
import Synchronization
import Words

/// A plan, an apply or an undo the console is running: its progress as the CLI's line counts it
/// (rows done, failed, in flight, rate, time left), read by the page while it goes, and a stop
/// the page can ask for. A stopped apply leaves its journal as Ctrl-C does, so applying the same
/// sheet again sends nothing twice.
final class ConsoleJob: @unchecked Sendable {
    enum Kind: String, Sendable {
        case plan = "Plan", apply = "Apply", undoPlan = "Undo plan", undo = "Undo", feed = "Feed run"
        case backup = "Backup", restorePlan = "Restore plan", restore = "Restore"
        /// Whether it writes to the shop: one such job at a time.
        var writes: Bool { [.apply, .undo, .feed, .restore].contains(self) }
    }

    /// How a job ended.
    enum Ending: Sendable {
        case finished(SyncResult)
        /// A feed's run: done, unchanged, held by a check, … with its report when it synced.
        case feed(FeedRunResult)
        /// A sharded run taken back (or planned) shard by shard.
        case parts([UndoPart])
        /// Nothing to do, said in words (an undo already undone).
        case nothing(String)
        case failed(String)
        /// The shop refused the credentials before anything was read or sent (this HTTP status).
        case refused(status: Int)

        /// The folder of the run's report, when it made one.
        var reportFolder: URL? {
            switch self {
            case .finished(let result): result.reportFolder
            case .feed(let result): result.report
            case .parts, .nothing, .failed, .refused: nil
            }
        }
    }

    /// What the page shows while the job runs and after.
    struct Progress: Sendable {
        var done = 0, total = 0, failed = 0, inFlight: Int?
        var rate = 0.0
        var secondsLeft: Double?
        var stopping = false
        var ended = false
    }

    let id: String
    let kind: Kind
    /// The sheet's name, or the run folder an undo takes back.
    let subject: String
    let started = Date()
    /// How the sheet is read (the currency and stock another platform's export cannot say).
    let reading: PageAnswers
    /// The subject as the page names it: a sheet's name, a run folder's last part.
    var subjectName: String { URL(fileURLWithPath: subject).lastPathComponent }
    private let lock = NSLock()
    private var counts = (done: 0, total: 0, failed: 0)
    private var firstRow: Date?
    private var run: SyncRun?
    private var stopAsked = false
    /// Rows done and in flight when Stop was asked.
    private var stoppedAt: (done: Int, inFlight: Int)?
    private var endingValue: Ending?

    /// The language of the page that started it: its report is written in it.
    let language: ConsoleWords.Language

    init(id: String, kind: Kind, subject: String, reading: PageAnswers = PageAnswers(), language: ConsoleWords.Language = .en) {
        self.id = id
        self.kind = kind
        self.subject = subject
        self.reading = reading
        self.language = language
    }

    /// The hooks of the sync this job watches.
    func watch(_ request: inout RunRequest) {
        request.choices.language = language
        // The merchant answers on the page: messages name its forms and buttons, not flags.
        request.choices.validation.answersOnPage = true
        request.onProgress = { [self] done, total, failed in count(done: done, total: total, failed: failed) }
        request.onStart = { [self] run in
            let stop = lock.withLock { () -> Bool in
                self.run = run
                return stopAsked
            }
            if stop { run.stop(Self.stopReason) }
        }
    }

    /// Rows (or products) done so far.
    func count(done: Int, total: Int, failed: Int = 0) {
        lock.withLock {
            if firstRow == nil { firstRow = Date() }
            counts = (done, total, failed)
        }
    }

    static let stopReason = StatusWords.stoppedFromConsole

    /// Asks the run to stop: no new row starts; those in flight finish and are recorded.
    func stop() {
        let run = lock.withLock { () -> SyncRun? in
            stopAsked = true
            if stoppedAt == nil { stoppedAt = (counts.done, self.run?.concurrency.last ?? 0) }
            return self.run
        }
        run?.stop(Self.stopReason)
    }

    func end(_ ending: Ending) { lock.withLock { endingValue = ending } }

    var ending: Ending? { lock.withLock { endingValue } }

    var progress: Progress {
        lock.withLock {
            var progress = Progress(done: counts.done, total: counts.total, failed: counts.failed)
            if case .finished(let result)? = endingValue {
                // Rows a stop left are counted through by the run, not done: the page says what was.
                progress.done = max(0, counts.done - result.summary.count(.notSent))
            } else if let stoppedAt {
                // After Stop only the rows in flight finish; the rest are counted through unsent.
                progress.done = min(counts.done, stoppedAt.done + stoppedAt.inFlight)
            }
            progress.inFlight = endingValue == nil ? run?.concurrency.last : nil
            progress.stopping = stopAsked
            progress.ended = endingValue != nil
            // The CLI's line's pace: no rate in the first half second.
            if let firstRow {
                let pace = ProgressPace(done: counts.done, total: counts.total, elapsed: Date().timeIntervalSince(firstRow))
                progress.rate = pace.rate
                if endingValue == nil { progress.secondsLeft = pace.secondsLeft }
            }
            return progress
        }
    }
}

/// The console's jobs: at most one that writes at a time (the account's run lock would refuse a
/// second anyway; here the page is told which one runs), kept so their pages can be opened again.
final class ConsoleJobs: @unchecked Sendable {
    private let lock = NSLock()
    private var jobs: [String: ConsoleJob] = [:]
    private var order: [String] = []
    /// Job numbers are the console's, not a shop's: a job's page names one job whichever shop is chosen.
    private static let numbers = Atomic<Int>(0)

    /// The job that writes now, if any.
    var writing: ConsoleJob? {
        lock.withLock { order.compactMap { jobs[$0] }.first { $0.kind.writes && $0.ending == nil } }
    }

    subscript(id: String) -> ConsoleJob? { lock.withLock { jobs[id] } }

    /// Starts `work` on a thread of its own; nil (and the job that writes) when `kind` writes and
    /// another write is running.
    func start(_ kind: ConsoleJob.Kind, subject: String, reading: PageAnswers = PageAnswers(), language: ConsoleWords.Language = .en,
               _ work: @escaping @Sendable (ConsoleJob) throws -> ConsoleJob.Ending) -> Result<ConsoleJob, BusyError> {
        let job: ConsoleJob
        lock.lock()
        if kind.writes, let busy = order.compactMap({ jobs[$0] }).first(where: { $0.kind.writes && $0.ending == nil }) {
            lock.unlock()
            return .failure(BusyError(job: busy))
        }
        job = ConsoleJob(id: String(Self.numbers.add(1, ordering: .relaxed).newValue), kind: kind, subject: subject, reading: reading,
                         language: language)
        jobs[job.id] = job
        order.append(job.id)
        lock.unlock()
        let thread = Thread {
            do { job.end(try work(job)) } catch let stop as SyncStop where stop.refusedStatus != nil {
                job.end(.refused(status: stop.refusedStatus ?? 0))
            } catch { job.end(.failed("\(error)")) }
        }
        thread.name = "openmarket.console.\(kind.rawValue)"
        thread.start()
        return .success(job)
    }

    struct BusyError: Error {
        let job: ConsoleJob
    }
}
