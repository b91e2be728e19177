import Foundation
import ImagePrep
import Manifest
import OpenMarketAPI
import ShopState
import Support

/// What a run did to the shop, kept next to its report (`run.jsonl`) so that
/// `openmarket undo` can take it back. Each line is on disk (fsync) before the
/// write it describes is sent, or, for a product the run created, as soon as
/// its id is known:
///
/// - `begin`: the account, the kind of run, what it read.
/// - `updating`: a product's fields before and as the run leaves them.
/// - `deleting`: a product as it was, with its photos saved in the folder,
///   before the delete is sent.
/// - `recreating` (undo): a deleted product is about to be made again.
/// - `created`: a product the run made (an undo's re-created product names the
///   id it brings back).
/// - `end`: the counts.
///
/// Undo decides each step against the live shop, so a line whose request
/// never reached the server undoes to nothing.
public struct RunEntry: Codable, Sendable, Equatable {
    public enum Event: String, Codable, Sendable { case begin, updating, deleting, recreating, created, end }
    public var event: Event
    public var time: Double
    public var header: RunHeader?
    public var row: Int?
    public var id: Int?
    public var key: String?
    public var byName: Bool?
    /// `updating`: the fields before; `deleting`: the product as it was.
    public var before: Product?
    /// `updating`: the fields as the run leaves them; `created`: as made.
    public var after: Product?
    /// `deleting`: the saved photos, relative to the record's folder.
    public var photos: [String]?
    /// Content hashes of the photos (the link's), for a product made again.
    public var photoHashes: [String]?
    /// `recreating`/`created` by an undo: the deleted product it brings back.
    public var restores: Int?
    public var counts: [String: Int]?

    public init(event: Event, id: Int? = nil, key: String? = nil, byName: Bool? = nil, row: Int? = nil) {
        self.event = event
        self.time = Date().timeIntervalSince1970
        self.id = id
        self.key = key
        self.byName = byName
        self.row = row
    }
}

public struct RunHeader: Codable, Sendable, Equatable {
    public var kind: RunKind
    /// The account's tag (the link store's file name): undo refuses another account.
    public var account: String
    public var server: String
    /// The manifest, or for an undo the folder of the run it takes back.
    public var source: String
    public var started: Double

    public init(kind: RunKind, account: String, server: String, source: String) {
        self.kind = kind
        self.account = account
        self.server = server
        self.source = source
        self.started = Date().timeIntervalSince1970
    }
}

/// Writes a run's `run.jsonl`. A line that cannot be written throws: the write it
/// announces must not be sent.
public final class RunRecorder: @unchecked Sendable {
    public static let fileName = "run.jsonl"
    public let folder: URL
    private let log: AppendLog
    private let encoder = JSONEncoder()
    private let client: any Shop
    private let lock = NSLock()
    private var pendingBegin: RunEntry?
    /// Entries of this run already in the file: a run stopped or killed and run again
    /// in the same folder is one run (a resumed undo reads what it already did).
    public let existing: [RunEntry]
    /// Whether this continues a run that did not end.
    public let resumed: Bool

    /// Opens the record in `folder`. A folder whose last run ended starts a new run in the
    /// same file (`begin`); undo takes back the last run of a folder.
    /// Where a shard's record is copied for every machine: the account's shared store, the
    /// run's name, the shard.
    public struct Shared: Sendable {
        public let store: LinkStore
        public let run: String
        public let part: String
    }

    private let shared: Shared?

    public init(folder: URL, header: RunHeader, client: any Shop, shared: Shared? = nil) throws {
        self.folder = folder
        self.client = client
        self.shared = shared
        var lines: [RunEntry] = []
        let decoder = JSONDecoder()
        log = try AppendLog(url: folder.appendingPathComponent(Self.fileName)) { line in
            if let entry = try? decoder.decode(RunEntry.self, from: line) { lines.append(entry) }
        }
        encoder.outputFormatting = .sortedKeys
        let last = Self.lastRun(lines)
        if last.isEmpty || last.contains(where: { $0.event == .end }) {
            existing = []
            resumed = false
            // Written with the run's first step: a run that changes nothing leaves the file as it was.
            var begin = RunEntry(event: .begin)
            begin.header = header
            pendingBegin = begin
        } else {
            existing = last
            resumed = true
        }
    }

    /// The entries of the last run in a file: from its last `begin`.
    static func lastRun(_ lines: [RunEntry]) -> [RunEntry] {
        guard let start = lines.lastIndex(where: { $0.event == .begin }) else { return [] }
        return Array(lines[start...])
    }

