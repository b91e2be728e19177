import ArgumentParser
import CatalogSync
import FeedRuns
import Feeds
import Foundation
import Manifest
import OpenMarketAPI
import Support

struct FeedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feed",
        abstract: "A supplier's feed: their columns and cost prices turned into your products by a feed file.",
        discussion: """
            A feed file (TOML) says which of the supplier's columns are your key, name, stock…, \
            how a selling price is made from their cost (markup, rounding, rules by category or \
            cost), their words for values ("품절" = 0), the rows to leave out, and the fields \
            set only when a product is made. Keep one per supplier and shop, in \
            ~/.config/openmarket/feeds/NAME.toml (then --feed NAME) or anywhere (--feed PATH). \
            `openmarket template --format feed` writes a commented one.

            Try it on the supplier's file with `openmarket feed test FEED FILE`, then \
            `openmarket validate FILE --feed FEED` and `openmarket import FILE --feed FEED` \
            (sync, --dry-run, reports and undo work as for any sheet). With a [source], \
            `openmarket feed run FEED` fetches the file itself and holds a bad one; \
            `feed schedule` runs it every night; `feed list` and `feed status` tell how it went.
            """,
        subcommands: [FeedTestCommand.self, FeedRunCommand.self, FeedScheduleCommand.self, FeedListCommand.self, FeedStatusCommand.self]
    )
}

struct FeedTestCommand: ServerCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Show what a feed makes of a supplier's file: nothing is sent.",
        discussion: """
            For the first rows: the supplier's cells, your fields as the feed makes them, and \
            the rule that made each price. After them: every row that fails or that the filter \
            leaves out, with the reason. With --live, also what an import would change in the \
            shop for those rows (old → new), read from the shop (nothing is written).

            Exit codes: 0 every row can be imported; 1 some rows have errors; 2 the feed file or \
            the supplier's file cannot be read (a column the feed needs is missing); 3 the shop \
            cannot be read (--live).
            """)

    @Argument(help: ArgumentHelp("The feed file: a path, or a name in ~/.config/openmarket/feeds/.", valueName: "FEED"))
    var feed: String

    @Argument(help: ArgumentHelp("The supplier's file: \(ManifestFormat.extensionsSaid) (default: fetched from the feed's [source], recording nothing).", valueName: "FILE"))
    var file: String?

    @Option(name: .long, help: ArgumentHelp("How many rows to show whole.", valueName: "N"))
    var rows = 5

    @Option(name: .long, help: ArgumentHelp("Folder that relative image paths are under (default: the file's folder).", valueName: "dir"))
    var images: String?

    @Flag(name: .long, help: "Also read the shop and show what an import would change (old → new).")
    var live = false

    @OptionGroup var server: ServerOptions

    func validate() throws {
        if rows < 0 { throw ValidationError(Console.say("arg_at_least", "--rows", "0")) }
    }

    func execute() async throws -> ExitStatus {
        let loaded: Feed
        do { loaded = try FeedFile.load(FeedFile.locate(feed)) } catch {
            throw CommandFailure(error, exitCode: .badInput)
        }
        // No FILE: the feed's own source, fetched into a scratch folder (nothing recorded).
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("openmarket-feed-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let url = if let file { URL(fileURLWithPath: file).standardizedFileURL } else { try await fetch(loaded, into: scratch) }
        let plans = live ? try await livePlans(url, loaded) : [:]
        let reading = readingOptions(loaded, fetched: file == nil)
        var lines: [String] = []
        let result: FeedTrial.Result
        do {
            result = try FeedTrial.run(url, feed: loaded, options: reading, first: rows,
                                       onFileIssue: { lines.append("\($0.severity.rawValue): \($0.description)") },
                                       onRow: { lines += FeedTrialText.lines($0, plan: plans[$0.number]) })
        } catch {
            throw CommandFailure(error.description, exitCode: .badInput)
        }
        lines.forEach(Console.line)
        if !result.unused.isEmpty { Console.line(Console.say("ft_unused", result.unused.joined(separator: ", "))) }
        Console.line(Console.say("ft_summary", ValidateCommand.summaryLine(url, result.summary), loaded.name))
        return result.summary.hasErrors ? .someFailed : .ok
    }

    /// The feed's own source, fetched as `feed run` fetches it.
    private func fetch(_ feed: Feed, into folder: URL) async throws -> URL {
        var transport = TransportSettings()
        transport.insecure = server.client.insecure
        transport.caFile = server.client.cacert ?? transport.caFile
        let settings = transport
        let url: URL
        do {
            url = try await Runner.onThread { try FeedTrialSource.fetch(feed, into: folder, settings: settings) }
        } catch {
            throw CommandFailure("\(feed.name): \(error)", exitCode: .sourceUnreachable)
        }
        Console.line(Console.say("ft_fetched", feed.run.source?.display ?? Console.say("ft_the_source")))
        return url
    }

    /// As `feed run` reads the feed's file (photos beside it: at its URL, in its folder, or
    /// where [source] images says) when it was fetched; else beside FILE, or --images.
    private func readingOptions(_ feed: Feed, fetched: Bool) -> ValidationOptions {
        var reading = fetched ? SheetReading(feed: feed) : SheetReading()
        reading.map = .none
        reading.confinePhotos = true
        if let images {
            reading.imagesFolder = URL(fileURLWithPath: images)
            reading.imagesAddress = nil
        }
        return reading.options
    }

    /// What a dry run of the feed's sync would do, by row: the one sync, against the feed's
    /// own shop (its [target] profile unless --server or --profile names another), with the
    /// rules a real run applies (a 2021 server's whole amounts among them).
    private func livePlans(_ url: URL, _ feed: Feed) async throws -> [Int: RowOutcome] {
        var target = server
        if target.server == nil && target.profile == nil { target.profile = feed.run.profile }
        return try await Connection.using(target) { try await livePlans(url, feed, on: $0) }
    }

    private func livePlans(_ url: URL, _ feed: Feed, on connection: Connection) async throws -> [Int: RowOutcome] {
        if connection.sandbox != nil {
            Console.line(Console.say("ft_sandbox"))
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("openmarket-feed-test-\(UUID().uuidString)")
        var choices = RunChoices()
        choices.dryRun = true
        choices.journal = scratch.appendingPathComponent("feed-test.journal")
        choices.validation = readingOptions(feed, fetched: file == nil)
        choices.validation.mapping = FeedMapping(feed: feed)
        choices.deleteMissing = feed.run.deleteMissing
        choices.maxDeletes = feed.run.maxDeletes
        choices.report = .new(in: scratch, prefix: "plan")
        choices.useCaches = false
        choices.stopOnSignals = false
        var request = connection.request(choices)
        let collected = Collected()
        request.onOutcome = { collected.add($0) }
        defer { try? FileManager.default.removeItem(at: scratch) }
        _ = try await Runner.sync(ManifestRows(url, kind: .feed, label: "feed test \(feed.name)"), request)
        return collected.byRow
    }

    /// Outcomes gathered from the run's threads.
    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var outcomes: [Int: RowOutcome] = [:]
        func add(_ outcome: RowOutcome) { lock.lock(); outcomes[outcome.row] = outcome; lock.unlock() }
        var byRow: [Int: RowOutcome] { lock.lock(); defer { lock.unlock() }; return outcomes }
    }
}

