import ArgumentParser
import FeedRuns
import Feeds
import Foundation
import Words
import OpenMarketAPI
import ImagePrep
import ShopState
import Support

/// The feeds `feed run`, `list` and `status` work on: those named, or with `--all` every
/// feed file in the feeds folder.
/// `feed list` and `feed status`: where the feeds' memory is when the accounts' state is shared.
struct FeedStateOption: ParsableArguments {
    @Option(name: .customLong("state"), help: ArgumentHelp(
        "The accounts' shared state (postgres://USER@HOST/DB; or $OPENMARKET_STATE): each feed's last run is read from there.",
        valueName: "address"))
    var state: String?

    func place() throws -> StatePlace { try Connection.place(flag: state) }
}

struct FeedSelection: ParsableArguments {
    @Argument(help: ArgumentHelp("Feed files: paths, or names in ~/.config/openmarket/feeds/.", valueName: "FEED"))
    var feeds: [String] = []

    @Flag(name: .long, help: "Every feed file in ~/.config/openmarket/feeds/.")
    var all = false

    static var folder: URL { FeedFolder.configured }

    /// The feeds `list` and `status` watch: those named; else every feed in the feeds folder
    /// and every feed that has run on this machine from any path.
    func watched() throws -> [URL] {
        feeds.isEmpty ? FeedFolder.watched() : try files(requireSome: false)
    }

    /// The feed files, in order (by name for --all).
    func files(requireSome: Bool) throws -> [URL] {
        if all { return FeedFolder.feedFiles() + feeds.map { FeedFile.locate($0) } }
        if feeds.isEmpty && requireSome { throw ValidationError(Console.say("arg_name_feed", Self.folder.path)) }
        return feeds.map { FeedFile.locate($0) }
    }
}

