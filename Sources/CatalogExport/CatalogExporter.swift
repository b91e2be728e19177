import Foundation
import Manifest
import OpenMarketAPI
import Support

/// What an export did.
public struct ExportSummary: Sendable, Codable {
    public struct Failure: Sendable, Codable, Equatable {
        public var id: Int
        public var error: String
    }

    public var server: String
    public var manifest: String
    /// Products the scan listed (after the filter).
    public var listed = 0
    /// Products in the manifest (earlier runs of a resumed export included).
    public var exported = 0
    /// Listed, then gone (404) before their details were read: deleted during the export.
    public var deleted = 0
    public var failed: [Failure] = []
    public var imagesDownloaded = 0
    /// Images kept from an interrupted run, their checksums verified.
    public var imagesReused = 0
    public var imageBytes = 0
    public var passes = 0
    /// The most reads the export had in flight at once (adaptive: what the server's pace allowed).
    public var inFlight = 0
    /// Products first seen after the first pass: created (or slipped between pages) during the export.
    public var appeared = 0
    /// The server's own count at the last pass, and how many distinct products the scan saw.
    public var totalCount = 0
    /// Whether `totalCount` is the server's own count (a 2021 server gives none).
    public var countKnown = true
    public var seen = 0
    public var warnings: [String] = []
    public var seconds = 0.0
    /// Why the export stopped before the end, if it did.
    public var stopped: String?

    public var productsPerSecond: Double { seconds > 0 ? Double(exported) / seconds : 0 }
}

/// `openmarket export`: the catalog (or a filtered part of it) as a manifest
/// that `import` reads back unchanged, with its photos and their checksums.
///
/// Scan the pages (`CatalogScan`), then read each product's detail and images
/// on `jobs` threads, and write the manifest in ascending id order as a stream.
/// Everything done is recorded in the folder's state file as it happens, so an
/// interrupted export continues with `resume`; the manifest appears under its
/// name only when complete.
public final class CatalogExporter: @unchecked Sendable {
    public let options: ExportOptions
    public let client: any Shop
    /// Progress: the phase ("listing" or "products"), done and total so far.
    public var onProgress: (@Sendable (_ phase: String, _ done: Int, _ total: Int) -> Void)?
    private let stopping = StopSignal()

    public init(options: ExportOptions, client: any Shop) {
        self.options = options
        self.client = client
    }

    /// Graceful stop: products in flight finish; the state file keeps the rest for `--resume`.
    public func stop(_ reason: String) { stopping.stop(reason) }

    private var stopped: String? { stopping.reason }

    var manifestURL: URL { options.directory.appendingPathComponent(options.manifestName) }
    var checksumsURL: URL { options.directory.appendingPathComponent("checksums.sha256") }

    /// The options that must match for `--resume` to continue an earlier run.
    var fingerprint: String {
        var filter = ""
        switch options.filter.vendor {
        case nil: break
        case .me: filter += "vendor=me;"
        case .id(let id): filter += "vendor=\(id);"
        }
        if let search = options.filter.search { filter += "search=\(search);" }
        if let since = options.filter.since { filter += "since=\(Int(since.timeIntervalSince1970));" }
        return "server=\(client.address);format=\(options.format.rawValue);images=\(options.images.rawValue);\(filter)"
    }

    /// Runs the export. Blocking: call from a thread of its own.
    public func run() throws -> ExportSummary {
        let started = Date()
        let (state, recovered) = try openState()
        var summary = ExportSummary(server: client.address, manifest: manifestURL.path)
        // 1. The list of products.
        guard let listed = try list(state: state, recovered: recovered, into: &summary) else {
            summary.stopped = stopped
            summary.seconds = Date().timeIntervalSince(started)
            return summary
        }
        // 2. Products, in id order; an interrupted run's are written first, from the state file.
        // Not only the credentials' own products: each row says whose it is, so that an
        // import into one account takes its own rows only.
        let writer = try ManifestWriter(url: manifestURL, format: options.format, vendorColumn: options.filter.vendor != .me)
        let checksums = try ChecksumWriter(url: checksumsURL)
        try writeProducts(listed.ids, state: state, recovered: recovered, writer: writer, checksums: checksums, into: &summary)
        summary.seconds = Date().timeIntervalSince(started)
        // 3. Published under the manifest's name only when complete.
        if let reason = stopped {
            // Not complete: no file under the manifest's name; the state file keeps the rest.
            summary.stopped = reason
            writer.abandon()
            checksums.abandon()
            state.record(.init(t: .failed, error: "stopped"), sync: true)
            return summary
        }
        try writer.finish()
        let cut = writer.cutInWorkbook
        if !cut.isEmpty {
            summary.warnings.append("\(cut.count) product(s) have a text longer than the 32,767 characters an Excel cell holds (\(cut.prefix(5).joined(separator: ", "))\(cut.count > 5 ? ", …" : "")): cut in the workbook; export --format csv keeps it whole")
        }
        try checksums.finish()
        if summary.failed.isEmpty {
            state.remove()
        } else {
            // Kept, so that --resume tries the failed products again.
            state.record(.init(t: .failed, error: "\(summary.failed.count) products failed"), sync: true)
        }
        return summary
    }

