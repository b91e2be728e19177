import Foundation
import Manifest
import Support

/// An export's memory across interruptions: an append-only file of JSON lines
/// in the output folder. Pages listed, images downloaded (with checksums), and
/// products written are recorded as they happen, so that `--resume` skips them.
/// Removed when the export completes.
final class ExportState: @unchecked Sendable {
    static let fileName = ".openmarket-export.jsonl"

    struct ImageRecord: Codable, Sendable, Equatable {
        var path: String
        var sha256: String
        var bytes: Int
    }

    struct Line: Codable, Sendable {
        enum Kind: String, Codable, Sendable { case begin, page, scanned, image, product, gone, failed }
        var t: Kind
        var fingerprint: String?
        var pass: Int?
        var page: Int?
        var perPage: Int?
        /// Products of the page that pass the filter.
        var ids: [Int]?
        /// Products of the page that do not.
        var other: [Int]?
        var totalCount: Int?
        var appeared: Int?
        var image: ImageRecord?
        var id: Int?
        var entry: ManifestEntry?
        var images: [ImageRecord]?
        var error: String?
    }

    /// What an earlier, interrupted run left.
    struct Recovered {
        var fingerprint: String?
        var ids = Set<Int>()
        var others = Set<Int>()
        /// The last page recorded: (pass, page, page size).
        var lastPage: (pass: Int, page: Int, perPage: Int)?
        var scanned: (totalCount: Int, appeared: Int)?
        var done = Set<Int>()
        var gone = Set<Int>()
        /// Images downloaded for products not yet written.
        var images: [String: ImageRecord] = [:]
    }

    var url: URL { log.url }
    private let log: AppendLog
    private let encoder: JSONEncoder

    /// Opens (creating) the state file; with `fresh`, an earlier one is discarded.
    /// A line cut by a crash is removed (`AppendLog`).
    init(directory: URL, fresh: Bool) throws {
        let url = directory.appendingPathComponent(Self.fileName)
        if fresh { try? FileManager.default.removeItem(at: url) }
        log = try AppendLog(url: url)
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    /// The first write that failed (a full disk): the export stops, since it
    /// could not be resumed from here.
    var failed: AppendLog.Failure? { log.failed }

    /// Reads what an earlier run recorded (a line cut by a crash is ignored).
    static func recover(directory: URL) throws -> Recovered {
        var recovered = Recovered()
        let url = directory.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return recovered }
        let decoder = JSONDecoder()
        try forEachLine(url) { line in
            guard let line = try? decoder.decode(Line.self, from: Data(line.utf8)) else { return }
            switch line.t {
            case .begin: recovered.fingerprint = line.fingerprint
            case .page:
                recovered.ids.formUnion(line.ids ?? [])
                recovered.others.formUnion(line.other ?? [])
                if let pass = line.pass, let page = line.page { recovered.lastPage = (pass, page, line.perPage ?? 0) }
            case .scanned: recovered.scanned = (line.totalCount ?? 0, line.appeared ?? 0)
            case .image: if let image = line.image { recovered.images[image.path] = image }
            case .product:
                if let id = line.id { recovered.done.insert(id) }
                for image in line.images ?? [] { recovered.images[image.path] = nil }
            case .gone: if let id = line.id { recovered.gone.insert(id) }
            case .failed: break
            }
        }
        return recovered
    }

    /// The products written by earlier runs, in the order they were written.
    static func forEachProduct(directory: URL, _ body: (ManifestEntry, [ImageRecord]) throws -> Void) throws {
        let decoder = JSONDecoder()
        try forEachLine(directory.appendingPathComponent(fileName)) { text in
            guard let line = try? decoder.decode(Line.self, from: Data(text.utf8)), line.t == .product,
                  let entry = line.entry else { return }
            try body(entry, line.images ?? [])
        }
    }

    private static func forEachLine(_ url: URL, _ body: (String) throws -> Void) throws {
        let reader = try LineReader(url: url, file: url.lastPathComponent)
        while let (_, text) = try reader.next() {
            if !text.isEmpty { try body(text) }
        }
    }

    /// Records a line; with `sync`, on disk before it returns, otherwise within a second.
    /// A failure is kept in `failed` (and every later line refused).
    func record(_ line: Line, sync: Bool = false) {
        guard let data = try? encoder.encode(line) else { return }
        if sync { try? log.append(data, sync: true) } else { try? log.appendSoon(data) }
    }

    func remove() { log.remove() }
}
