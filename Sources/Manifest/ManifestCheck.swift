import Foundation
import Support

/// Counts of a validation run.
public struct ValidationSummary: Sendable, Equatable, Codable {
    public var rows = 0
    public var valid = 0
    public var withErrors = 0
    public var withWarnings = 0
    /// Problems of the file as a whole (a missing column).
    public var fileErrors = 0
    /// Warnings about the file as a whole (a column openmarket does not know), not a row's.
    public var fileWarnings = 0
    /// Rows a feed's filter leaves out (counted in `rows`, not in `valid`).
    public var skipped = 0
    /// Rows that say their product is not on sale (품절, 판매중지, a past end date): each takes
    /// the product the shop holds off sale and makes none (counted in `rows`, not in `valid`).
    public var offSale = 0
    /// Rows without an error that only an update can take: as a new product each lacks
    /// something (photos, a stock, a key as typed), so import fails them unless the shop has
    /// their product. Counted apart from `valid`, by rule in `newProductNeeds`.
    public var updateOnly = 0
    /// The rules those rows break as new products, with how many rows break each.
    public var newProductNeeds: [String: Int] = [:]

    enum CodingKeys: String, CodingKey {
        case rows, valid
        case withErrors = "with_errors"
        case withWarnings = "with_warnings"
        case fileErrors = "file_errors"
        case fileWarnings = "file_warnings"
        case skipped
        case offSale = "off_sale"
        case updateOnly = "update_only"
        case newProductNeeds = "new_product_needs"
    }

    public init() {}

    public var hasErrors: Bool { withErrors > 0 || fileErrors > 0 }
}

/// Reads and validates a whole manifest as a stream: `onRow` sees each
/// row's draft (if valid) and issues as soon as the row is read.
///
/// `keepsContents: false` is for a caller that counts rows and says their issues (validate): the
/// rows `onRow` sees may then come without their cells, and their drafts without the product's
/// texts and photos (what `ValidationSummary.count` reads stays), let go on the thread that made
/// them instead of the one that takes every row.
public enum ManifestCheck {
    public static func run(
        _ url: URL, format: ManifestFormat? = nil, encoding: TextEncoding? = nil, delimiter: Character? = nil,
        options: ValidationOptions, keepsContents: Bool = true,
        onOpen: (ManifestReader) -> Void = { _ in },
        onFileIssue: (RowIssue) -> Void,
        onRow: (RawRow, ProductDraft?, [RowIssue]) -> Void
    ) throws(ManifestError) -> ValidationSummary {
        let reader = try open(url, format: format, encoding: encoding, delimiter: delimiter, options: options)
        var summary = ValidationSummary()
        onOpen(reader)
        let fileIssues = ManifestValidator.fileIssues(reader)
        for issue in fileIssues {
            if issue.severity == .error { summary.fileErrors += 1 } else { summary.fileWarnings += 1 }
            onFileIssue(issue)
        }
        let validator = ManifestValidator(reader: reader, options: options)
        if let rows = reader.estimatedRows { validator.reserve(rows: rows + rows / 8) }
        do {
            try readRows(reader, validator, file: url.lastPathComponent, keepsContents: keepsContents) { raw, draft, issues in
                summary.count(raw, draft, issues)
                onRow(raw, draft, issues)
            }
        } catch {
            // The reading stopped at a byte that is not UTF-8: that is what went wrong.
            throw reader.encodingFailure() ?? error
        }
        // Read on the first megabyte's word that it is UTF-8: the whole file was.
        if let failure = reader.encodingFailure() { throw failure }
        if let rows = summary.newProductNeeds["stock-missing"] {
            // Known once the rows are read (JSON names its columns row by row); said once.
            let way = options.answersOnPage ? "choose above what a new product starts with"
                : "add a stock column, or run with --default-stock N (what a new product starts with)"
            summary.fileWarnings += 1
            onFileIssue(RowIssue(file: url.lastPathComponent, row: 1, column: Column.stock.rawValue, value: nil, severity: .warning, rule: "stock-missing",
                                 message: "the sheet has no stock column, and nothing given is not 0: \(rows == 1 ? "1 row" : "\(rows) rows") can only update a product already in the shop (it keeps its stock), not make one; \(way)"))
        }
        // JSON and JSON Lines name their columns row by row: unknown ones are known only now.
        if !reader.format.hasHeaderRow && !fileIssues.contains(where: { $0.rule == "column-unknown" }) {
            for issue in ManifestValidator.fileIssues(reader) where issue.rule == "column-unknown" { onFileIssue(issue) }
        }
        return summary
    }

