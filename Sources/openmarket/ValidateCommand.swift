import ArgumentParser
import Foundation
import Support
import Words
import OpenMarketAPI
import Manifest
import CatalogSync

struct ValidateCommand: ServerCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check every row of a manifest before anything is sent.",
        discussion: """
            Reads CSV (comma, semicolon or tab; UTF-8, UTF-16 or CP949, detected), JSON (an array \
            of objects), JSON Lines or a workbook (.xlsx, .xlsm, LibreOffice's .ods: the first visible sheet \
            with a header, or --sheet; the header row is found), and prints every problem grouped by row (as \
            Excel numbers rows), then a summary. \
            Image files are checked to exist and to be JPEG, PNG, HEIC or WebP by their first \
            bytes; they are never decoded, and a file over the server's limit is fine (import \
            shrinks it, and turns HEIC and WebP into JPEG). A name is found whether the disk \
            spells it composed or decomposed (Korean names from a Mac), and when only letter \
            case differs from the one file on disk (a warning says so).

            A row that could only update a product already in the shop (as a new product it lacks \
            photos, a stock, a key as typed…) is not counted valid: the summary counts it apart, \
            by the rule a new product would break, as import would fail it for a product it makes.

            Given the shop (--server or --profile), every row is decided as import decides it, \
            against the shop's products: would-create, would-update with each change, or failed \
            with the rule (nothing is written; import --dry-run is the same run).

            Exit codes: 0 every row is valid; 1 some rows have errors; 2 the file cannot be read.

            --format xlsx writes the manifest as a workbook to fix (--out, default NAME-checked.xlsx \
            beside it): rows with errors first, what is wrong in an `errors` column, then the \
            others. Fix the cells and validate or import that file as it is.

            Examples:
              openmarket validate products.csv --images photos/
              openmarket validate shop.xlsx --sheet 상품 --format xlsx
            """)

    @Argument(help: ArgumentHelp("The manifest: \(ManifestFormat.extensionsSaid)."))
    var manifest: String

    @OptionGroup var reading: ManifestOptions

    @Option(name: .long, help: "text, json, or xlsx (a workbook to fix, see above).")
    var format: String = "text"

    @OptionGroup(title: "The shop (optional: to decide each row as import would)") var server: ServerOptions

    /// `--api 2021`: a 2021 server takes whole prices only (import checks it against the server it finds).
    var api: ServerGeneration? { server.api }

    /// Whether the merchant named a shop to check against.
    var shopGiven: Bool { server.server != nil || server.profile != nil }

    @Option(name: .long, help: ArgumentHelp("For --format xlsx: the workbook to write.", valueName: "file"))
    var out: String?

    func validate() throws {
        guard ["text", "json", "xlsx"].contains(format) else { throw ValidationError(Console.say("arg_one_of", "--format", "text, json, xlsx")) }
        if out != nil, format != "xlsx" { throw ValidationError(Console.say("arg_out_xlsx")) }
        if shopGiven, format == "xlsx" { throw ValidationError(Console.say("arg_xlsx_alone")) }
    }

    func execute() async throws -> ExitStatus {
        var options = try reading.validation()
        options.wholeAmounts = api == .v2021
        let url = try SheetSource.local(manifest, options: &options)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CommandFailure(Console.say("t_no_such_file", manifest), exitCode: .badInput)
        }
        if shopGiven { return try await decide(url, options) }
        if format == "xlsx" { return try writeWorkbook(url, options) }
        let output = IssueOutput(json: format == "json")
        let summary = try check(url, options, output)
        output.end(summary, line: Self.summaryLine(url, summary))
        return summary.hasErrors ? .someFailed : .ok
    }

    /// Every row decided against the shop, as import decides it: the one sync, dry.
    private func decide(_ url: URL, _ options: ValidationOptions) async throws -> ExitStatus {
        try await Connection.using(server) { connection in
            var choices = RunChoices()
            choices.validation = options
            choices.dryRun = true
            let result = try await Runner.sync(ManifestRows(url), connection.request(choices))
            return await Runner.conclude(result, json: format == "json", command: "validate", connection: connection, printsUndo: false)
        }
    }

    /// Every row checked as import checks it, each issue said as it is found.
    private func check(_ url: URL, _ options: ValidationOptions, _ output: IssueOutput) throws -> ValidationSummary {
        // On a terminal, a big file shows rows checked and the rate (on stderr).
        let progress = ProgressLine(quiet: output.json)
        var checked = 0
        // For the time left: a line count of a big CSV or JSON Lines file (a cell with a line
        // break counts twice, so the total is an upper bound), only where it is shown.
        let expected = progress.isRedrawn ? ManifestReader.lineCount(url, above: 8 << 20) : nil
        defer { progress.clear() }
        do {
            return try ManifestCheck.run(
                url, encoding: options.encoding, delimiter: options.delimiter, options: options, keepsContents: false,
                onFileIssue: output.fileIssue,
                onRow: { raw, _, issues in
                    checked += 1
                    if checked % 1000 == 0 {
                        if let lines = expected, lines > checked {
                            progress.update("checking \(url.lastPathComponent)", done: checked, total: lines, unit: "rows")
                        } else {
                            progress.counting("checking \(url.lastPathComponent)", done: checked, unit: "rows")
                        }
                    }
                    if let reason = raw.origin?.skipped {
                        // Left out by the map (a filter, a draft, a platform's parent row): said, as import's report says it.
                        progress.clear()
                        let why = raw.origin?.skippedWords.map { Console.say($0.key, $0.terms) } ?? reason
                        var left = RowIssue(file: url.lastPathComponent, row: raw.number, column: nil, value: nil,
                                            severity: .warning, rule: "row-left-out", message: Console.say("t_left_out", why))
                        left.terms = [why]
                        return output.row(raw.number, [left])
                    }
                    var issues = issues
                    if let offSale = raw.origin?.offSale {
                        issues.append(RowIssue(file: url.lastPathComponent, row: raw.number, column: offSale.column, value: offSale.value,
                                               severity: .warning, rule: "row-off-sale", message: Console.say("t_off_sale", offSale.column, offSale.value)))
                    }
                    guard !issues.isEmpty else { return }
                    progress.clear()
                    output.row(raw.number, issues)
                })
        } catch {
            progress.clear()
            output.abandon()
            throw CommandFailure(error.description, exitCode: .badInput)
        }
    }
}