struct FeedRunCommand: ServerCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Fetch a feed's file, check it, and sync the shop to it (what `feed schedule` runs).",
        discussion: """
            For each feed: fetch its [source] (a conditional GET for http(s); sftp; a local file \
            once it stops growing); an unchanged source (HTTP 304, or the same bytes as the last \
            file that ran) sends nothing and does not read the shop. Then the checks: a file that \
            is an HTML page, lacks a column the feed needs, or fails [checks] (min_rows, \
            max_drop_percent, max_changed_percent against the last file that ran) is held: \
            nothing is sent, and the report and the notification say which check and the \
            numbers. --accept runs a held file once anyway. Then the import through the feed \
            (sync; [sync] delete_missing with max_deletes), a report in the feed's folder, \
            `openmarket runs` and `undo` as for any import; [notify] is told when the feed's \
            state changes (failed, held, recovered), not on every success.

            One run per account at a time: a second is refused at once, naming the running one. \
            The shop is the feed's [target] profile unless --server or --profile is given.

            With --all and the state shared (--state postgres://… or OPENMARKET_STATE), machines \
            running the same command at once share the feeds of a round: each feed is run by \
            one of them (claimed in the database, passed over by the others), a feed whose \
            machine died is taken by the next to look, and a feed finished in the round is not \
            run again in it. The round is --round (or OPENMARKET_ROUND; a Kubernetes CronJob \
            gives its Job's name), by default today's date (UTC).

            Exit codes (with several feeds, the highest): 0 done or unchanged; 1 some rows \
            failed (they are tried again next run); 2 the feed file cannot be read; 3 the shop \
            cannot be read or written; 4 held by a check; 5 another run of the account is \
            running; 6 the source cannot be fetched.
            """)

    @OptionGroup var selection: FeedSelection

    @Flag(name: .long, help: "Run a file the checks hold, once (never an HTML page).")
    var accept = false

    @Flag(name: .long, help: "Send price changes larger than the price guard (50 %), for this run: the rows it held.")
    var force = false

    @Option(name: .long, help: ArgumentHelp("Writes in flight at once (default: found while the run goes, as import's).", valueName: "N"))
    var jobs: Int?

    @OptionGroup var server: ServerOptions

    @OptionGroup var sharedCache: SharedCacheOption

    @Option(name: .long, help: ArgumentHelp(
        "With --all and a shared state: the round the machines running at once share (or $OPENMARKET_ROUND; default: today's date, UTC).",
        valueName: "name"))
    var round: String?

    @Flag(name: .long, help: "Allow the built-in sandbox as the shop (to try a feed out; an unattended run never writes there).")
    var sandbox = false

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError(Console.say("arg_at_least", "--jobs", "1")) }
        if round != nil && !selection.all { throw ValidationError(Console.say("arg_round")) }
    }

    func execute() async throws -> ExitStatus {
        var worst: Int32 = 0
        let cache = try sharedCache.imageCache(transport: TransportSettings())
        if selection.all, let state = try server.place().database {
            return try await runRound(try selection.files(requireSome: true), state: state, cache: cache)
        }
        for url in try selection.files(requireSome: true) {
            let feed: Feed
            do { feed = try FeedFile.load(url) } catch {
                Console.error("openmarket feed run: \(error.phrase.text(Console.language))")
                worst = max(worst, 2)
                continue
            }
            worst = max(worst, try await run(feed, cache: cache).code)
        }
        return ExitStatus(rawValue: worst) ?? .someFailed
    }

    /// The round's feeds this machine claims, one after another, until none is left.
    private func runRound(_ files: [URL], state: URL, cache: ImageCache?) async throws -> ExitStatus {
        let name = round ?? ProcessInfo.processInfo.environment["OPENMARKET_ROUND"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.today()
        var byName: [String: URL] = [:]
        for url in files where byName[url.lastPathComponent] == nil { byName[url.lastPathComponent] = url }
        let shared: FeedRound
        let names = byName.keys.sorted()
        do { shared = try await Runner.onThread { try FeedRound(state: state, name: name, feeds: names) } } catch {
            throw CommandFailure(error, exitCode: .unreachable)
        }
        Console.line(Console.say("t_round_start", name, String(byName.count)))
        var worst: Int32 = 0, ran = 0
        while let claimed = try await Runner.onThread({ try shared.claim() }) {
            var code: Int32 = 2, outcome = "failed"
            if let url = byName[claimed] {
                do {
                    (code, outcome) = try await run(try FeedFile.load(url), cache: cache)
                } catch let error as FeedFileError {
                    Console.error("openmarket feed run: \(error.phrase.text(Console.language))")
                }
            } else {
                Console.error("openmarket feed run: round \(name): \(claimed) is not among this machine's feeds (every machine of a round needs the same feed files): marked failed")
            }
            ran += 1
            worst = max(worst, code)
            let said = outcome
            try await Runner.onThread { try shared.finish(outcome: said) }
        }
        let entries = try await Runner.onThread { try shared.entries() }
        let finished = entries.filter { $0.outcome != nil }.count
        Console.line(Console.say("t_round_end", name, String(ran), String(finished), String(entries.count)))
        return ExitStatus(rawValue: worst) ?? .someFailed
    }

    /// The default round: the date in UTC (one round a day).
    static func today() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date())
    }

    private func run(_ feed: Feed, cache: ImageCache?) async throws -> (code: Int32, outcome: String) {
        var target = server
        if target.server == nil && target.profile == nil { target.profile = feed.run.profile }
        let connection: Connection
        do { connection = try await Connection.connect(target, configure: { _ in }) } catch {
            Console.error("openmarket feed run: \(feed.name): \(CommandFailure.from(error).description)")
            return (ExitStatus.unreachable.rawValue, FeedOutcome.failed.rawValue)
        }
        // A feed that names no shop (no [target], no --server, nothing in the environment or
        // the config file) would sync a throwaway built-in sandbox and say "done": refused.
        if connection.sandbox != nil && !sandbox {
            await connection.close()
            Console.error("openmarket feed run: \(feed.name): " + Console.say("t_feed_no_shop", feed.url.path))
            return (ExitStatus.badInput.rawValue, FeedOutcome.failed.rawValue)
        }
        var options = FeedRunOptions()
        options.accept = accept
        options.force = force
        options.jobs = jobs
        options.stopOnSignals = true
        options.transport.insecure = server.client.insecure
        options.transport.caFile = server.client.cacert ?? options.transport.caFile
        options.cache = cache
        options.language = server.client.reportLanguage
        let runner = FeedRunner(feed: feed, client: connection.client, account: connection.account, options: options)
        let result = try await Runner.onThread { runner.run() }
        await connection.close()
        let language = Console.language
        let outcome = WordTable.text("outcome_" + result.outcome.rawValue, language)
        Console.line("\(feed.name): \(outcome): \(result.phrase.map { $0.text(language) } ?? result.message)")
        if let report = result.report { Console.line(Console.say("t_feed_report", report.appendingPathComponent("report.html").path)) }
        if let report = result.report, result.summary?.undoes == nil, result.outcome == .done || result.outcome == .rowsFailed {
            // The feed's shop named as undo needs it: its [target] profile when that is what chose it.
            for line in target.naming.undoLines(report, lead: Console.say("t_feed_undo_lead")) { Console.line(line) }
        }
        for problem in result.notifyProblems { Console.error("openmarket feed run: \(feed.name): " + Console.say("t_feed_warning", problem)) }
        if let line = SharedCacheOption.summary(cache) { Console.line("  \(line)") }
        return (ExitStatus(result.outcome).rawValue, result.outcome.rawValue)
    }
}

