import Foundation
import Words
import Manifest
import ShopState

/// A manifest file (CSV, JSON, JSON Lines, Excel) as the rows of a sync: each row read,
/// validated and handed to the run as it goes. Read once — twice only for `deleteMissing`,
/// whose list of what the file names must be whole before anything is sent (a run over
/// `--max-deletes` is refused as a whole).
public struct ManifestRows: RowSource {
    public let url: URL
    public let kind: RunKind
    public let label: String
    /// Where a new report goes when the door names none: the sheet's folder, or (a sheet
    /// fetched from storage, whose local copy is in a cache) the folder the merchant is in.
    public let reportsBeside: URL?

    public init(_ url: URL, kind: RunKind = .import, label: String? = nil, reportsBeside: URL? = nil) {
        self.url = url
        self.kind = kind
        self.label = label ?? url.path
        self.reportsBeside = reportsBeside ?? url.deletingLastPathComponent()
    }

    public var manifest: URL? { url }

    public func rows(into sink: any RowSink) throws {
        let options = sink.options
        // The file's encoding, delimiter and headers, detected once (a sample, not the rows).
        let reader = try ManifestReader(url: url, encoding: options.validation.encoding, delimiter: options.validation.delimiter,
                                        sheet: options.validation.sheet, mapping: options.validation.mapping,
                                        platformMaps: options.validation.platformMaps)
        var validation = options.validation
        validation.encoding = reader.encoding
        validation.delimiter = reader.delimiter
        // The sheet to fix names its columns as the file does. A file read through a map gives
        // back its failed rows as it has them (below); where it cannot (a product made of several
        // rows), the sheet has our own names and the values made of the file's.
        var headers: [String: String] = [:]
        if reader.mapping == nil {
            for column in Column.allCases { if let own = reader.header(of: column) { headers[column.rawValue] = own } }
        }
        sink.name(columns: headers)
        if let mapping = reader.mapping {
            let (url, encoding, delimiter, sheet) = (url, reader.encoding, reader.delimiter, options.validation.sheet)
            sink.original { numbers in
                try ManifestReader.originalRows(url, encoding: encoding, delimiter: delimiter, sheet: sheet, mapping: mapping, numbers: numbers)
            }
        }
        if let map = reader.platformMap { sink.read(as: Phrase("t_read_as", map.title, map.koreanTitle ?? map.title, map.mapName)) }
        let reading = ManifestValidator(reader: reader, options: validation)
        // --delete-missing: what the file names, read from the cells whether or not the row is
        // valid (a broken row must not delete its product), before anything is sent.
        var listed: ListedProducts?
        // A count for the progress line: the file's lines (CSV, JSON Lines), else the reader's estimate.
        var count = ManifestReader.lineCount(url, above: 0) ?? reader.estimatedRows ?? 0
        if let shard = options.shard { count = (count + shard.count - 1) / shard.count }
        if options.deleteMissing {
            var names = ListedProducts()
            count = 0
            while let raw = try reader.next() {
                count += 1
                names.add(reading.identity(of: raw))
            }
            listed = names
        }
        // Read once, the count is an estimate until the last row.
        try sink.rows(count: count, exact: options.deleteMissing, listed: listed) { feed in
            var fileErrors: [RowIssue] = []
            _ = try ManifestCheck.run(
                url, encoding: validation.encoding, delimiter: validation.delimiter, options: validation,
                onFileIssue: { if $0.severity == .error { fileErrors.append($0) } },
                onRow: { raw, draft, issues in
                    // After a stop the rows still pass (the run calls each `not sent`), so that
                    // the counts add up to the rows read.
                    // Another shard's row: not this run's at all (not counted, not reported).
                    if let shard = options.shard, !shard.owns(Self.shardKey(reading.identity(of: raw), row: raw.number)) { return }
                    if let reason = raw.origin?.skipped {
                        // Left out by the feed's filter: a row of the report, nothing sent.
                        let identity = reading.identity(of: raw)
                        var outcome = raw.origin?.skippedWords.map { RowOutcome.skipped(row: raw.number, key: identity.key ?? "", notes: [Phrase($0.key, $0.terms)]) }
                            ?? RowOutcome.skipped(row: raw.number, key: identity.key ?? "", note: reason)
                        outcome.name = identity.name ?? ""
                        feed.reject(outcome)
                        return
                    }
                    guard fileErrors.isEmpty, let draft else {
                        let problems = (fileErrors + issues.filter { $0.severity == .error })
                            .map { RowProblem(column: $0.columnLabel, value: $0.value, rule: $0.rule, message: $0.message) }
                        var outcome = RowOutcome.failed(raw, message: problems.map { $0.text(.en) }.joined(separator: "; "))
                        outcome.problems = problems
                        feed.reject(outcome)
                        return
                    }
                    let nameNotes = issues.filter { $0.rule == "image-name-case" }.map { Phrase("n_photo_name_case", $0.value ?? "", $0.message) }
                    feed.submit(draft, notes: nameNotes)
                })
        }
    }
}

extension ManifestRows {
    /// What a row is sharded by: its link key; a row with neither key nor name (it fails
    /// validation) by its row number, so that exactly one shard reports it.
    static func shardKey(_ identity: RowIdentity, row: Int) -> String {
        let name = identity.name ?? ""
        if (identity.key ?? "").isEmpty && name.isEmpty { return "row:\(row)" }
        return ProductLink.identity(key: identity.key, name: name).key
    }
}

extension SyncRun {
    /// Runs the sync of the manifest in `options.manifest` (tests of the run itself; commands
    /// go through `Sync.run`). Blocking.
    public func run() throws -> SyncSummary {
        guard let manifest = options.manifest else {
            throw SyncStop("no manifest to read: rows that come from no file are a source of their own", cause: .input)
        }
        try ManifestRows(manifest).rows(into: self)
        return summary()
    }
}
