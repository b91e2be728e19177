import ArgumentParser
import CatalogSync
import Foundation
import OpenMarketAPI
import ShopState
import Support

struct UndoCommand: ShopCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Take back a run of import (or of undo): products it created deleted, fields restored, deleted products made again.",
        discussion: """
            REPORT_DIR is the report folder of the run (printed at its end, listed by \
            `openmarket runs`). A run that wrote to the shop recorded there what it did \
            (run.jsonl, and the photos of the products it deleted). Undo:
              - deletes the products the run created,
              - puts back the fields the run updated, as they were before it,
              - makes again the products the run deleted, with their saved photos, and links \
            their keys to them.
            Each product is checked first: one changed since the run (its fields differ from \
            what the run left) is left alone and reported, unless --force.

            Undo records itself in REPORT_DIR/undo (report and run.jsonl): stopped or crashed, \
            run the same command again to finish it, nothing is done twice. An undo can itself \
            be undone: openmarket undo REPORT_DIR/undo.

            Give the same server and credentials as the run (undo refuses another account).

            Exit codes: 0 everything taken back (or it already was); 1 some products were left \
            alone or failed (see the report); 2 no record in REPORT_DIR or another account; 3 \
            the server is unreachable or refused the credentials.
            """)

    @Argument(help: ArgumentHelp("The report folder of the run to take back.", valueName: "REPORT_DIR"))
    var folder: String?

    @Option(name: .long, help: ArgumentHelp(
        "Instead of REPORT_DIR: a sharded import's run, by the name its shards were given (--run), whole, from any machine that reaches the shared state (--state).",
        valueName: "name"))
    var run: String?

    @OptionGroup var server: ServerOptions

    @Flag(name: .long, help: "Also take back products changed since the run.")
    var force = false

    @Flag(name: .customLong("dry-run"), help: "Report what undo would do; nothing is written.")
    var dryRun = false

    @OptionGroup var pace: RateOption

    @OptionGroup var linkStore: LinksOption

    @OptionGroup var progressOption: QuietOption

    func configure(_ client: inout ClientConfiguration) { pace.configure(&client) }

    func validate() throws {
        guard (folder == nil) != (run == nil) else { throw ValidationError("give REPORT_DIR (a run's report folder) or --run NAME (a sharded run), one of them") }
    }

    func execute(on connection: Connection) async throws -> ExitStatus {
        if let run { return try await undoShared(run, on: connection) }
        var folderURL = URL(fileURLWithPath: folder ?? "").standardizedFileURL
        if !FileManager.default.fileExists(atPath: folderURL.appendingPathComponent(RunRecorder.fileName).path),
           let here = try sharedRecord(of: folderURL, on: connection) {
            // A run made on another machine of a shared account: its record from the shared state.
            folderURL = here
        }
        guard FileManager.default.fileExists(atPath: folderURL.appendingPathComponent(RunRecorder.fileName).path) else {
            throw (CommandFailure("\(folder ?? "") has no record of a run (\(RunRecorder.fileName)): give the report folder a run printed at its end (`openmarket runs` lists them); a dry run records nothing", exitCode: .badInput))
        }
        return try await undo(folderURL, journal: "undo-\(folderURL.lastPathComponent)", on: connection)
    }

    /// The record of a run that another machine made in `folder`, copied from the shared state
    /// into a folder of this machine; nil without a shared state or such a run.
    private func sharedRecord(of folder: URL, on connection: Connection) throws -> URL? {
        guard connection.account.state != nil else { return nil }
        let lines: [String]
        do { lines = try LinkStore(url: connection.account.links).record(run: LinkStore.recordName(folder: folder))["whole"] ?? [] } catch {
            throw CommandFailure("\(error)", exitCode: .unreachable)
        }
        guard !lines.isEmpty else { return nil }
        let here = StateFolder.url.appendingPathComponent("shared-runs/\(LinkStore.accountTag(connection.account.links))-\(FNV.tag(folder.path))")
        let file = here.appendingPathComponent(RunRecorder.fileName)
        // Kept when it is there: it holds this machine's undo of the run too ("already undone").
        if !FileManager.default.fileExists(atPath: file.path) {
            try Self.keep(lines, photos: LinkStore.recordName(folder: folder), in: here, account: connection.account, naming: folder.path)
        }
        return here
    }

    /// Writes a shared record's lines as a run folder's record, with the photos the run saved
    /// before its deletes (those its lines name), so that undo can make those products again.
    private static func keep(_ lines: [String], photos run: String, in folder: URL, account: AccountState, naming: String) throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let text = lines.joined(separator: "\n") + "\n"
            for (path, data) in try LinkStore(url: account.links).savedPhotos(run: run) {
                let file = folder.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try data.write(to: file, options: .atomic)
            }
            try Data(text.utf8).write(to: folder.appendingPathComponent(RunRecorder.fileName), options: .atomic)
        } catch {
            throw CommandFailure("cannot keep the record of \(naming) in \(folder.path): \(error)", exitCode: .badInput)
        }
    }

    /// A sharded run, whole: each shard's record, read from the shared state into a folder of
    /// this machine, taken back as a run's folder is (its own undo record kept there, so that
    /// the same command again finishes it).
    private func undoShared(_ run: String, on connection: Connection) async throws -> ExitStatus {
        guard connection.account.state != nil else {
            throw CommandFailure("--run takes back a sharded run from the shared state: give --state postgres://… (or OPENMARKET_STATE)", exitCode: .badInput)
        }
        let parts: [String: [String]]
        do { parts = try LinkStore(url: connection.account.links).record(run: run) } catch { throw CommandFailure("\(error)", exitCode: .unreachable) }
        guard !parts.isEmpty else {
            throw CommandFailure("no run named \(run) in the shared state of this account (`openmarket runs` lists them)", exitCode: .badInput)
        }
        let base = StateFolder.url.appendingPathComponent("shared-runs/\(LinkStore.accountTag(connection.account.links))-\(FNV.tag(run))")
        var worst = ExitStatus.ok
        for (part, lines) in parts.sorted(by: { $0.key.compare($1.key, options: .numeric) == .orderedAscending }) {
            let name = "shard-" + part.replacingOccurrences(of: "/", with: "of").replacingOccurrences(of: " ", with: "-")
            let folder = base.appendingPathComponent(name)
            try Self.keep(lines, photos: run, in: folder, account: connection.account, naming: "\(run) shard \(part)")
            Console.line("\(run), shard \(part):")
            let status = try await undo(folder, journal: "undo-\(run)-\(name)", on: connection)
            if status.rawValue > worst.rawValue { worst = status }
        }
        return worst
    }

    private func undo(_ folderURL: URL, journal: String, on connection: Connection) async throws -> ExitStatus {
        var options = UndoOptions(folder: folderURL)
        options.force = force
        options.dryRun = dryRun
        options.links = linkStore.url(default: connection.account.links)
        let undo = try UndoRows(options)
        if let done = undo.alreadyDone {
            Console.line(done)
            return .ok
        }
        let progress = ProgressLine(quiet: progressOption.quiet, json: false)
        var settings = undo.settings(journal: connection.account.journal(forRun: journal))
        settings.onProgress = { done, total, failed in progress.update(done: done, total: total, failed: failed) }
        let result = try await Runner.sync(undo, into: connection, settings, command: "undo")
        progress.finish()
        return await Runner.conclude(result, command: "undo", connection: connection)
            .or(.someFailed, if: result.summary.count(.skipped) > 0)
    }
}

