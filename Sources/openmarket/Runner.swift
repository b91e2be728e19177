import ArgumentParser
import CatalogSync
import Dispatch
import Foundation
import Support
import Words

/// What every long command (import, export, migrate, undo) does around its blocking
/// work: a thread of its own, Ctrl-C and SIGTERM turned into a graceful stop, and
/// the summary printed the same way.
enum Runner {
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await BlockingThread.run("openmarket.run", body)
    }

    /// The run request assembled from the connection's account and the command's choices, run
    /// on a thread of its own (its failures are the command's to map: `CommandFailure.from`).
    static func sync(_ source: some RowSource, _ request: RunRequest) async throws -> SyncResult {
        try await onThread { try request.run(source) }
    }

    /// Closes the connection and prints the summary; returns how the command ends. A report
    /// that could not be written whole (a full disk) is told after the summary, exit 1: the
    /// run is complete and recorded, only the report is not. A stop that says how the command
    /// ends (credentials refused at the first write: 3) says it; else `.someFailed` when rows
    /// failed or the run stopped.
    static func conclude(_ result: SyncResult, json: Bool = false, command: String, connection: Connection?,
                         printsUndo: Bool = true) async -> ExitStatus {
        await connection?.close()
        if !json {
            printChanges(result.report.changedRows(limit: 11))
            printSkipped(result.report.skippedRows(limit: 11), count: result.summary.count(.skipped))
        }
        printSummary(result.summary, failures: result.report.failures, report: result.reportFolder, json: json,
                     command: ProgramArguments.all, reportComplete: result.reportProblem == nil,
                     account: connection?.naming ?? AccountArguments(), printsUndo: printsUndo)
        if let problem = result.reportProblem {
            Console.error("openmarket \(command): " + Console.say("t_report_problem", problem.description))
            return .someFailed
        }
        if let cause = result.summary.stopCause { return ExitStatus(cause) }
        return result.summary.failed > 0 || result.summary.stopped != nil ? .someFailed : .ok
    }

    /// The command line with the values of --secret and --identifier (and their `=` forms) hidden.
    static func redacted(_ command: [String]) -> [String] {
        var out: [String] = []
        var hideNext = false
        for argument in command {
            if hideNext {
                out.append("…")
                hideNext = false
            } else if argument == "--secret" || argument == "--identifier" || argument.hasSuffix("-secret") || argument.hasSuffix("-identifier") {
                out.append(argument)
                hideNext = true
            } else if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--"),
                      argument[..<equals].hasSuffix("secret") || argument[..<equals].hasSuffix("identifier") {
                out.append(argument[...equals] + "…")
            } else {
                out.append(argument)
            }
        }
        return out
    }

    /// The rows left alone and why (`row 3 K3 skipped: changed since the run (…): left alone; …`).
    static func printSkipped(_ rows: [RowOutcome], count: Int) {
        let language = Console.language
        for row in rows.prefix(10) {
            Console.line("  \(label(row)) \(StatusWords.label("skipped", language))\(row.notes.isEmpty ? "" : ": " + row.noteText(language))")
        }
        if count > 10 { Console.line(Console.say("t_more_skipped", String(count - 10))) }
    }

    /// What changed, row by row (the first ten; the report has all): `row 3 TEA-003 updated: price 32000 → 31000`.
    static func printChanges(_ rows: [RowOutcome]) {
        for row in rows.prefix(10) {
            let what = row.changesSaid.map { ": " + $0.text(Console.language) } ?? (row.row > 0 ? row.productID.map { " (#\($0))" } ?? "" : "")
            Console.line("  \(label(row)) \(StatusWords.label(row.status.rawValue, Console.language))\(what)")
        }
        if rows.count > 10 { Console.line(Console.say("t_more_rows")) }
    }

    /// `row 3 TEA-003 녹차 라떼`, or `#12 name` for a row that is no sheet's.
    static func label(_ row: RowOutcome) -> String {
        let place = row.row > 0 ? Console.say("t_row", String(row.row)) : "#\(row.productID ?? 0)"
        let name = VisibleText.line(row.name)
        return row.key.isEmpty ? "\(place) \(name)" : "\(place) \(VisibleText.line(row.key)) \(name)"
    }

    static func printSummary(_ summary: SyncSummary, failures: [RowOutcome], report: URL, json: Bool, command: [String],
                             reportComplete: Bool = true, account: AccountArguments = AccountArguments(), printsUndo: Bool = true) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            struct Event: Encodable { var event = "summary"; var summary: SyncSummary; var report: String }
            if let data = try? encoder.encode(Event(summary: summary, report: report.path)) {
                Console.line(String(decoding: data, as: UTF8.self))
            }
            return
        }
        let language = Console.language
        Console.line(summary.line(language))
        if let readAs = summary.readAsPhrase?.text(language) ?? summary.readAs { Console.line("  \(readAs)") }
        if !summary.fieldsChanged.isEmpty {
            let fields = summary.fieldsChanged.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
                .map { "\(Catalogue.shipped.translation("field:\($0.key)", language) ?? $0.key) \($0.value)" }
            Console.line(Console.say(summary.dryRun ? "t_fields_would" : "t_fields_changed", fields.joined(separator: ", "))
                         + (summary.stockToZero > 0 ? Console.say("t_stock_zero", String(summary.stockToZero)) : ""))
        }
        if let refused = summary.deletesRefusedPhrase?.text(language) ?? summary.deletesRefused {
            Console.line("  \(refused)")
        }
        if let copies = summary.shopCopies {
            let ids = copies.flatMap(\.copies)
            let pairs = copies.prefix(10).map { copy in
                copy.copies.map { "#\($0)" }.joined(separator: ", ") + " ≈ #\(copy.productID) (\(copy.key))"
            }
            Console.line(Console.say("t_shop_copies", String(ids.count), pairs.joined(separator: "; ") + (copies.count > 10 ? " …" : ""),
                                     account.command(["delete"] + ids.map { "#\($0)" })))
            if let note = account.credentialsNote { Console.line("    (\(note))") }
        }
        if summary.photosDiffer > 0 {
            Console.line(summary.photosDiffer == 1 ? Console.say("t_photos_differ_one") : Console.say("t_photos_differ", String(summary.photosDiffer)))
        }
        for row in failures.sorted(by: { $0.row < $1.row }).prefix(10) {
            Console.line(Console.say("t_row_failed", String(row.row), row.errorText(language)))
        }
        if summary.failed > 10 { Console.line(Console.say("t_more_failed", String(summary.failed - 10))) }
        if let stopped = summary.stopText(language) {
            Console.line(Console.say("t_stopped", stopped, redacted(command).joined(separator: " ")))
        }
        if reportComplete { Console.line(Console.say("t_report", report.appendingPathComponent("report.html").path)) }
        if printsUndo, !summary.dryRun, summary.written > 0 {
            for line in account.undoLines(report) { Console.line(line) }
        }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func next() -> Int { lock.lock(); defer { lock.unlock() }; count += 1; return count }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
