@testable import CatalogSync
import Foundation
import Manifest
import OpenMarketAPI
import ShopState
import Support
import Testing
import TestSupport

/// A merchant's folder: one photo, sheets written as CSV text, and an account
/// state folder (link store, journals) of its own.
struct Shop {
    let files: Scratch
    let sandbox: TestSandbox
    var state: URL { files.directory.appendingPathComponent("state") }
    var links: StoreAddress { .file(state.appendingPathComponent("links.sqlite")) }

    static func open() async throws -> Shop {
        let files = try Scratch()
        _ = try files.write(Fixtures.jpeg(width: 48, height: 36, seed: 1), named: "p.jpg")
        _ = try files.write(Fixtures.jpeg(width: 48, height: 36, seed: 2), named: "q.jpg")
        return Shop(files: files, sandbox: try await TestSandbox.start())
    }

    func close() async {
        await sandbox.stop()
        files.cleanup()
    }

    @discardableResult
    func sheet(_ name: String, _ text: String) throws -> URL {
        let url = files.directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// `rows` products K1…Kn named "Item n", price 1000+n, stock n % 7, one photo.
    static func sheetText(rows: Int, priceOf: (Int) -> Int = { 1000 + $0 }) -> String {
        var csv = "key,name,price,currency,discounted_price,stock,images\n"
        for i in 1...rows { csv += "K\(i),Item \(i),\(priceOf(i)),KRW,0,\(i % 7),p.jpg\n" }
        return csv
    }

    struct Result {
        var summary: SyncSummary
        var rows: [RowOutcome]
        /// The report folder (with the run's record, for undo).
        var folder: URL
        func row(_ number: Int) -> RowOutcome? { rows.first { $0.row == number } }
        func product(_ id: Int) -> RowOutcome? { rows.first { $0.productID == id } }
    }

    /// Imports `manifest` as the demo vendor; the journal is per manifest name, as the CLI's.
    /// `listing` is told each page of the shop's list as the run reads it (on the reading thread).
    /// `server`: another address than the sandbox's, with the demo vendor's credentials.
    func run(_ manifest: URL, sink: (any AppendLog.Sink)? = nil, server: URL? = nil,
             _ configure: (inout SyncOptions) -> Void = { _ in }, listing: (@Sendable (Int) -> Void)? = nil) async throws -> Result {
        var options = SyncOptions(manifest: manifest,
                                    journal: state.appendingPathComponent("journals/\(manifest.lastPathComponent).journal"))
        let reportDirectory = files.directory.appendingPathComponent("report-\(UUID().uuidString)")
        options.links = links
        options.jobs = 4
        options.record = reportDirectory
        configure(&options)
        let settings = options
        let report = try RunReport(directory: reportDirectory, manifest: manifest)
        let writer = try server.map {
            try OpenMarketClient(ClientConfiguration(server: $0, credentials: VendorCredentials(identifier: sandbox.demo.identifier, secret: sandbox.demo.secret)))
        } ?? client(sandbox, sandbox.demo)
        let summary = try await blocking {
            let run = try SyncRun(options: settings, client: writer, report: report, journalSink: sink)
            run.onReadingShop = listing
            return try run.run()
        }
        try report.finish(summary)
        let data = try Data(contentsOf: reportDirectory.appendingPathComponent("report.json"))
        struct Report: Decodable { var rows: [RowOutcome] }
        return Result(summary: summary, rows: try JSONDecoder().decode(Report.self, from: data).rows, folder: reportDirectory)
    }

    /// Takes back the run whose report is in `folder`, as the demo vendor, through the one
    /// sync as the command runs it.
    func undo(_ folder: URL, _ configure: (inout UndoOptions) -> Void = { _ in }) async throws -> Result {
        var options = UndoOptions(folder: folder)
        configure(&options)
        let writer = try client(sandbox, sandbox.demo)
        var choices = RunChoices()
        choices.dryRun = options.dryRun
        choices.links = links
        choices.stopOnSignals = false
        let request = RunRequest(shop: writer, account: AccountState(shop: writer, sandboxData: state), choices: choices)
        let force = options.force
        let part = try await blocking { try request.undo(folder: folder, force: force) }
        guard let result = part.result else {
            var summary = SyncSummary(server: writer.address, mode: .sync, dryRun: false, journal: "")
            summary.alreadyDone = part.alreadyDone?.text(.en)
            return Result(summary: summary, rows: [], folder: options.undoFolder)
        }
        let data = try Data(contentsOf: result.reportFolder.appendingPathComponent("report.json"))
        struct Report: Decodable { var rows: [RowOutcome] }
        return Result(summary: result.summary, rows: try JSONDecoder().decode(Report.self, from: data).rows, folder: result.reportFolder)
    }

    /// The demo vendor's client (for edits a person makes in the shop between runs).
    var vendor: OpenMarketClient { get throws { try client(sandbox, sandbox.demo) } }

    /// Every product of the demo vendor, by name.
    func products() async throws -> [String: [ProductSummary]] {
        let reader = try client(sandbox)
        return try await blocking {
            var byName: [String: [ProductSummary]] = [:]
            var page = 1
            while true {
                let result = try reader.page(page, perPage: 500)
                for product in result.pages { byName[product.name, default: []].append(product) }
                guard result.hasNext, !result.pages.isEmpty else { return byName }
                page += 1
            }
        }
    }

    var writes: Int { sandbox.server.requests.writes }
}

/// A disk that fills up: the first `capacity` bytes are written, then every write
/// fails with ENOSPC, leaving a torn line.
final class FullDisk: AppendLog.Sink, @unchecked Sendable {
    private let path: String
    private var left: Int
    private let lock = NSLock()

    init(path: URL, capacity: Int) {
        self.path = path.path
        left = capacity
    }

    struct NoSpace: Error, CustomStringConvertible { var description: String { "No space left on device" } }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        lock.lock()
        defer { lock.unlock() }
        let count = min(left, bytes.count)
        if count > 0, let handle = FileHandle(forWritingAtPath: path) {
            handle.seekToEndOfFile()
            handle.write(Data(bytes.prefix(count)))
            handle.closeFile()
        }
        left -= count
        if count < bytes.count { throw NoSpace() }
    }

    func sync() throws {}
    func close() {}
}
