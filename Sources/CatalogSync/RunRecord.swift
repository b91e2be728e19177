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

/// Writes a run's record where the account keeps records (`RunRecordStore`: the report folder's
/// `run.jsonl`, or the shared state). A line that cannot be written throws: the write it
/// announces must not be sent.
public final class RunRecorder: @unchecked Sendable {
    public static let fileName = "run.jsonl"
    public let store: any RunRecordStore
    private let encoder = JSONEncoder()
    private let client: any Shop
    private let lock = NSLock()
    private var pendingBegin: RunEntry?
    /// Entries of this run already recorded: a run stopped or killed and run again in the same
    /// folder is one run (a resumed undo reads what it already did).
    public let existing: [RunEntry]
    /// Whether this continues a run that did not end.
    public let resumed: Bool

    /// Opens the record in `store`. A place whose last run ended starts a new run there
    /// (`begin`); undo takes back the last run of a place.
    public init(store: any RunRecordStore, header: RunHeader, client: any Shop) throws {
        self.store = store
        self.client = client
        encoder.outputFormatting = .sortedKeys
        let last = try Self.read(store) ?? []
        if last.isEmpty || last.contains(where: { $0.event == .end }) {
            existing = []
            resumed = false
            // Written with the run's first step: a run that changes nothing leaves the record as it was.
            var begin = RunEntry(event: .begin)
            begin.header = header
            pendingBegin = begin
        } else {
            existing = last
            resumed = true
        }
    }

    /// A record in `folder` (`run.jsonl`).
    public convenience init(folder: URL, header: RunHeader, client: any Shop) throws {
        try self.init(store: FolderRecord(folder), header: header, client: client)
    }

    /// The entries of the last run in a file: from its last `begin`.
    static func lastRun(_ lines: [RunEntry]) -> [RunEntry] {
        guard let start = lines.lastIndex(where: { $0.event == .begin }) else { return [] }
        return Array(lines[start...])
    }

    public func append(_ entry: RunEntry) throws {
        try append(entry, durable: true)
    }

    /// `durable: false` for a line that follows its write (see `RunRecordStore.append`).
    func append(_ entry: RunEntry, durable: Bool) throws {
        let line = try encoder.encode(entry)
        // The lock only puts the `begin` line first; each line's own sync is the store's (a file's
        // fsync is shared by the workers that append at the same moment).
        let begun: Bool = try lock.withLock {
            guard let begin = pendingBegin else { return true }
            if entry.event == .end { return false }
            try store.append(try encoder.encode(begin), durable: true)
            pendingBegin = nil
            return true
        }
        guard begun else { return }
        try store.append(line, durable: durable)
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
        try append(entry, durable: false)
    }

    /// Before a delete is sent: the product and its photos are saved with the record
    /// (`deleted/<id>/N.jpg`), so that undo can make it again.
    /// `known`: the product as just read (else it is read here). Returns its first photo, as saved.
    @discardableResult
    func deleting(id: Int, key: String?, byName: Bool, row: Int, photoHashes: [String]?, known: ProductDetail? = nil) throws -> Data? {
        let detail = try known ?? client.product(id: id)
        var saved: [String] = []
        var first: Data?
        for (index, image) in (detail.images ?? []).enumerated() {
            let bytes = try client.download(image.url, maxBytes: ImagePrepSettings.maxDownloadBytes)
            let ext = bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) ? "png" : "jpg"
            let name = "deleted/\(id)/\(index + 1).\(ext)"
            try store.keepPhoto(bytes, as: name)
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

    /// The last run of a record; nil when it holds none.
    public static func read(_ store: any RunRecordStore) throws -> [RunEntry]? {
        let lines = try store.lines()
        guard !lines.isEmpty else { return nil }
        let decoder = JSONDecoder()
        return lastRun(lines.compactMap { try? decoder.decode(RunEntry.self, from: $0) })
    }

    /// The last run recorded in a folder's `run.jsonl`; nil when the folder has none.
    public static func read(_ folder: URL) throws -> [RunEntry]? { try read(FolderRecord(folder)) }
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
