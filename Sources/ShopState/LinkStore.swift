import Foundation
import Support
import Synchronization

/// The identity of one vendor account's products: merchant key → product id, with what was
/// last pushed; the account's facts and its runs. Kept in one SQLite file per account (server +
/// vendor) under `$XDG_STATE_HOME/openmarket/links/` (for the built-in sandbox, in its data
/// folder), or — addressed `postgres://…?account=TAG` — in a shared PostgreSQL database
/// (`LinkBackend`). Every change is one transaction, durable when it returns, so that a crash
/// never loses a product's link.
public final class LinkStore: @unchecked Sendable {
    public let address: StoreAddress
    private let backend: any LinkBackend

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private init(address: StoreAddress) throws(Failure) {
        self.address = address
        do {
            backend = switch address {
            case .file(let url): try SQLiteLinks(url)
            case .database(let url, let account): try PostgresLinks(database: url, account: account)
            }
        } catch {
            throw Failure(description: "cannot open the link store \(address): \(Self.reason(error))")
        }
    }

    private struct Opened: @unchecked Sendable {
        weak var store: LinkStore?
        /// The file's device and inode when opened: a file removed and made again (a sandbox
        /// cleared under a console) is a new store.
        var identity: FileIdentity?
    }

    private static let opened = Mutex<[StoreAddress: Opened]>([:])

    /// The account's store: the one this process has open at `address`, else opened now (one
    /// SQLite queue per file while anyone holds it, as GRDB asks; one connection per database).
    public static func open(_ address: StoreAddress) throws(Failure) -> LinkStore {
        let identity = address.file.flatMap { FileIdentity(path: $0.path) }
        if let known = opened.withLock({ table -> LinkStore? in
            table = table.filter { $0.value.store != nil }
            guard let entry = table[address], entry.identity == identity else { return nil }
            return entry.store
        }) { return known }
        let made = try LinkStore(address: address)
        let madeIdentity = address.file.flatMap { FileIdentity(path: $0.path) }
        return opened.withLock { table in
            if let first = table[address], let store = first.store, first.identity == madeIdentity { return store }
            table[address] = Opened(store: made, identity: madeIdentity)
            return made
        }
    }

    /// Whether the account's state is shared between machines (a PostgreSQL database).
    public var isShared: Bool { address.isShared }

    /// The name a run's record has in the shared state when the run is not a shard's: its
    /// report folder's path, as `runs` lists it (the same everywhere).
    public static func recordName(folder: URL) -> String { "folder \(folder.standardizedFileURL.path)" }

    public func link(_ key: String) throws(Failure) -> ProductLink? {
        try links(key: key).first
    }

    /// Every link, one at a time (a run keeps them as it chooses: `LinkTable`), each decoded on
    /// its own so that a damaged one is named by its key.
    public func each(_ body: (ProductLink) -> Void) throws(Failure) {
        var damaged: Failure?
        try access("read") {
            try backend.eachRow { row in
                guard damaged == nil else { return }
                do throws(Failure) { body(try Self.link(row, backend)) } catch { damaged = error }
            }
        }
        if let damaged { throw damaged }
    }

    /// Every link, by key.
    public func all() throws(Failure) -> [String: ProductLink] {
        var links: [String: ProductLink] = [:]
        for link in try self.links() { links[link.key] = link }
        return links
    }

    /// Merchant keys (not names) by product id, for `export`'s key column. Only the two columns
    /// are read: decoding every link whole held ~750 bytes a product at the peak (an export's
    /// memory grew from 57 MB at 5,000 products to 83 MB at 40,000).
    public func keysByProductID() throws(Failure) -> [Int: String] {
        var keys: [Int: String] = [:]
        try access("read") { try backend.eachLinkedKey { key, id in keys[id] = key } }
        return keys
    }

    /// The links asked for, each decoded on its own so that a damaged one is named by its key.
    private func links(key: String? = nil) throws(Failure) -> [ProductLink] {
        let rows = try access("read") { try backend.rows(key: key) }
        return try rows.map { (row: LinkRow) throws(Failure) -> ProductLink in try Self.link(row, backend) }
    }

