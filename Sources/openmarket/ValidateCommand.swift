import ArgumentParser
import Foundation
import OpenMarketAPI
import Manifest

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check every row of a manifest before anything is sent.",
        discussion: """
            Reads CSV (comma, semicolon or tab; UTF-8, UTF-16 or CP949, detected), JSON (an array \
            of objects), JSON Lines or an Excel workbook (.xlsx, .xlsm: the first visible sheet, \
            or --sheet; the header row is found), and prints every problem grouped by row (as \
            Excel numbers rows), then a summary. \
            Image files are checked to exist and to be JPEG, PNG, HEIC or WebP by their first \
            bytes; they are never decoded, and a file over the server's limit is fine (import \
            shrinks it, and turns HEIC and WebP into JPEG). A name is found whether the disk \
            spells it composed or decomposed (Korean names from a Mac), and when only letter \
            case differs from the one file on disk (a warning says so).

            Exit codes: 0 every row is valid; 1 some rows have errors; 2 the file cannot be read.

            --format xlsx writes the manifest as a workbook to fix (--out, default NAME-checked.xlsx \
            beside it): rows with errors first, what is wrong in an `errors` column, then the \
            others. Fix the cells and validate or import that file as it is.

            Examples:
              openmarket validate products.csv --images photos/
              openmarket validate shop.xlsx --sheet 상품 --format xlsx
            """)

    @Argument(help: "The manifest: .csv, .tsv, .json, .jsonl, .xlsx, .xlsm.")
    var manifest: String

    @OptionGroup var reading: ManifestOptions

    @Option(name: .long, help: "text, json, or xlsx (a workbook to fix, see above).")
    var format: String = "text"

    @Option(name: .long, help: ArgumentHelp(
        "Check for this generation of server too: 2021 takes whole prices only (import checks it against the server it finds).",
        valueName: "generation"))
    var api: ServerGeneration?

    @Option(name: .long, help: ArgumentHelp("For --format xlsx: the workbook to write.", valueName: "file"))
    var out: String?

    func validate() throws {
        guard ["text", "json", "xlsx"].contains(format) else { throw ValidationError("--format must be text, json or xlsx") }
        if out != nil, format != "xlsx" { throw ValidationError("--out is for --format xlsx") }
    }

    func run() throws {
        let options: ValidationOptions
        do {
            var read = try reading.validation()
            read.wholeAmounts = api == .v2021
            options = read
        } catch { throw reportFailure(error) }
        let url = URL(fileURLWithPath: manifest)
        if format == "xlsx" { return try writeWorkbook(url, options) }
        let json = format == "json"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var first = true
        func emitJSON(_ issue: RowIssue) {
            let object = JSONIssue(issue)
            let text = String(decoding: (try? encoder.encode(object)) ?? Data(), as: UTF8.self)
            Console.out(Data(((first ? "" : ",\n  ") + text).utf8))
            first = false
        }
        if json { Console.out(Data("{\"issues\": [\n  ".utf8)) }
        // On a terminal, a big file shows rows checked and the rate (on stderr).
        let progress = ProgressLine(quiet: json)
        var checked = 0
        // For the time left: a line count of a big CSV or JSON Lines file (a cell with a line
        // break counts twice, so the total is an upper bound), only where it is shown.
        let expected = progress.isRedrawn ? ManifestReader.lineCount(url, above: 8 << 20) : nil
        defer { progress.clear() }
        let summary: ValidationSummary
        do {
            summary = try ManifestCheck.run(
                url, encoding: options.encoding, delimiter: options.delimiter, options: options,
                onFileIssue: { issue in
                    if json { emitJSON(issue) } else { Console.line("\(issue.severity.rawValue): \(issue.description)") }
                },
                onRow: { raw, _, issues in
                    checked += 1
                    if checked % 1000 == 0 {
                        if let lines = expected, lines > checked {
                            progress.update("checking \(url.lastPathComponent)", done: checked, total: lines, unit: "rows")
                        } else {
                            progress.counting("checking \(url.lastPathComponent)", done: checked, unit: "rows")
                        }
                    }
                    guard !issues.isEmpty else { return }
                    if json { issues.forEach(emitJSON); return }
                    progress.clear()
                    Console.line("row \(raw.number):")
                    for issue in issues {
                        let shown = issue.value.map { " '\($0.count > 60 ? String($0.prefix(57)) + "…" : $0)'" } ?? ""
                        Console.line("  \(issue.severity.rawValue) \(issue.column ?? "-")\(shown): \(issue.message) [\(issue.rule)]")
                    }
                })
        } catch {
            progress.clear()
            if json { Console.out(Data("]}\n".utf8)) }
            Console.error("openmarket validate: \(error.description)")
            throw ExitCode(.badInput)
        }
        progress.clear()
        if json {
            let text = String(decoding: (try? encoder.encode(summary)) ?? Data(), as: UTF8.self)
            Console.out(Data("\n], \"summary\": \(text)}\n".utf8))
        } else {
            Console.line(Self.summaryLine(url, summary))
        }
        if summary.hasErrors { throw ExitCode(.someFailed) }
    }
}

extension ValidateCommand {
    func writeWorkbook(_ url: URL, _ options: ValidationOptions) throws {
        let target = out.map { URL(fileURLWithPath: $0) }
            ?? url.deletingLastPathComponent().appendingPathComponent(url.deletingPathExtension().lastPathComponent + "-checked.xlsx")
        guard target.standardizedFileURL != url.standardizedFileURL else {
            throw ValidationError("--out names the manifest itself; choose another file")
        }
        let summary: ValidationSummary
        do {
            summary = try CheckedWorkbook.write(url, options: options, to: target) { issue in
                Console.line("\(issue.severity.rawValue): \(issue.description)")
            }
        } catch {
            Console.error("openmarket validate: \(error)")
            throw ExitCode(.badInput)
        }
        Console.line(Self.summaryLine(url, summary))
        Console.line("Wrote \(target.path) (rows with errors first)")
        if summary.hasErrors { throw ExitCode(.someFailed) }
    }

    /// `products.csv: 20 rows, 18 valid, 1 with errors, 1 with warnings, 2 skipped by the feed's filter`.
    static func summaryLine(_ url: URL, _ summary: ValidationSummary) -> String {
        "\(url.lastPathComponent): \(summary.rows == 1 ? "1 row" : "\(summary.rows) rows"), \(summary.valid) valid, \(summary.withErrors) with errors, \(summary.withWarnings) with warnings"
            + (summary.skipped > 0 ? ", \(summary.skipped) skipped by the feed's filter" : "")
            + (summary.fileErrors > 0 ? ", \(summary.fileErrors) file \(summary.fileErrors == 1 ? "error" : "errors")" : "")
            + (summary.fileWarnings > 0 ? ", \(summary.fileWarnings) file \(summary.fileWarnings == 1 ? "warning" : "warnings") (above)" : "")
    }

}

/// The JSON shape of an issue for scripts.
private struct JSONIssue: Encodable {
    var row: Int
    var column: String?
    var value: String?
    var severity: String
    var rule: String
    var message: String

    init(_ issue: RowIssue) {
        row = issue.row
        column = issue.column
        value = issue.value
        severity = issue.severity.rawValue
        rule = issue.rule
        message = issue.message
    }
}