/// Where `validate` says what it found: lines for a person, or one JSON object.
private final class IssueOutput {
    let json: Bool
    private let encoder = JSONEncoder()
    private var first = true

    init(json: Bool) {
        self.json = json
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if json { Console.out(Data("{\"issues\": [\n  ".utf8)) }
    }

    func fileIssue(_ issue: RowIssue) {
        if json { emit(issue) } else { Console.line(Self.said(issue)) }
    }

    /// `error: products.csv, row 7, column price: value '12.000,50': … [price-format]`, in the
    /// terminal's language (the rule's name as it is).
    static func said(_ issue: RowIssue) -> String {
        let language = Console.language
        guard language == .ko else { return "\(issue.severity.rawValue): \(issue.description)" }
        var place = issue.file
        if issue.row > 0 { place += ", " + Console.say("t_row", String(issue.row)) }
        if let column = issue.column { place += ", " + (issue.header.map { "\($0) (\(column))" } ?? RowProblem.columnName(column, language)) }
        let shown = issue.value.map { " '\($0.count > 60 ? String($0.prefix(57)) + "…" : $0)'" } ?? ""
        return "\(severity(issue)): \(place):\(shown) \(RuleWords.message(issue.rule, english: issue.message, language, terms: issue.terms)) [\(issue.rule)]"
    }

    static func severity(_ issue: RowIssue) -> String {
        Console.language == .en ? issue.severity.rawValue : Console.say(issue.severity == .error ? "t_error" : "t_warning")
    }

    func row(_ number: Int, _ issues: [RowIssue]) {
        if json { issues.forEach(emit); return }
        let language = Console.language
        Console.line(Console.say("t_validate_row", String(number)))
        for issue in issues {
            let shown = issue.value.map { " '\($0.count > 60 ? String($0.prefix(57)) + "…" : $0)'" } ?? ""
            let column = issue.column.map { name in issue.header.map { "\($0) (\(name))" } ?? RowProblem.columnName(name, language) } ?? "-"
            Console.line("  \(Self.severity(issue)) \(column)\(shown): \(RuleWords.message(issue.rule, english: issue.message, language, terms: issue.terms)) [\(issue.rule)]")
        }
    }

    func end(_ summary: ValidationSummary, line: String) {
        guard json else { return Console.line(line) }
        let text = String(decoding: (try? encoder.encode(summary)) ?? Data(), as: UTF8.self)
        Console.out(Data("\n], \"summary\": \(text)}\n".utf8))
    }

    /// The file could not be read to its end: the JSON is closed all the same.
    func abandon() {
        if json { Console.out(Data("]}\n".utf8)) }
    }

    private func emit(_ issue: RowIssue) {
        let text = String(decoding: (try? encoder.encode(JSONIssue(issue))) ?? Data(), as: UTF8.self)
        Console.out(Data(((first ? "" : ",\n  ") + text).utf8))
        first = false
    }
}

extension ValidateCommand {
    func writeWorkbook(_ url: URL, _ options: ValidationOptions) throws -> ExitStatus {
        let target = out.map { URL(fileURLWithPath: $0) }
            ?? url.deletingLastPathComponent().appendingPathComponent(url.deletingPathExtension().lastPathComponent + "-checked.xlsx")
        guard target.standardizedFileURL != url.standardizedFileURL else {
            throw ValidationError(Console.say("arg_out_manifest"))
        }
        let summary: ValidationSummary
        do {
            summary = try CheckedWorkbook.write(url, options: options, to: target) { issue in Console.line(IssueOutput.said(issue)) }
        } catch {
            throw CommandFailure(error, exitCode: .badInput)
        }
        Console.line(Self.summaryLine(url, summary))
        Console.line(Console.say("t_validate_wrote", target.path))
        return summary.hasErrors ? .someFailed : .ok
    }

    /// `products.csv: 20 rows, 18 valid, 1 with errors, 1 with warnings, 2 skipped by the feed's filter`.
    static func summaryLine(_ url: URL, _ summary: ValidationSummary) -> String {
        let counts = [summary.valid, summary.withErrors, summary.withWarnings].map(String.init)
        let needs = summary.newProductNeeds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return (summary.rows == 1 ? Console.say("t_validate_row_one", [url.lastPathComponent] + counts)
                    : Console.say("t_validate_rows", [url.lastPathComponent, String(summary.rows)] + counts))
            + (summary.updateOnly > 0 ? Console.say("t_validate_update_only", String(summary.updateOnly), needs) : "")
            + (summary.skipped > 0 ? Console.say("t_validate_skipped", String(summary.skipped)) : "")
            + (summary.offSale > 0 ? Console.say("t_validate_off_sale", String(summary.offSale)) : "")
            + (summary.fileErrors == 1 ? Console.say("t_validate_file_error") : "")
            + (summary.fileErrors > 1 ? Console.say("t_validate_file_errors", String(summary.fileErrors)) : "")
            + (summary.fileWarnings == 1 ? Console.say("t_validate_file_warning") : "")
            + (summary.fileWarnings > 1 ? Console.say("t_validate_file_warnings", String(summary.fileWarnings)) : "")
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