    /// The export's state file: an interrupted export's recovered (with --resume), or a new
    /// one; refuses a folder that holds an export unless told what to do with it.
    private func openState() throws -> (ExportState, ExportState.Recovered?) {
        let directory = options.directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let stateURL = directory.appendingPathComponent(ExportState.fileName)
        let hasState = FileManager.default.fileExists(atPath: stateURL.path)
        var recovered: ExportState.Recovered?
        if options.resume && hasState {
            let earlier = try ExportState.recover(directory: directory)
            if let print = earlier.fingerprint, print != fingerprint {
                throw ExportError("f_export_other_options", directory.path, Self.describe(print))
            }
            recovered = earlier
        } else if hasState && !options.overwrite {
            throw ExportError("f_export_interrupted", directory.path)
        } else if !hasState && FileManager.default.fileExists(atPath: manifestURL.path) {
            guard options.overwrite else {
                throw options.resume ? ExportError("f_export_complete", directory.path)
                                     : ExportError("f_export_holds", directory.path, options.manifestName)
            }
        }
        if recovered == nil && options.overwrite {
            // Start over: what an earlier export of ours left goes.
            for name in [options.manifestName, "checksums.sha256", "images"] {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            }
        }
        let state = try ExportState(directory: directory, fresh: recovered == nil)
        if recovered == nil { state.record(.init(t: .begin, fingerprint: fingerprint), sync: true) }
        return (state, recovered)
    }

    /// The catalog's product ids (with what the scan saw), or nil when the export was stopped.
    private func list(state: ExportState, recovered: ExportState.Recovered?, into summary: inout ExportSummary) throws
        -> CatalogScan.Result? {
        let scan = CatalogScan(client: client, filter: options.filter, perPage: options.perPage, maxPasses: options.maxPasses)
        scan.isStopped = { [self] in stopped != nil }
        let progress = onProgress
        scan.onPage = { page, lastPage in progress?("listing", page, max(page, lastPage)) }
        let listed: CatalogScan.Result
        do {
            listed = try scan.run(state: state, recovered: recovered)
        } catch is CancellationError {
            return nil
        }
        summary.listed = listed.ids.count
        summary.passes = listed.passes
        summary.appeared = listed.appeared
        summary.totalCount = listed.totalCount
        summary.countKnown = listed.countKnown
        summary.seen = listed.seen
        summary.warnings = listed.warnings
        return listed
    }

    /// Every listed product's detail and photos on `jobs` workers, written in id order.
    private func writeProducts(_ ids: [Int], state: ExportState, recovered: ExportState.Recovered?, writer: ManifestWriter,
                               checksums: ChecksumWriter, into summary: inout ExportSummary) throws {
        if recovered != nil {
            try ExportState.forEachProduct(directory: options.directory) { entry, images in
                try writer.write(entry)
                for image in images { try checksums.add(image) }
                summary.exported += 1
            }
        }
        let skip = (recovered?.done ?? []).union(recovered?.gone ?? [])
        summary.deleted = recovered?.gone.count ?? 0
        let pending = ids.filter { !skip.contains($0) }
        let reusable = recovered?.images ?? [:]
        let total = summary.exported + pending.count
        let progress = onProgress
        progress?("products", summary.exported, total)
        var counted = summary
        // Reads at the server's pace, found as an import's writes are (`AdaptiveLimit`): the
        // workers are the ceiling's, the limit says how many read at once.
        let pace = options.adaptiveJobs
            ? AdaptiveLimit(initial: options.jobs, range: 1...max(options.jobs, options.maxJobs))
            : AdaptiveLimit(initial: options.jobs, range: options.jobs...options.jobs, fixed: true)
        let workers = pace.range.upperBound
        try OrderedWork.run(
            count: pending.count, jobs: workers, window: workers * 8,
            isStopped: { [self] in stopped != nil },
            work: { [self] index in paced(pace) { exportOne(pending[index], reusable: reusable, state: state) } },
            deliver: { index, outcome in
                let id = pending[index]
                switch outcome {
                case .written(let entry, let images, let downloaded, let reused):
                    try writer.write(entry)
                    for image in images { try checksums.add(image) }
                    state.record(.init(t: .product, id: id, entry: entry, images: images))
                    counted.exported += 1
                    counted.imagesDownloaded += downloaded
                    counted.imagesReused += reused
                    counted.imageBytes += images.reduce(0) { $0 + $1.bytes }
                case .gone:
                    state.record(.init(t: .gone, id: id))
                    counted.deleted += 1
                case .failed(let message):
                    state.record(.init(t: .failed, id: id, error: message))
                    counted.failed.append(.init(id: id, error: message))
                }
                progress?("products", counted.exported + counted.deleted + counted.failed.count, total)
                // A state that cannot be written (a full disk) could not resume the export: stop now.
                if let failure = state.failed { throw ExportError("f_export_disk", "\(failure)") }
            })
        counted.inFlight = pace.state.highest
        summary = counted
    }

