import ArgumentParser
import BulkImport
import CatalogExport
import Foundation
import ImagePrep
import Migration
import OpenMarketAPI
import UserConfig
import ShopState
import Support

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy products from one account or server to another, in one streaming run.",
        discussion: """
            Lists the source's products like export, reads each one's detail, and imports it into \
            the target like import: photos are fetched from the source as they are needed (nothing \
            but photos in flight is kept), shrunk if over the target's limit, and uploaded by --jobs \
            workers. The import's journal records every product by its source id, so running the \
            same command again after a stop, a crash or a lost network creates \
            nothing twice and continues where it stopped. A report (report.csv, report.json, \
            report.html) is written to --report.

            Credentials: --from-identifier/--from-secret and --to-identifier/--to-secret, or \
            --from-profile/--to-profile naming [profiles.NAME] sections of the config file (which \
            may also give the server). By default the source's own products are taken (--vendor me) \
            when source credentials are given, else every product (--vendor all).

            Exit codes: 0 every product was copied; 1 some failed (see the report); 2 usage; 3 a \
            server is unreachable or refused the credentials.

            Examples:
              openmarket migrate --from https://old.example --from-profile old --to https://new.example --to-profile new
              openmarket migrate --from-profile old --to-profile new --dry-run
            """)

    @Option(name: .long, help: ArgumentHelp("Source server URL (or the --from-profile's).", valueName: "url"))
    var from: String?

    @Option(name: .customLong("from-identifier"), help: ArgumentHelp("Source vendor identifier.", valueName: "id"))
    var fromIdentifier: String?

    @Option(name: .customLong("from-secret"), help: ArgumentHelp("Source vendor secret.", valueName: "secret"))
    var fromSecret: String?

    @Option(name: .customLong("from-profile"), help: ArgumentHelp("Config profile for the source.", valueName: "name"))
    var fromProfile: String?

    @Option(name: .long, help: ArgumentHelp("Target server URL (or the --to-profile's).", valueName: "url"))
    var to: String?

    @Option(name: .customLong("to-identifier"), help: ArgumentHelp("Target vendor identifier.", valueName: "id"))
    var toIdentifier: String?

    @Option(name: .customLong("to-secret"), help: ArgumentHelp("Target vendor secret.", valueName: "secret"))
    var toSecret: String?

    @Option(name: .customLong("to-profile"), help: ArgumentHelp("Config profile for the target.", valueName: "name"))
    var toProfile: String?

    @OptionGroup var client: ClientOptions

    @Option(name: .long, help: ArgumentHelp("me (the source credentials' vendor), all, or a vendor id.", valueName: "me|all|N"))
    var vendor: VendorChoice?

    @Option(name: .long, help: ArgumentHelp("Only source products whose name contains this text.", valueName: "text"))
    var search: String?

    @Option(name: .long, help: ArgumentHelp("Only source products created at or after this date.", valueName: "yyyy-mm-dd[Thh:mm:ss]"))
    var since: SinceDate?

    @Option(name: .long, help: "Upload workers on the target (and detail readers on the source).")
    var jobs = 4

    @Option(name: .customLong("per-page"), help: "Source page size asked for.")
    var perPage = 100

    @OptionGroup var pace: RateOption

    @Option(name: .customLong("max-errors"), help: ArgumentHelp("Stop after this many failed products.", valueName: "N"))
    var maxErrors: Int?

    @Flag(name: .customLong("dry-run"), help: "Read the source and prepare the photos; write nothing to the target.")
    var dryRun = false

    @Option(name: .long, help: ArgumentHelp("Folder for the report (default: ./openmarket-report-DATE).", valueName: "dir"))
    var report: String?

    @Option(name: .long, help: ArgumentHelp("The journal (default: one per source and target, under ~/.local/state/openmarket).", valueName: "path"))
    var journal: String?

    @OptionGroup var progressOption: QuietOption

    func validate() throws {
        guard jobs >= 1 && jobs <= 64 else { throw ValidationError("--jobs must be 1…64") }
        guard perPage >= 1 && perPage <= 10_000 else { throw ValidationError("--per-page must be 1…10000") }
        if let maxErrors, maxErrors < 1 { throw ValidationError("--max-errors must be at least 1") }
    }

    func run() async throws {
        let (source, target, sourceURL, vendorChoice) = try sides()
        let cacert = client.cacert
        let from = try await Connection.open(source, insecure: client.insecure, verbose: client.verbose) { $0.transport.caFile = cacert }
        let configure = pace.configure
        let to = try await Connection.open(target, insecure: client.insecure, verbose: client.verbose) {
            configure(&$0)
            $0.transport.caFile = cacert
        }

        let journalURL = journal.map { URL(fileURLWithPath: $0) } ?? AccountState.migrationJournal(source: from.client, target: to.client)
        let reportURL = URL(fileURLWithPath: report ?? "openmarket-report-\(Runner.timestamp())").standardizedFileURL
        var options = ImportOptions(journal: journalURL, runKind: "migrate", runSource: "the products of \(sourceURL.absoluteString)")
        // The target's link store: each source product (by its id) is one product of the target.
        options.links = to.account.links
        options.jobs = jobs
        options.dryRun = dryRun
        options.maxErrors = maxErrors
        options.cache = nil
        let importReport: ImportReport
        do {
            importReport = try ImportReport(directory: reportURL, source: "the products of \(sourceURL.absoluteString)")
        } catch {
            throw reportFailure(CommandFailure("cannot write the report in \(reportURL.path): \(error)", exitCode: 2))
        }
        let filter = CatalogFilter(vendor: vendorChoice.filter, search: search, since: since?.date)
        let progress = ProgressLine(quiet: progressOption.quiet)
        let settings = options
        let readers = jobs
        let pageSize = perPage
        let result: (ImportSummary, Migration.SourceSummary)
        do {
            result = try await Runner.onThread {
                do { _ = try from.client.health() } catch {
                    throw CommandFailure("the source does not answer: \(error)", exitCode: 3)
                }
                try AccountState.preflight(to.client)
                let run = try ImportRun(options: settings, client: to.client, report: importReport)
                run.onProgress = { done, total, failed in
                    progress.update("products", done: done, total: total, failed: failed, unit: "products")
                }
                let migration = Migration(source: from.client, run: run, filter: filter)
                migration.jobs = readers
                migration.perPage = pageSize
                migration.onListing = { page, last in progress.update("listing the source", done: page, total: last, unit: "pages") }
                let signals = Runner.stopOnSignals { run.stop("stopped by a signal") }
                defer { signals.forEach { $0.cancel() } }
                do { return try migration.migrate() } catch let error as ExportError {
                    throw CommandFailure(error.description, exitCode: 2)
                } catch let stop as ImportStop {
                    throw CommandFailure(stop.description, exitCode: 3)
                }
            }
        } catch {
            await from.close()
            await to.close()
            try? FileManager.default.removeItem(at: reportURL)
            throw reportFailure(error)
        }
        await from.close()
        await to.close()
        progress.finish()
        let (summary, sourceSummary) = result
        try await Runner.conclude(importReport, summary, reportURL: reportURL, command: "migrate", connection: nil)
        if sourceSummary.deleted > 0 {
            Console.line("\(sourceSummary.deleted) source products were deleted during the migration and were skipped.")
        }
        for warning in sourceSummary.scan.warnings { Console.line("Warning (source): \(warning)") }
        Console.line("Journal: \(journalURL.path)")
        if summary.failed > 0 || summary.stopped != nil { throw ExitCode(1) }
    }

    /// The two accounts, each from its own flags or profile, checked: both servers, the
    /// target's credentials, not one account twice; and whose products are copied.
    private func sides() throws -> (source: ConnectionSettings, target: ConnectionSettings, sourceURL: URL, vendor: VendorChoice) {
        let source: ConnectionSettings
        let target: ConnectionSettings
        do {
            let file = try OpenMarketConfig.load(path: client.config)
            // Each side from its own flags or profile; the config file's top-level
            // defaults and the environment would make the two sides the same.
            source = try ConnectionSettings.resolve(server: from, identifier: fromIdentifier, secret: fromSecret, profile: fromProfile,
                                                    environment: [:], config: fromProfile == nil ? nil : file)
            target = try ConnectionSettings.resolve(server: to, identifier: toIdentifier, secret: toSecret, profile: toProfile,
                                                    environment: [:], config: toProfile == nil ? nil : file)
        } catch {
            throw reportFailure(CommandFailure(error.description, exitCode: 2))
        }
        guard let sourceURL = source.server, let targetURL = target.server else {
            throw reportFailure(CommandFailure("migrate needs both servers: --from and --to (or profiles that name them)", exitCode: 2))
        }
        guard target.credentials != nil else {
            throw reportFailure(CommandFailure("migrate needs the target's credentials: --to-identifier and --to-secret, or --to-profile", exitCode: 2))
        }
        if sourceURL == targetURL && source.credentials?.identifier == target.credentials?.identifier {
            throw reportFailure(CommandFailure("the source and the target are the same account on the same server", exitCode: 2))
        }
        let vendorChoice = vendor ?? (source.credentials != nil ? .me : .all)
        if vendorChoice == .me && source.credentials == nil {
            throw reportFailure(CommandFailure("--vendor me needs the source's credentials: --from-identifier and --from-secret, or --from-profile", exitCode: 2))
        }
        return (source, target, sourceURL, vendorChoice)
    }
}
