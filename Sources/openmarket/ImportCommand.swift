import ArgumentParser
import BulkImport
import Dispatch
import Foundation
import ImagePrep
import Manifest
import OpenMarketAPI

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Upload a manifest and its photos: every valid row becomes exactly one product.",
        discussion: """
            Rows are validated, their photos shrunk under the server's limit on all cores, and \
            uploaded by --jobs workers. A journal next to the manifest records every write, so a \
            run that was stopped, crashed or lost its network can be run again (or with --resume): \
            finished rows are skipped, and a row whose answer was lost is looked for on the server \
            before it is sent again. Invalid rows are reported and skipped; the rest go on.

            The report (report.csv, report.json, report.html) goes to --report, by default a \
            folder named by date and time next to the manifest.

            Exit codes: 0 every row succeeded; 1 some rows failed (see the report); 2 usage or an \
            unreadable manifest; 3 the server is unreachable or refused the credentials before \
            anything was written.

            Examples:
              openmarket import samples/products.csv
              openmarket import products.csv --images photos/ --server https://market.example --jobs 8
              openmarket import products.csv --dry-run
            """)

    @Argument(help: "The manifest: .csv, .tsv, .json or .jsonl.")
    var manifest: String

    @OptionGroup var server: ServerOptions

    @Option(name: .long, help: ArgumentHelp("Folder that relative image paths are under (default: the manifest's folder).", valueName: "dir"))
    var images: String?

    @Option(name: .long, help: "create (every row a new product), update (rows with id), upsert (id, else same name, else create).")
    var mode: ImportMode = .create

    @Option(name: .long, help: "Upload workers.")
    var jobs = 4

    @Option(name: .long, help: ArgumentHelp("At most this many requests per second across workers.", valueName: "R"))
    var rate: Double?

    @Flag(name: .customLong("dry-run"), help: "Everything but the writes: validation, photos, matching; the report says what would happen.")
    var dryRun = false

    @Option(name: .customLong("max-errors"), help: ArgumentHelp("Stop after this many failed rows.", valueName: "N"))
    var maxErrors: Int?

    @Flag(name: .long, help: "Continue an earlier run (a plain re-run with the same journal does the same).")
    var resume = false

    @Option(name: .long, help: ArgumentHelp("Folder for report.csv, report.json and report.html.", valueName: "dir"))
    var report: String?

    @Option(name: .long, help: ArgumentHelp("The journal file (default: .NAME.openmarket-journal next to the manifest).", valueName: "path"))
    var journal: String?

    @Option(name: .customLong("max-bytes"), help: "Largest image sent, in bytes (the server's limit).")
    var maxBytes = 307_200

    @Option(name: .customLong("max-dimension"), help: ArgumentHelp("Longest edge of a re-encoded photo.", valueName: "px"))
    var maxDimension = 2048

    @Flag(name: .customLong("no-cache"), help: "Do not reuse photos shrunk by earlier runs.")
    var noCache = false

    @Flag(name: .long, help: "No progress line; one line per 10 % and the summary.")
    var quiet = false

    @Option(name: .customLong("log-format"), help: "text or json (one JSON object per event, for machines).")
    var logFormat = "text"

    func validate() throws {
        guard jobs >= 1 && jobs <= 64 else { throw ValidationError("--jobs must be 1…64") }
        if let rate, rate <= 0 { throw ValidationError("--rate must be above 0") }
        if let maxErrors, maxErrors < 1 { throw ValidationError("--max-errors must be at least 1") }
        guard ["text", "json"].contains(logFormat) else { throw ValidationError("--log-format must be text or json") }
    }

    func run() async throws {
        let manifestURL = URL(fileURLWithPath: manifest).standardizedFileURL
        guard FileManager.default.fileExists(atPath: manifestURL.path) else {
            Console.error("openmarket import: \(manifest): no such file")
            throw ExitCode(2)
        }
        var options = ImportOptions(manifest: manifestURL)
        options.imagesDirectory = images.map { URL(fileURLWithPath: $0) }
        options.validation.imagesDirectory = options.imagesDirectory
        options.mode = mode
        options.jobs = jobs
        options.rate = rate
        options.dryRun = dryRun
        options.maxErrors = maxErrors
        options.images.maxBytes = maxBytes
        options.images.maxDimension = maxDimension
        if !noCache { options.cache = try? ImageCache(directory: ImageCache.defaultDirectory) }
        let reportURL = URL(fileURLWithPath: report ?? manifestURL.deletingLastPathComponent()
            .appendingPathComponent("openmarket-report-\(Self.timestamp())").path)

        // A 429 seen by one worker's client slows every worker (the run is made later).
        let relay = ThrottleRelay()
        let connection = try await Connection.open(server, configure: { $0.onThrottle = { relay.forward($0) } })
        let client = connection.client
        options.journal = journal.map { URL(fileURLWithPath: $0) }
            ?? Self.journalLocation(manifest: manifestURL, connection: connection)
        let progress = Progress(quiet: quiet || logFormat == "json", json: logFormat == "json")
        let settings = options
        let summary: ImportSummary
        let report: ImportReport
        do {
            report = try ImportReport(directory: reportURL, manifest: manifestURL)
        } catch {
            await connection.close()
            Console.error("openmarket import: cannot write the report in \(reportURL.path): \(error)")
            throw ExitCode(2)
        }
        do {
            summary = try await Self.onThread {
                try Self.preflight(client, dryRun: settings.dryRun)
                let run = try ImportRun(options: settings, client: client, report: report)
                relay.target = run
                run.onProgress = { done, total, failed in progress.update(done: done, total: total, failed: failed) }
                let signals = Self.stopOnSignals { run.stop("stopped by a signal") }
                defer { signals.forEach { $0.cancel() } }
                do { return try run.run() } catch { throw CommandFailure("\(error)", exitCode: 2) }
            }
        } catch {
            await connection.close()
            // Nothing was imported: leave no half-written report behind.
            try? FileManager.default.removeItem(at: reportURL)
            throw reportFailure(error)
        }
        await connection.close()
        progress.finish()
        try report.finish(summary)
        Self.printSummary(summary, failures: report.failures, report: reportURL, json: logFormat == "json", command: CommandLine.arguments)
        if connection.sandbox != nil && logFormat != "json" {
            Console.line("To look at the products: run `openmarket sandbox` and open http://127.0.0.1:8080/ (the same data).")
        }
        if summary.failed > 0 || summary.stopped != nil { throw ExitCode(1) }
    }

    /// One journal per manifest and server: with the built-in sandbox it lives in the
    /// sandbox's data folder (so that clearing the sandbox clears it); with a real server,
    /// next to the manifest, named after the server and vendor (hashed).
    static func journalLocation(manifest: URL, connection: Connection) -> URL {
        let name = manifest.lastPathComponent
        if let sandbox = connection.sandbox {
            return sandbox.configuration.dataDirectory.appendingPathComponent("journals")
                .appendingPathComponent("\(name)-\(tag(manifest.path)).journal")
        }
        let identity = connection.client.configuration.server.absoluteString + "|" + (connection.client.configuration.credentials?.identifier ?? "")
        return manifest.deletingLastPathComponent().appendingPathComponent(".\(name).\(tag(identity)).openmarket-journal")
    }

    /// A short stable name for a text (FNV-1a, hex), for file names that must not show it.
    static func tag(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    /// Reachable, and the credentials accepted, before anything is written (exit 3 if not).
    static func preflight(_ client: OpenMarketClient, dryRun: Bool) throws {
        do { _ = try client.health() } catch { throw CommandFailure("the server does not answer: \(error)", exitCode: 3) }
        guard client.configuration.credentials != nil else {
            throw CommandFailure("import needs vendor credentials: --identifier and --secret, OPENMARKET_IDENTIFIER and OPENMARKET_SECRET, or the config file", exitCode: 2)
        }
        // Asking for the delete key of a product that cannot exist: 404 means the
        // credentials were accepted; 401/403 means they were not.
        do { _ = try client.deleteKey(id: Int(Int32.max)) } catch {
            if let status = error.status, status == 401 || status == 403 {
                throw CommandFailure("the server refused the credentials: \(error)", exitCode: 3)
            }
        }
    }

    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.name = "openmarket.import"
            thread.start()
        }
    }

    /// Ctrl-C or SIGTERM: stop gracefully (a second one stops at once).
    static func stopOnSignals(_ stop: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            let count = Counter()
            source.setEventHandler {
                if count.next() > 1 { Foundation.exit(130) }
                Console.error("\nStopping: rows in flight finish, no new rows start (again to stop at once)…")
                stop()
            }
            source.resume()
            return source
        }
    }

    static func timestamp() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return formatter.string(from: Date())
    }

    static func printSummary(_ summary: ImportSummary, failures: [RowOutcome], report: URL, json: Bool, command: [String]) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            struct Event: Encodable { var event = "summary"; var summary: ImportSummary; var report: String }
            if let data = try? encoder.encode(Event(summary: summary, report: report.path)) {
                Console.line(String(decoding: data, as: UTF8.self))
            }
            return
        }
        let counts = summary.counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        Console.line("\(summary.rows) rows: \(counts.isEmpty ? "nothing to do" : counts) in \(String(format: "%.1f", summary.seconds)) s (\(String(format: "%.1f", summary.productsPerSecond)) products/s)\(summary.dryRun ? " — dry run, nothing was written" : "")")
        for row in failures.sorted(by: { $0.row < $1.row }).prefix(10) {
            Console.line("  row \(row.row) failed: \(row.error ?? "")")
        }
        if summary.failed > 10 { Console.line("  … and \(summary.failed - 10) more in the report") }
        if let stopped = summary.stopped {
            let again = command.filter { $0 != "--resume" }.joined(separator: " ")
            Console.line("Stopped: \(stopped). Run the same command again to continue where it stopped:\n  \(again) --resume")
        }
        Console.line("Report: \(report.appendingPathComponent("report.html").path)")
    }
}

extension ImportMode: ExpressibleByArgument {}

/// Passes the client's 429 waits to the import run once it exists.
final class ThrottleRelay: @unchecked Sendable {
    private let lock = NSLock()
    private var run: ImportRun?
    var target: ImportRun? {
        get { lock.lock(); defer { lock.unlock() }; return run }
        set { lock.lock(); run = newValue; lock.unlock() }
    }
    func forward(_ seconds: Double) { target?.throttle(for: seconds) }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
}
