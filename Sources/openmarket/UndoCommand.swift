import ArgumentParser
import CatalogSync
import Foundation
import OpenMarketAPI
import ShopState
import Support
import Words

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
        guard (folder == nil) != (run == nil) else { throw ValidationError(Console.say("arg_undo_which")) }
    }

    /// The run request's undo (the one the console's Undo button calls): a run's folder here or
    /// recorded on another machine of a shared account, or a sharded run whole.
    func execute(on connection: Connection) async throws -> ExitStatus {
        var choices = RunChoices()
        choices.dryRun = dryRun
        choices.links = linkStore.given
        var request = connection.request(choices)
        let progress = ProgressLine(quiet: progressOption.quiet, json: false)
        request.onProgress = { done, total, failed in progress.update(done: done, total: total, failed: failed) }
        let given = request, force = force
        if let run {
            let parts = try await Runner.onThread { try given.undo(run: run, force: force) }
            progress.finish()
            var worst = ExitStatus.ok
            for part in parts {
                Console.line(Console.say("t_shard", run, part.shard ?? ""))
                let status = await conclude(part, connection)
                if status.rawValue > worst.rawValue { worst = status }
            }
            return worst
        }
        let folder = URL(fileURLWithPath: self.folder ?? "")
        let part = try await Runner.onThread { try given.undo(folder: folder, force: force) }
        progress.finish()
        return await conclude(part, connection)
    }

    /// A part's summary (or that it was undone already), and how the command ends: a product
    /// left alone because it changed since the run is not everything taken back.
    private func conclude(_ part: UndoPart, _ connection: Connection) async -> ExitStatus {
        guard let result = part.result else {
            Console.line(part.alreadyDone?.text(Console.language) ?? "")
            return .ok
        }
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
        let store: LinkStore?
        do { store = try connection.account.keeping(links: linkStore.given).store() } catch { throw CommandFailure(error, exitCode: .someFailed) }
        guard let store else {
            Console.line(Console.say("t_no_runs"))
            return .ok
        }
        let runs: [RecordedRun]
        do { runs = try store.runs(limit: limit) } catch { throw CommandFailure(error, exitCode: .someFailed) }
        if runs.isEmpty { Console.line(Console.say("t_no_runs")) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        // A sharded run is one run: its shards' lines summed under its name.
        for listed in ListedRun.grouped(runs) {
            let run = listed.run
            if let name = run.runName {
                let counts = Self.counts(listed.counts ?? [:])
                Console.line("\(formatter.string(from: listed.started))  \(Self.kind(run.kind)) "
                    + Console.say("t_runs_sharded", name, String(listed.shards),
                                  listed.unfinished > 0 ? Console.say("t_runs_shards_unfinished", String(listed.unfinished)) : "",
                                  counts.isEmpty ? Console.say("t_runs_nothing_yet") : counts))
                Console.line("    openmarket undo --run \(AccountArguments.quoted(name))")
                continue
            }
            let counts = listed.counts.map { $0.isEmpty ? Console.say("t_runs_nothing") : Self.counts($0) } ?? Console.say("t_runs_unfinished")
            let source = switch run.kind {
            case .undo: Console.say("t_runs_undo_of", URL(fileURLWithPath: run.source).lastPathComponent)
            case .import: URL(fileURLWithPath: run.source).lastPathComponent
            // The feed and where its file came from; the snapshot; the migration's source; the keys.
            case .feed, .restore, .migrate, .delete: run.source
            }
            Console.line("\(formatter.string(from: run.started))  \(Self.kind(run.kind)) \(source): \(counts)")
            Console.line("    \(run.folder)")
        }
        return .ok
    }

    /// A run's kind, padded to line up (`import `; `가져오기 (import)`).
    static func kind(_ kind: RunKind) -> String {
        let word = StatusWords.labelled("run_\(kind.rawValue)", kind.rawValue, Console.language)
        return word.count < 7 ? word.padding(toLength: 7, withPad: " ", startingAt: 0) : word
    }

    /// `2 created, 1 failed`; in Korean `생성됨 2 (created), 실패 1 (failed)`.
    static func counts(_ counts: [String: Int]) -> String {
        counts.sorted { $0.key < $1.key }.map { StatusWords.count($0.key, $0.value, Console.language) }.joined(separator: ", ")
    }
}