    private static func link(_ row: LinkRow, _ backend: any LinkBackend) throws(Failure) -> ProductLink {
        do { return try ProductLink(row: row) } catch {
            let advice: String = backend.removalAdvice(key: row.key)
            let said: String = "the link store \(backend.place) has a damaged entry for key '\(row.key)': \(error); "
            throw Failure(description: said + "nothing was sent. \(advice): the next run then looks the product up in the shop by its name")
        }
    }

    /// Writes the link (replacing the key's earlier one, and any other key's link
    /// to the same product: one product has one key).
    /// `durable: false`: on disk with the store's next durable change (a database shared
    /// between machines makes every commit durable).
    public func save(_ link: ProductLink, durable: Bool = true) throws(Failure) {
        try access("write") { try backend.save(link.row, durable: durable) }
    }

    public func remove(_ key: String) throws(Failure) {
        try access("write") { try backend.remove(key: key) }
    }

    /// A fact about the account (`vendor_id`).
    public func fact(_ name: String) throws(Failure) -> String? {
        try access("read") { try backend.fact(name) }
    }

    public func setFact(_ name: String, _ value: String) throws(Failure) {
        try access("write") { try backend.setFact(name, value) }
    }

    /// Records a run as begun. A resumed run (stopped, run again in the same folder)
    /// keeps its first start; a new run in a folder replaces the one before.
    public func beginRun(_ run: RecordedRun, resumed: Bool) throws(Failure) {
        let row = RunRow(folder: run.folder, kind: run.kind.rawValue, started: run.started.timeIntervalSince1970, source: run.source,
                         runName: run.runName)
        try access("write") { try backend.beginRun(row, resumed: resumed) }
    }

    public func finishRun(folder: String, counts: [String: Int]) throws(Failure) {
        let text = (try? JSONEncoder().encode(counts)).map { String(decoding: $0, as: UTF8.self) }
        try access("write") { try backend.finishRun(folder: folder, counts: text, finished: Date().timeIntervalSince1970) }
    }

    /// The account's runs, newest first.
    public func runs(limit: Int = 1000) throws(Failure) -> [RecordedRun] {
        try access("read") { try backend.runs(limit: limit) }.map { row in
            RecordedRun(folder: row.folder, kind: RunKind(stored: row.kind), started: Date(timeIntervalSince1970: row.started),
                        source: row.source, counts: row.counts.flatMap { try? JSONDecoder().decode([String: Int].self, from: Data($0.utf8)) },
                        finished: row.finished.map(Date.init(timeIntervalSince1970:)), runName: row.runName)
        }
    }

    /// Appends a line of a shared run's record (a sharded import's part of `run.jsonl`).
    public func appendRecord(run: String, part: String, line: String) throws(Failure) {
        try access("write") { try backend.appendRecord(run: run, part: part, line: line) }
    }

    /// A shared run's record, by part (shard), each part's lines in the order written.
    public func record(run: String) throws(Failure) -> [String: [String]] {
        var parts: [String: [String]] = [:]
        for (part, line) in try access("read", { try backend.record(run: run) }) { parts[part, default: []].append(line) }
        return parts
    }

    /// Keeps a photo a run saved before a delete with the run's shared record.
    public func savePhoto(run: String, path: String, data: Data) throws(Failure) {
        try access("write") { try backend.savePhoto(run: run, path: path, data: data) }
    }

    /// The photos kept with a run's shared record, by their path in its folder.
    public func savedPhotos(run: String) throws(Failure) -> [(path: String, data: Data)] {
        try access("read") { try backend.savedPhotos(run: run, path: nil) }
    }

    /// The photo kept with a run's shared record at `path` (`deleted/ID/N.jpg`); nil: none.
    public func savedPhoto(run: String, path: String) throws(Failure) -> Data? {
        try access("read") { try backend.savedPhotos(run: run, path: path) }.first?.data
    }

    private func access<T>(_ verb: String, _ body: () throws -> T) throws(Failure) -> T {
        do { return try body() } catch {
            throw Failure(description: "cannot \(verb) the link store \(backend.place): \(Self.reason(error))")
        }
    }

    static func reason(_ error: any Error) -> String { SQLiteLinks.reason(error) }
}

/// Where openmarket keeps what it remembers of accounts.
public enum StateFolder {
    /// `$XDG_STATE_HOME/openmarket`, by default `~/.local/state/openmarket`.
    public static var url: URL {
        UserFolders.state
    }

}
