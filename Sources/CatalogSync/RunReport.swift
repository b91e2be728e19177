import Foundation
import ImagePrep
import Manifest
import Mustache
import Support
import Words

/// The run's report, written as the rows finish so that memory stays flat:
/// `report.csv` and `report.json` (one line per row, in the order rows
/// finished; the JSON also holds the summary), `report.xlsx` (see `ReportWorkbook`)
/// and `report.html` (summary,
/// failures first with the reason and the row's values, then the products with
/// their thumbnails — the first `htmlProductLimit` of them). Nothing here ever
/// sees the identifier or the secret.
public final class RunReport: @unchecked Sendable {
    public let directory: URL
    public static let htmlProductLimit = 1000
    public static let failureLimit = 10_000

    private let lock = NSLock()
    private let csvStream: BufferedFileOutput
    private let csv: CSVLines
    private let rowsFile: URL
    private let rowsHandle: FileHandle
    private let encoder: JSONEncoder
    private var rowCount = 0
    public private(set) var failures: [RowOutcome] = []
    public private(set) var failureCount = 0
    /// Rows that did not fail, by status, the first `htmlProductLimit` of each.
    private(set) var groups: [RowOutcome.Status: [RowOutcome]] = [:]
    private(set) var groupCounts: [RowOutcome.Status: Int] = [:]
    private var productCount = 0
    /// Makes the thumbnails (used under `lock`).
    private var codec: JPEGCodec?

    /// What the rows came from, as the report's title names it.
    public let source: String
    /// The folder relative image paths were under, so that report.xlsx names them whole
    /// (it is imported again from the report's folder).
    public var imagesRoot: URL?
    /// The merchant's own headers of our columns (`key` → `상품코드`), for the sheet to fix.
    public var columnHeaders: [String: String] = [:]
    /// A file read through a platform's map: its failed rows as it has them (the sheet to fix
    /// is then in the file's own columns).
    public var originalRows: (@Sendable (Set<Int>) throws -> OriginalRows?)?
    /// Longest edge of the thumbnails the report keeps in `thumbnails/`.
    public static let thumbnailEdge = 96
    /// Fetches a product's server thumbnail (for rows whose photo the run did not prepare),
    /// so that report.html needs no server to show it. Called by `finish`.
    public var fetchThumbnail: (@Sendable (String) -> [UInt8]?)?
    /// The language report.html and report.xlsx are written in (report.csv and report.json
    /// keep the CLI's words, for scripts).
    public var language: Language = .en
    /// The run was made from the console's page: the report's ways on are its buttons.
    public var onPage = false
    /// Where product links point instead of the run's server (a server that stops with the
    /// command, the built-in sandbox: its pages as `openmarket sandbox` serves them later).
    public var productPages: (base: String, path: String)?

    /// The report of a manifest's import (named by the file).
    public convenience init(directory: URL, manifest: URL) throws {
        try self.init(directory: directory, source: manifest.lastPathComponent)
    }