/// How `feed test` prints a row.
enum FeedTrialText {
    static func lines(_ row: FeedTrial.Row, plan: RowOutcome?) -> [String] {
        if let reason = row.skipped { return ["row \(row.number): skipped by \(reason)"] }
        var lines: [String] = []
        if row.isFirst {
            lines.append("row \(row.number)")
            let cells = row.cells.filter { !$0.value.isEmpty }.map { "\($0.header)=\(short($0.value))" }
            lines.append("  supplier  \(cells.joined(separator: " · "))")
            let fields = row.fields.map { column, value -> String in
                var text = "\(column.rawValue) \(short(value))"
                if let how = row.explanations[column] { text += " (\(how))" }
                if row.protected.contains(column) { text += " [protected: set on create only]" }
                return text
            }
            lines.append("  ours      \(fields.joined(separator: " · "))")
        } else {
            lines.append("row \(row.number): \(row.fields.first { $0.column == .key }.map { "key \($0.value)" } ?? "")")
        }
        for issue in row.issues {
            lines.append("  \(issue.severity.rawValue) \(issue.column ?? "-")\(issue.value.map { " '\(short($0))'" } ?? ""): \(issue.message) [\(issue.rule)]")
        }
        if let plan {
            let what = plan.changes ?? plan.error ?? plan.note ?? ""
            lines.append("  shop      \(plan.status.rawValue)\(what.isEmpty ? "" : ": \(what)")")
        }
        return lines
    }

    static func short(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        return flat.count > 40 ? String(flat.prefix(39)) + "…" : flat
    }
}