    /// One product's reads as one of those in flight: the time a request took (detail and
    /// photos alike) tells the limit how many the server takes.
    private func paced(_ pace: AdaptiveLimit, _ read: () -> Outcome) -> Outcome {
        let ticket = pace.acquire()
        let overloads = client.overloads
        let connections = client.connectionsOpened
        let started = Date()
        let outcome = read()
        let seconds = Date().timeIntervalSince(started)
        let requests = switch outcome {
        case .written(_, _, let downloaded, _): 1 + downloaded
        case .gone, .failed: 1
        }
        let signal: AdaptiveLimit.Signal = client.overloads > overloads ? .overloaded
            : .answered(seconds: seconds / Double(requests), newConnection: client.connectionsOpened > connections)
        pace.release(signal, ticket: ticket)
        return outcome
    }

    enum Outcome: Sendable {
        case written(ManifestEntry, images: [ExportState.ImageRecord], downloaded: Int, reused: Int)
        case gone
        case failed(String)
    }

    /// One product: its detail, then its images (or their URLs).
    private func exportOne(_ id: Int, reusable: [String: ExportState.ImageRecord], state: ExportState) -> Outcome {
        let detail: ProductDetail
        do {
            detail = try client.product(id: id)
        } catch where error.status == 404 {
            return .gone
        } catch {
            return .failed("\(error)")
        }
        guard detail.summary.id == id else {
            return .failed("the server answered the request for product \(id) with product \(detail.summary.id)")
        }
        let images = detail.images ?? []
        if options.images == .none {
            for image in images where !Self.isWeb(image.url) {
                return .failed("image URL '\(image.url)' is not http or https: refused")
            }
            var entry = ManifestEntry(detail, images: images.map(\.url))
            entry.key = options.keys[detail.id]
            return .written(entry, images: [], downloaded: 0, reused: 0)
        }
        var paths: [String] = []
        var records: [ExportState.ImageRecord] = []
        var downloaded = 0
        var reused = 0
        let folder = options.directory.appendingPathComponent("images").appendingPathComponent(String(id))
        for (index, image) in images.enumerated() {
            let address = options.images == .thumbnails ? image.thumbnailURL : image.url
            let name = SafeName.forImage(url: address, index: index)
            let relative = "images/\(id)/\(name)"
            let file = folder.appendingPathComponent(name)
            if let earlier = reusable[relative], Self.sha256(of: file) == earlier.sha256 {
                paths.append(relative)
                records.append(earlier)
                reused += 1
                continue
            }
            guard Self.isWeb(address) else {
                return .failed("image \(index + 1): URL '\(address)' is not http or https: refused")
            }
            let data: Data
            do {
                data = try client.download(address, maxBytes: options.maxImageBytes)
            } catch {
                return .failed("image \(index + 1) (\(address)): \(error)")
            }
            guard ImageFormat.sniff(data) != nil else {
                return .failed("image \(index + 1) (\(address)): the server sent \(data.count) bytes that are not a JPEG or PNG image")
            }
            let record = ExportState.ImageRecord(path: relative, sha256: SHA256.hash(data: data).hex, bytes: data.count)
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let partial = folder.appendingPathComponent(".\(name).part")
                try data.write(to: partial)
                _ = try? FileManager.default.removeItem(at: file)
                try FileManager.default.moveItem(at: partial, to: file)
            } catch {
                return .failed("image \(index + 1): cannot write \(relative): \(error.localizedDescription)")
            }
            state.record(.init(t: .image, image: record))
            paths.append(relative)
            records.append(record)
            downloaded += 1
        }
        var entry = ManifestEntry(detail, images: paths)
        entry.key = options.keys[detail.id]
        return .written(entry, images: records, downloaded: downloaded, reused: reused)
    }

    static func isWeb(_ address: String) -> Bool {
        guard let scheme = URL(string: address)?.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    static func sha256(of file: URL) -> String? {
        guard let data = try? Data(contentsOf: file) else { return nil }
        return SHA256.hash(data: data).hex
    }

    private static func describe(_ fingerprint: String) -> String {
        fingerprint.split(separator: ";").filter { !$0.hasPrefix("server=") }.joined(separator: ", ")
    }
}

/// `checksums.sha256` in the format `sha256sum -c` reads, written to a
/// temporary name and moved into place when complete.
final class ChecksumWriter {
    let url: URL
    private let temporary: URL
    private let handle: FileHandle

    init(url: URL) throws {
        self.url = url
        temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else { throw ExportError("f_cannot_write", temporary.path) }
        handle = try FileHandle(forWritingTo: temporary)
    }

    func add(_ image: ExportState.ImageRecord) throws {
        try handle.write(contentsOf: Data("\(image.sha256)  \(image.path)\n".utf8))
    }

    func finish() throws {
        try handle.close()
        _ = try? FileManager.default.removeItem(at: url)
        try FileManager.default.moveItem(at: temporary, to: url)
    }

    func abandon() {
        try? handle.close()
        try? FileManager.default.removeItem(at: temporary)
    }
}