struct RunsCommand: ShopCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs",
        abstract: "List the runs that wrote to an account (import, feed, restore, migrate, delete, undo), newest first, with their report folders.",
        discussion: """
            Each line: when the run started, its kind (import, feed, restore, migrate, delete or \
            undo), what it read (the manifest, the feed and its source, the snapshot, the source \
            server, the keys deleted, or the run an undo took back), its counts (or "did not finish"), and the report \
            folder to give `openmarket undo`. Dry runs are not listed (they change nothing).
            """)

    @OptionGroup var server: ServerOptions

    @OptionGroup var linkStore: LinksOption

    @Option(name: .long, help: "Show at most this many runs.")
    var limit = 50

    func execute(on connection: Connection) async throws -> ExitStatus {
        let url = linkStore.url(default: connection.account.links)
        guard LinkStore.exists(url) else {
            Console.line("No runs recorded for this account yet.")
            return .ok
        }
        let runs: [RecordedRun]
        do { runs = try LinkStore(url: url).runs(limit: limit) } catch { throw CommandFailure("\(error)", exitCode: .someFailed) }
        if runs.isEmpty { Console.line("No runs recorded for this account yet.") }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        // A sharded run is one run: its shards' lines summed under its name.
        var shown = Set<String>()
        for run in runs {
            if let name = run.runName {
                guard shown.insert(name).inserted else { continue }
                let shards = runs.filter { $0.runName == name }
                var total: [String: Int] = [:]
                for shard in shards { shard.counts?.forEach { total[$0.key, default: 0] += $0.value } }
                let unfinished = shards.filter { $0.counts == nil }.count
                let counts = total.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                let started = shards.map(\.started).min() ?? run.started
                Console.line("\(formatter.string(from: started))  \(run.kind.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) run \(name) "
                    + "(\(shards.count) shard runs\(unfinished > 0 ? ", \(unfinished) did not finish" : "")): \(counts.isEmpty ? "nothing yet" : counts)")
                Console.line("    openmarket undo --run \(AccountArguments.quoted(name))")
                continue
            }
            let counts = run.counts.map { counts in
                counts.isEmpty ? "nothing to do" : counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            } ?? "did not finish (run it again to finish)"
            let source = switch run.kind {
            case .undo: "undo of \(URL(fileURLWithPath: run.source).lastPathComponent)"
            case .import: URL(fileURLWithPath: run.source).lastPathComponent
            // The feed and where its file came from; the snapshot; the migration's source; the keys.
            case .feed, .restore, .migrate, .delete: run.source
            }
            Console.line("\(formatter.string(from: run.started))  \(run.kind.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(source): \(counts)")
            Console.line("    \(run.folder)")
        }
        return .ok
    }
}