    public func append(_ entry: RunEntry) throws {
        let line = try encoder.encode(entry)
        // The lock only puts the `begin` line first; the line's own sync is the log's, shared by
        // the workers that append at the same moment (one fsync covers every line written before it).
        let begun: Bool = try lock.withLock {
            guard let begin = pendingBegin else { return true }
            if entry.event == .end { return false }
            let beginLine = try encoder.encode(begin)
            try log.append(beginLine, sync: false)
            try shared?.store.appendRecord(run: shared!.run, part: shared!.part, line: String(decoding: beginLine, as: UTF8.self))
            pendingBegin = nil
            return true
        }
        guard begun else { return }
        try log.append(line, sync: true)
        // The shared copy after the local one: a line is in the shared record only once it is on this disk.
        try shared?.store.appendRecord(run: shared!.run, part: shared!.part, line: String(decoding: line, as: UTF8.self))
    }

    /// Before an update is sent: the product's fields now and as the update leaves them.
    func updating(id: Int, key: String, byName: Bool, row: Int, before: Product, after: Product) throws {
        var entry = RunEntry(event: .updating, id: id, key: key, byName: byName, row: row)
        entry.before = before
        entry.after = after
        try append(entry)
    }

    func created(id: Int, key: String, byName: Bool, row: Int, after: Product, photoHashes: [String]?,
                 restores: Int? = nil) throws {
        var entry = RunEntry(event: .created, id: id, key: key, byName: byName, row: row)
        entry.after = after
        entry.photoHashes = photoHashes
        entry.restores = restores
        try append(entry)
    }

    /// Before a delete is sent: the product and its photos are saved in the folder
    /// (`deleted/<id>/N.jpg`), so that undo can make it again.
    /// `known`: the product as just read (else it is read here). Returns its first photo, as saved.
    @discardableResult
    func deleting(id: Int, key: String?, byName: Bool, row: Int, photoHashes: [String]?, known: ProductDetail? = nil) throws -> Data? {
        let detail = try known ?? client.product(id: id)
        let photosFolder = folder.appendingPathComponent("deleted/\(id)", isDirectory: true)
        try FileManager.default.createDirectory(at: photosFolder, withIntermediateDirectories: true)
        var saved: [String] = []
        var first: Data?
        for (index, image) in (detail.images ?? []).enumerated() {
            let bytes = try client.download(image.url, maxBytes: ImagePrepSettings.maxDownloadBytes)
            let ext = bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) ? "png" : "jpg"
            let name = "deleted/\(id)/\(index + 1).\(ext)"
            try bytes.write(to: folder.appendingPathComponent(name), options: .atomic)
            // With the shared record too: an undo on another machine makes the product again.
            if let shared { try shared.store.savePhoto(run: shared.run, path: name, data: bytes) }
            saved.append(name)
            if first == nil { first = bytes }
        }
        var entry = RunEntry(event: .deleting, id: id, key: key, byName: byName, row: row)
        entry.before = Product(detail.summary)
        entry.photos = saved
        entry.photoHashes = photoHashes
        try append(entry)
        return first
    }

    func end(counts: [String: Int]) {
        var entry = RunEntry(event: .end)
        entry.counts = counts
        try? append(entry)
    }

    /// Reads the record of the last run in a folder; nil when the folder has none.
    public static func read(_ folder: URL) throws -> [RunEntry]? {
        let url = folder.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data = try Data(contentsOf: url)
        let decoder = JSONDecoder()
        return lastRun(data.split(separator: 0x0A).compactMap { try? decoder.decode(RunEntry.self, from: Data($0)) })
    }
}

extension Product {
    /// The fields with `changes` applied (what an update leaves).
    func applying(_ changes: ProductPatch) -> Product {
        var result = self
        if let name = changes.name { result.name = name }
        if let description = changes.description { result.description = description }
        if let price = changes.price { result.price = price }
        if let currency = changes.currency { result.currency = currency }
        if let discounted = changes.discountedPrice { result.discountedPrice = discounted }
        if let stock = changes.stock { result.stock = stock }
        return result
    }

    /// The fields that take `self` to `target`, as a PATCH body.
    func patch(to target: Product) -> ProductPatch { ProductPatch(changes(to: target), to: target) }

    var newProduct: Product {
        Product(name: name, description: description, price: price, currency: currency, discountedPrice: discountedPrice, stock: stock)
    }
}

extension ProductPatch {
    /// A PATCH body of the fields these lines change, with their values as `target` has them.
    init(_ lines: [FieldChange], to target: Product) {
        self.init()
        for line in lines {
            switch line.field {
            case .name: name = target.name
            case .description: description = target.description
            case .price: price = target.price
            case .currency: currency = target.currency
            case .discountedPrice: discountedPrice = target.discountedPrice
            case .stock: stock = target.stock
            }
        }
    }
}