    /// `source` names where the rows came from, as the report's title says it.
    public init(directory: URL, source: String) throws {
        self.directory = directory
        self.source = source
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let stream = try BufferedFileOutput(url: directory.appendingPathComponent("report.csv"))
        csvStream = stream
        csv = CSVLines(stream, newline: "\r\n")
        try csv.write(row: ["row", "key", "name", "status", "product_id", "changes", "error", "images (bytes before → after)",
                            "attempts", "seconds", "note"])
        rowsFile = directory.appendingPathComponent(".rows.partial")
        guard FileManager.default.createFile(atPath: rowsFile.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: rowsFile.path])
        }
        rowsHandle = try FileHandle(forWritingTo: rowsFile)
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    /// Why the report's files could not be written (a full disk), from the first failed
    /// write on; `finish` then throws it. The run goes on: the report is not the record.
    public private(set) var writeProblem: String?

    /// The rows that changed (or would change) the shop, in the sheet's order, at most `limit`:
    /// what a merchant wants to see on screen after a run.
    public func changedRows(limit: Int) -> [RowOutcome] {
        lock.lock()
        defer { lock.unlock() }
        let statuses: [RowOutcome.Status] = [.created, .wouldCreate, .updated, .wouldUpdate, .replaced, .restored, .wouldRestore,
                                             .deleted, .wouldDelete]
        let rows = statuses.flatMap { groups[$0] ?? [] }
            .sorted(by: RowOutcome.inSheetOrder)
        return Array(rows.prefix(limit))
    }

    /// Every row the report keeps, whatever it came to, in the sheet's order, at most `limit`
    /// (the console's list of a run).
    public func shownRows(limit: Int) -> [RowOutcome] {
        lock.lock()
        defer { lock.unlock() }
        return Array(groups.values.flatMap { $0 }.sorted(by: RowOutcome.inSheetOrder).prefix(limit))
    }

    /// The rows left alone on purpose (skipped), with why, in the sheet's order, at most `limit`.
    public func skippedRows(limit: Int) -> [RowOutcome] {
        lock.lock()
        defer { lock.unlock() }
        let rows = (groups[.skipped] ?? [])
            .sorted(by: RowOutcome.inSheetOrder)
        return Array(rows.prefix(limit))
    }

    /// Records one finished row.
    public func add(_ row: RowOutcome) {
        lock.lock()
        defer { lock.unlock() }
        if writeProblem == nil { record(row) }
        rowCount += 1
        if row.isFailure {
            failureCount += 1
            if failures.count < Self.failureLimit { failures.append(row) }
        } else {
            productCount += 1
            groupCounts[row.status, default: 0] += 1
            if groups[row.status, default: []].count < Self.htmlProductLimit {
                var kept = row
                if let photo = row.photo {
                    // One picture made once for the rows that share a photo (a placeholder, a logo).
                    let key = PhotoKey(hash: FNV.hash(photo), count: photo.count)
                    if let made = thumbnailsMade[key] {
                        kept.localThumbnail = made
                    } else if let small = thumbnail(of: Array(photo)) {
                        kept.localThumbnail = saveThumbnail(small, for: row)
                        if thumbnailsMade.count < 4096, let name = kept.localThumbnail { thumbnailsMade[key] = name }
                    }
                }
                kept.photo = nil
                kept.values = [:]
                groups[row.status, default: []].append(kept)
            }
        }
    }

    /// Writes `row` to report.csv and the rows file; the first failure is kept in `writeProblem`.
    private func record(_ row: RowOutcome) {
        do {
            try csv.write(row: [row.row > 0 ? String(row.row) : "", row.key, row.name, row.status.rawValue, row.productID.map(String.init) ?? "",
                                row.changes ?? "", row.error ?? "", Self.sizes(row.imagesBefore, row.imagesAfter), String(row.attempts),
                                JSONText.milliseconds(row.seconds), row.note ?? ""].map(CSVCell.neutralise))
            if rowCount > 0 { pendingRows.append(contentsOf: Self.rowSeparator) }
            if pendingFirst == nil { pendingFirst = row.row > 0 ? "row \(row.row)" : "the row of key \(row.key)" }
            if let line = row.reportLine() { pendingRows.append(contentsOf: line) } else { pendingRows.append(contentsOf: try encoder.encode(row)) }
            if pendingRows.count >= Self.rowsBuffer { try flushRows() }
        } catch {
            let which = pendingFirst ?? (row.row > 0 ? "row \(row.row)" : "the row of key \(row.key)")
            writeProblem = "\(which) and those after it are missing from report.csv: \(fileErrorReason(csvStream.failure ?? error))"
        }
    }

    /// report.json's rows not yet in the rows file (written 64 KiB at a time, not a write a row),
    /// and the first of them, as a write problem names it.
    private var pendingRows: [UInt8] = []
    private var pendingFirst: String?
    private static let rowsBuffer = 1 << 16
    private static let rowSeparator = Array(",\n  ".utf8)

    private func flushRows() throws {
        guard !pendingRows.isEmpty else { return }
        try rowsHandle.write(contentsOf: pendingRows)
        pendingRows.removeAll(keepingCapacity: true)
        pendingFirst = nil
    }

    /// Completes the files: report.csv, report.json, report.html, then report.xlsx. A file
    /// that cannot be written (a full disk) is a `ReportWriteError` naming the folder and why.
    public func finish(_ summary: SyncSummary) throws(ReportWriteError) {
        lock.lock()
        defer { lock.unlock() }
        defer { try? FileManager.default.removeItem(at: rowsFile) }
        do {
            if writeProblem == nil { try flushRows() }
            try csvStream.finish()
            try rowsHandle.close()
        } catch {
            if writeProblem == nil { writeProblem = "report.csv: \(fileErrorReason(csvStream.failure ?? error))" }
        }
        if let writeProblem { throw ReportWriteError(directory: directory, problem: writeProblem) }
        var file = "report.json"
        do {
            try writeFiles(summary, file: &file)
        } catch {
            throw ReportWriteError(directory: directory, problem: "\(file): \(fileErrorReason(error))")
        }
    }

    private func writeFiles(_ summary: SyncSummary, file: inout String) throws {
        // report.json: the summary, then the rows streamed from the partial file.
        let json = directory.appendingPathComponent("report.json")
        guard FileManager.default.createFile(atPath: json.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        let out = try FileHandle(forWritingTo: json)
        defer { try? out.close() }
        try out.write(contentsOf: Data("{\n\"summary\": ".utf8) + (try encoder.encode(summary)) + Data(",\n\"rows\": [\n  ".utf8))
        let input = try FileHandle(forReadingFrom: rowsFile)
        defer { try? input.close() }
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try out.write(contentsOf: chunk) }
        try out.write(contentsOf: Data("\n]\n}\n".utf8))
        try out.synchronize()
        fetchMissingThumbnails()
        file = "report.html"
        try html(summary).write(to: directory.appendingPathComponent("report.html"), atomically: true, encoding: .utf8)
        // Last: a workbook that cannot be written (a full disk) leaves the other three complete.
        file = "report.xlsx"
        // A platform's file: its failed rows read again as it has them (a file no longer
        // there, or no longer readable: the sheet to fix in our columns, as for any file).
        let original = try? originalRows?(try ReportWorkbook.failedRows(in: rowsFile))
        try ReportWorkbook.write(rows: rowsFile, to: directory.appendingPathComponent("report.xlsx"), imagesRoot: imagesRoot,
                                 headers: columnHeaders, original: original ?? nil, language: language)
    }

    /// A JPEG at most `thumbnailEdge` pixels long, of a JPEG or PNG; nil for anything else.
    private func thumbnail(of image: [UInt8]) -> [UInt8]? {
        if codec == nil { codec = try? JPEGCodec() }
        guard let codec else { return nil }
        return try? Thumbnailer.thumbnail(of: image, maxEdge: Self.thumbnailEdge, codec: codec)
    }

    private var thumbnailFolderMade = false
    /// The thumbnails made of a photo, by its bytes' hash and length (used under `lock`).
    private var thumbnailsMade: [PhotoKey: String] = [:]
    private struct PhotoKey: Hashable { var hash: UInt64; var count: Int }

    /// Writes a thumbnail into `thumbnails/`; returns its path relative to the report.
    private func saveThumbnail(_ jpeg: [UInt8], for row: RowOutcome) -> String? {
        let name = "thumbnails/\(row.row)-\(row.productID ?? 0)-\(row.status.rawValue).jpg"
        let url = directory.appendingPathComponent(name)
        do {
            if !thumbnailFolderMade {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                thumbnailFolderMade = true
            }
            // No fsync: a thumbnail a power cut loses is fetched from the shop again.
            try PlainFile.write(jpeg, to: url.path)
            return name
        } catch {
            return nil
        }
    }

    /// Rows shown with a picture that has none yet: their server thumbnail, made small
    /// and kept in the folder (the report never points at a server). Fetched 8 at a time:
    /// one at a time, 200 deleted products at a 25 ms round trip took longer than the undo.
    private func fetchMissingThumbnails() {
        guard let fetch = fetchThumbnail else { return }
        var wanted: [(status: RowOutcome.Status, index: Int, url: String)] = []
        for status in Self.sectionOrder where status != .unchanged && status != .skipped {
            for (index, row) in (groups[status] ?? []).enumerated() where row.localThumbnail == nil {
                guard let url = row.thumbnail, url.hasPrefix("http://") || url.hasPrefix("https://") else { continue }
                wanted.append((status, index, url))
            }
        }
        let urls = wanted.map(\.url)
        let fetched = FetchedThumbnails()
        let width = 8
        // Threads of their own: concurrentPerform runs as many at once as there are cores, and
        // these wait on the network, not the CPU.
        let lanes = DispatchGroup()
        for lane in 0..<min(width, urls.count) {
            lanes.enter()
            let thread = Thread {
                defer { lanes.leave() }
                for position in stride(from: lane, to: urls.count, by: width) {
                    if let bytes = fetch(urls[position]) { fetched.keep(bytes, at: position) }
                }
            }
            thread.name = "openmarket.thumbnails"
            thread.start()
        }
        lanes.wait()
        for (position, want) in wanted.enumerated() {
            guard let data = fetched.bytes[position], let small = thumbnail(of: data), let row = groups[want.status]?[want.index] else { continue }
            groups[want.status]?[want.index].localThumbnail = saveThumbnail(small, for: row)
        }
    }

    static func sizes(_ before: [Int], _ after: [Int]) -> String {
        zip(before, after).map { "\($0) → \($1)" }.joined(separator: "; ")
    }

    static func kilobytes(_ bytes: Int) -> String { ByteCount.text(bytes) }
}

/// The report could not be completely written (a full disk, a folder taken away): the
/// run itself is done and recorded; only the files that tell of it are not whole.
public struct ReportWriteError: Error, CustomStringConvertible, Sendable {
    public var directory: URL
    public var problem: String
    public var description: String { "the report in \(directory.path) is incomplete (\(problem))" }
}

/// Thumbnails fetched by several threads at once, by position.
private final class FetchedThumbnails: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [Int: [UInt8]] = [:]

    func keep(_ bytes: [UInt8], at position: Int) { lock.withLock { kept[position] = bytes } }

    var bytes: [Int: [UInt8]] { lock.withLock { kept } }
}
