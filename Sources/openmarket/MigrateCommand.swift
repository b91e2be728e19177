import ArgumentParser
import CatalogSync
import CatalogExport
import CatalogMigration
import Foundation
import Words
import ImagePrep
import OpenMarketAPI
import UserConfig
import ShopState
import Support

struct MigrateCommand: OpenMarketCommand {
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

    @Option(name: .long, help: ArgumentHelp(
        "Where both accounts' state lives for every machine that runs them: a PostgreSQL database (postgres://USER@HOST/DB; else each profile's state, $OPENMARKET_STATE). Default: this machine's state folder.",
        valueName: "url"))
    var state: String?

    @Flag(name: .customLong("then-delete-source"), help: """
        After a copy in which every product went through, delete the source's products that \
        were copied (a move, for a merchant leaving an account): needs the source's credentials \
        and --max-deletes; recorded as a run of the source account (undo brings them back).
        """)
    var thenDeleteSource = false

    @Option(name: .customLong("max-deletes"), help: ArgumentHelp("With --then-delete-source: delete at most N source products; more deletes none.", valueName: "N"))
    var maxDeletes = 0

    @OptionGroup var progressOption: QuietOption

    var speaks: Language { client.reportLanguage }

    func validate() throws {
        guard jobs >= 1 && jobs <= 64 else { throw ValidationError(Console.say("arg_range", "--jobs", "1", "64")) }
        guard perPage >= 1 && perPage <= 10_000 else { throw ValidationError(Console.say("arg_range", "--per-page", "1", "10000")) }
        if let maxErrors, maxErrors < 1 { throw ValidationError(Console.say("arg_at_least", "--max-errors", "1")) }
        if maxDeletes < 0 { throw ValidationError(Console.say("arg_at_least", "--max-deletes", "0")) }
        if thenDeleteSource && vendor != nil && vendor != .me {
            throw ValidationError(Console.say("arg_then_delete", "\(vendor!)"))
        }
    }

    func execute() async throws -> ExitStatus {
        let (source, target, _, vendorChoice) = try sides()
        let cacert = client.cacert
        var from = try await Connection.connect(source, insecure: client.insecure, verbose: client.verbose) { $0.transport.caFile = cacert ?? $0.transport.caFile }
        from.naming = naming(server: self.from, profile: fromProfile, identifier: fromIdentifier, secret: fromSecret)
        // Each side's state: --state (or OPENMARKET_STATE) for both, else each profile's own.
        from.place = try Connection.place(flag: state, settings: source)
        from.language = client.reportLanguage
        let configure = pace.configure
        var to: Connection
        do {
            to = try await Connection.connect(target, insecure: client.insecure, verbose: client.verbose) {
                configure(&$0)
                $0.transport.caFile = cacert ?? $0.transport.caFile
            }
        } catch {
            await from.close()
            throw error
        }
        to.naming = naming(server: self.to, profile: toProfile, identifier: toIdentifier, secret: toSecret)
        to.place = try Connection.place(flag: state, settings: target)
        to.language = client.reportLanguage
        do {
            let status = try await migrate(from: from, to: to, source: source, vendor: vendorChoice)
            await from.close()
            await to.close()
            return status
        } catch {
            await from.close()
            await to.close()
            throw error
        }
    }

    /// The copy through the one sync, then (asked for) the source's copied products deleted.
    private func migrate(from: Connection, to: Connection, source: ConnectionSettings, vendor vendorChoice: VendorChoice) async throws -> ExitStatus {
        let migration: CatalogRows
        do {
            try await from.client.run { _ = try $0.health() }
            // Each product's merchant key, as the source account knows it.
            migration = CatalogRows(source: from.client, filter: CatalogFilter(vendor: vendorChoice.filter, search: search, since: since?.date),
                                  sourceLinks: try CatalogRows.links(of: source.credentials == nil ? nil : from.account))
        } catch {
            throw (error as? OpenMarketError).map { CommandFailure(say: "f_source_no_answer", "\($0)", exitCode: .unreachable) }
                ?? CommandFailure(error, exitCode: .unreachable)
        }
        migration.jobs = jobs
        migration.perPage = perPage
        let progress = ProgressLine(quiet: progressOption.quiet)
        migration.onListing = { page, last in progress.update(Console.say("t_phase_listing_source"), done: page, total: last, unit: Console.say("t_unit_pages")) }

        var choices = RunChoices()
        choices.journal = journal.map { URL(fileURLWithPath: $0) }
        choices.jobs = jobs
        choices.dryRun = dryRun
        choices.maxErrors = maxErrors
        choices.report = report.map { .given(URL(fileURLWithPath: $0)) }
        var request = to.request(choices)
        request.onProgress = { done, total, failed in progress.update(Console.say("t_phase_products"), done: done, total: total, failed: failed, unit: Console.say("t_unit_products")) }
        let journalURL = request.journal(for: migration)
        let result = try await Runner.sync(migration, request)
        progress.finish()
        let sourceSummary = migration.sourceSummary
        // A move prints its undo once both sides are known, in the order that brings the source back first.
        let status = await Runner.conclude(result, command: "migrate", connection: to, printsUndo: !thenDeleteSource || dryRun)
        if sourceSummary.deleted > 0 {
            Console.line(Console.say("t_migrate_deleted", count: sourceSummary.deleted, String(sourceSummary.deleted)))
        }
        for warning in sourceSummary.scan.warnings { Console.line(Console.say("t_migrate_warning", warning)) }
        Console.line(Console.say("t_migrate_journal", journalURL.path))
        // A report that could not be written, or a stop that says how the run ends: nothing more.
        guard thenDeleteSource, result.reportProblem == nil, result.summary.stopCause == nil else {
            if thenDeleteSource { printCopyUndo(result, to) }
            return status
        }
        let deleted = try await deleteSource(from, to, copied: sourceSummary.copied, result: result)
        return status == .ok ? deleted : status
    }