    private static func open(_ url: URL, format: ManifestFormat?, encoding: TextEncoding?, delimiter: Character?,
                             options: ValidationOptions) throws(ManifestError) -> ManifestReader {
        do {
            return try ManifestReader(url: url, format: format, encoding: encoding, delimiter: delimiter, sheet: options.sheet,
                                      mapping: options.mapping, platformMaps: options.platformMaps, speculativeEncoding: true)
        }
        catch let error as ManifestError { throw error }
        catch { throw ManifestError(file: url.lastPathComponent, message: "\(error)") }
    }

    /// Every row checked, handed to `deliver` in file order (a row left out by a map with no
    /// draft and no issues): CSV and JSON on all cores, the rules across rows here; any other
    /// file row by row.
    private static func readRows(_ reader: ManifestReader, _ validator: ManifestValidator, file: String, keepsContents: Bool,
                                 deliver: (RawRow, ProductDraft?, [RowIssue]) -> Void) throws(ManifestError) {
        func checked(_ raw: RawRow, _ check: consuming ManifestValidator.RowCheck) {
            if raw.origin?.skipped != nil { return deliver(raw, nil, []) }
            let (draft, issues) = validator.acrossRows(check, row: raw.number)
            deliver(raw, draft, issues)
        }
        let workers = min(max(1, ProcessInfo.processInfo.activeProcessorCount), 4)
        if workers > 1, let pieces = reader.takePieces() {
            ParallelRows.run(workers: workers, next: pieces.next, delimiter: pieces.delimiter, reader: reader,
                             keepsContents: keepsContents, check: validator.check, warm: { validator.warm($0) }, deliver: checked)
            return
        }
        if workers > 1, let next = JSONPieces.pieces(reader) {
            try JSONPieces.run(next, workers: workers, file: file, reader: reader, keepsContents: keepsContents, check: validator.check,
                               warm: { validator.warm($0) }, deliver: checked)
        }
        while true {
            let next: RawRow?
            do { next = try reader.next() }
            catch let error as ManifestError { throw error }
            catch { throw ManifestError(file: file, message: "\(error)") }
            guard let raw = next else { return }
            if raw.origin?.skipped != nil {
                deliver(raw, nil, [])
                continue
            }
            let (draft, issues) = validator.validate(raw)
            deliver(raw, draft, issues)
        }
    }
}

extension ValidationSummary {
    /// One row counted: left out by a map's filter (neither checked nor sent), valid, with errors,
    /// with warnings.
    mutating func count(_ raw: RawRow, _ draft: ProductDraft?, _ issues: [RowIssue]) {
        rows += 1
        if raw.origin?.skipped != nil {
            skipped += 1
            return
        }
        if issues.contains(where: { $0.severity == .error }) {
            withErrors += 1
        } else if raw.origin?.offSale != nil {
            offSale += 1
        } else if let needs = draft?.createProblems, !needs.isEmpty {
            // Import would fail it as a new product: never counted valid.
            updateOnly += 1
            for rule in Set(needs.map(\.rule)) { newProductNeeds[rule, default: 0] += 1 }
        } else {
            valid += 1
        }
        if issues.contains(where: { $0.severity == .warning }) { withWarnings += 1 }
    }
}