struct FeedListCommand: OpenMarketCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Each feed: its source, its schedule, its last run's outcome and when.")

    @OptionGroup var selection: FeedSelection
    @OptionGroup var state: FeedStateOption

    func execute() async throws -> ExitStatus {
        let files = try selection.watched()
        let place = try state.place()
        if files.isEmpty { Console.line(Console.say("t_feeds_none", FeedSelection.folder.path)) }
        for url in files {
            guard let feed = try? FeedFile.load(url) else {
                Console.line(Console.say("t_feed_mistake_test", url.deletingPathExtension().lastPathComponent))
                continue
            }
            var schedule = Schedule.installed(kind: "feed", name: feed.name) ?? "not scheduled"
            if schedule != "not scheduled" && !ScheduleOptions.userSystemd() {
                schedule += " (written, not enabled: no user systemd here; only the crontab line runs it)"
            }
            let shops = FeedFolder.shops(of: feed, state: place)
            Console.line("\(feed.name)  \(feed.run.source?.display ?? Console.say("t_feed_no_source"))  \(schedule)\(shops.isEmpty ? "  " + Console.say("t_feed_never_run") : "")")
            if url.deletingLastPathComponent().standardizedFileURL.path != FeedSelection.folder.standardizedFileURL.path {
                Console.line(Console.say("t_feed_file", url.path))
            }
            for folder in shops {
                let record = (try? folder.record()) ?? FeedRecord()
                let last = record.lastOutcome.map { "\(WordTable.text("outcome_" + $0.rawValue, Console.language)) \(Self.time(record.lastRun))" } ?? Console.say("t_feed_never_run")
                Console.line(Console.say("t_feed_shop_line", record.shop ?? "?", last + (record.lastMessage.map { ": \($0)" } ?? "")))
            }
        }
        return .ok
    }

    static func time(_ date: Date?) -> String {
        guard let date else { return "" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}

struct FeedStatusCommand: OpenMarketCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "For monitoring: exit 1 when a feed has not succeeded within --max-age.",
        discussion: """
            A feed succeeds when its run is done or its source is unchanged. Without FEED or \
            --all, every feed in the feeds folder. Prints one line per feed that is late.
            """)

    @OptionGroup var selection: FeedSelection
    @OptionGroup var state: FeedStateOption

    @Option(name: .customLong("max-age"), help: ArgumentHelp("How long ago the last success may be: 90m, 26h, 2d.", valueName: "age"))
    var maxAge: String

    func validate() throws {
        if Self.seconds(maxAge) == nil { throw ValidationError(Console.say("arg_max_age")) }
    }

    func execute() async throws -> ExitStatus {
        let limit = Self.seconds(maxAge)!
        let files = try selection.watched()
        // A check that watches nothing must not pass: a monitor would stay green for ever.
        guard !files.isEmpty else {
            Console.line(Console.say("t_watch_none", FeedSelection.folder.path))
            return .someFailed
        }
        let (late, watched) = try check(files, limit: limit, state: state.place())
        if late > 0 { return .someFailed }
        guard watched > 0 else {
            Console.line(Console.say("t_watch_no_source"))
            return .someFailed
        }
        Console.line(Console.say("t_watch_ok", count: watched, String(watched), maxAge))
        return .ok
    }

    /// Says each feed whose last success is older than `limit`; returns how many are late,
    /// and how many feeds were watched.
    private func check(_ files: [URL], limit: Double, state: StatePlace) -> (late: Int, watched: Int) {
        var late = 0
        var watched = 0
        for url in files {
            guard let feed = try? FeedFile.load(url) else {
                Console.line(Console.say("t_feed_mistake", url.deletingPathExtension().lastPathComponent))
                late += 1
                continue
            }
            let shops = FeedFolder.shops(of: feed, state: state)
            // A feed with no [source] is a column map for `import --feed`: it never runs by itself.
            if feed.run.source == nil && shops.isEmpty { continue }
            watched += 1
            if shops.isEmpty {
                Console.line("\(feed.name): " + Console.say("t_feed_never_run"))
                late += 1
            }
            for folder in shops {
                let record = (try? folder.record()) ?? FeedRecord()
                guard let success = record.lastSuccess, Date().timeIntervalSince(success) <= limit else {
                    let when = record.lastSuccess.map { Console.say("fw_last_success", FeedListCommand.time($0)) } ?? Console.say("fw_never")
                    let outcome = record.lastOutcome.map { Console.say("outcome_" + $0.rawValue) } ?? Console.say("fw_none")
                    Console.line(Console.say("fw_late", feed.name, record.shop ?? "?", when, "\(outcome) \(record.lastPhrase?.text(Console.language) ?? record.lastMessage ?? "")"))
                    late += 1
                    continue
                }
            }
        }
        return (late, watched)
    }

    static func seconds(_ text: String) -> Double? {
        guard let unit = text.last, let count = Double(text.dropLast()), count > 0 else { return nil }
        switch unit {
        case "m": return count * 60
        case "h": return count * 3600
        case "d": return count * 86400
        default: return nil
        }
    }
}