    /// `--then-delete-source`: the source products that were copied, deleted through the sync
    /// as a run of the source account (its own record, report and undo).
    private func deleteSource(_ from: Connection, _ to: Connection, copied: [Int: Int], result: SyncResult) async throws -> ExitStatus {
        let summary = result.summary
        if dryRun {
            Console.line(Console.say("t_move_dry", String(maxDeletes)))
            return .ok
        }
        guard summary.failed == 0, summary.stopped == nil else {
            Console.line(Console.say("t_move_not_all"))
            printCopyUndo(result, to)
            return .ok
        }
        guard copied.count <= maxDeletes else {
            Console.line(Console.say("t_move_too_many", String(copied.count), String(maxDeletes)))
            printCopyUndo(result, to)
            return .someFailed
        }
        guard !copied.isEmpty else {
            printCopyUndo(result, to)
            return .ok
        }
        var choices = RunChoices()
        choices.report = .given(result.reportFolder.appendingPathComponent(MoveGuard.sourceDeletes))
        let names = copied.keys.sorted().map { "#\($0)" }
        let rows = DeleteRows(names, reason: "copied to the target by this migration", label: "copied by the migration \(result.reportFolder.lastPathComponent)")
        let deleted = try await Runner.sync(rows, from.request(choices))
        Console.line(Console.say("t_move_source", deleted.summary.countsLine, deleted.reportFolder.appendingPathComponent("report.html").path))
        for row in deleted.report.failures.prefix(10) { Console.line(Console.say("t_move_failed", row.key, row.error ?? "")) }
        if deleted.summary.written > 0 {
            // One block, in the one order that never leaves both shops without the products
            // (undo of the copies refuses to go first).
            Console.line(Console.say("t_move_undo_lead"))
            Console.line(Console.say("t_move_undo_source", from.naming.undo(deleted.reportFolder)))
            if let note = from.naming.credentialsNote(whose: "source") { Console.line("     (\(note))") }
            let copyRuns = MoveGuard.markCopies(of: Set(copied.values), current: result.reportFolder, links: to.account.links,
                                                deletes: deleted.reportFolder, deletesLinks: from.account.links)
            for folder in copyRuns {
                Console.line(Console.say("t_move_undo_copies", to.naming.undo(folder)))
            }
            if !copyRuns.isEmpty, let note = to.naming.credentialsNote(whose: "target") { Console.line("     (\(note))") }
        } else {
            printCopyUndo(result, to)
        }
        return deleted.summary.failed > 0 ? .someFailed : .ok
    }

    /// The copy's own undo line, when the source was left as it was.
    private func printCopyUndo(_ result: SyncResult, _ to: Connection) {
        guard !dryRun, result.summary.written > 0 else { return }
        for line in to.naming.undoLines(result.reportFolder) { Console.line(line) }
    }

    /// One side's account as `undo` names it (its flags, as undo calls them).
    private func naming(server: String?, profile: String?, identifier: String?, secret: String?) -> AccountArguments {
        AccountArguments(server: server, profile: profile, config: client.config, cacert: client.cacert, insecure: client.insecure,
                         identifierGiven: identifier != nil, secretGiven: secret != nil, state: state)
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
            throw CommandFailure(error.description, exitCode: .badInput)
        }
        guard let sourceURL = source.server, let targetURL = target.server else {
            throw CommandFailure(say: "f_migrate_servers", exitCode: .badInput)
        }
        guard target.credentials != nil else {
            throw CommandFailure(say: "f_migrate_target", exitCode: .badInput)
        }
        if sourceURL == targetURL && source.credentials.map(ShopWriter.init) == target.credentials.map(ShopWriter.init) {
            throw CommandFailure(say: "f_migrate_same", exitCode: .badInput)
        }
        let vendorChoice = vendor ?? (source.credentials != nil ? .me : .all)
        if thenDeleteSource && source.credentials == nil {
            throw CommandFailure(say: "f_migrate_delete_source", exitCode: .badInput)
        }
        if vendorChoice == .me && source.credentials == nil {
            throw CommandFailure(say: "f_migrate_vendor_me", exitCode: .badInput)
        }
        return (source, target, sourceURL, vendorChoice)
    }
}
