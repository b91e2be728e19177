import Foundation
import Support

/// The identity of one vendor account's products: merchant key → product id, with what was
/// last pushed; the account's facts and its runs. Kept in one SQLite file per account (server +
/// vendor) under `$XDG_STATE_HOME/openmarket/links/` (for the built-in sandbox, in its data
/// folder), or — addressed `postgres://…?account=TAG` — in a shared PostgreSQL database
/// (`LinkBackend`). Every change is one transaction, durable when it returns, so that a crash
/// never loses a product's link.
public final class LinkStore: @unchecked Sendable {
    public let url: URL
    private let backend: any LinkBackend

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public init(url: URL) throws(Failure) {
        self.url = url
        do {
            backend = PostgresLinks.handles(url) ? try PostgresLinks(url) : try SQLiteLinks(url)
        } catch {
            let place = PostgresLinks.handles(url) ? PostgresConnection.shown(url.absoluteString) : url.path
            throw Failure(description: "cannot open the link store \(place): \(Self.reason(error))")
        }
    }

    /// Whether the account's state is shared between machines (a PostgreSQL database).
    public var isShared: Bool { PostgresLinks.handles(url) }

    /// Whether the store at `url` is shared between machines (a PostgreSQL database's address).
    public static func isShared(_ url: URL) -> Bool { PostgresLinks.handles(url) }

    /// The name a run's record has in the shared state when the run is not a shard's: its
    /// report folder's path, as `runs` lists it (the same everywhere).
    public static func recordName(folder: URL) -> String { "folder \(folder.standardizedFileURL.path)" }

    /// The store of an account: `folder/links/<hash of server and identifier>.sqlite`.
    /// The file name does not show the identifier.
    public static func location(in folder: URL, server: String, identifier: String) -> URL {
        folder.appendingPathComponent("links", isDirectory: true)
            .appendingPathComponent("\(FNV.tag(server + "|" + identifier)).sqlite")
    }

    /// The store of an account in a shared PostgreSQL database (`--state postgres://…`): the
    /// database's address with the account's tag, the one a SQLite store's file name has.
    public static func location(inDatabase database: URL, server: String, identifier: String) -> URL {
        location(of: FNV.tag(server + "|" + identifier), besides: database)
    }

    /// The store of the account tagged `tag` in the same place as the store at `url`: the same
    /// database, or the same folder.
    public static func location(of tag: String, besides url: URL) -> URL {
        guard PostgresLinks.handles(url) else { return url.deletingLastPathComponent().appendingPathComponent("\(tag).sqlite") }
        var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) ?? URLComponents()
        parts.queryItems = (parts.queryItems ?? []).filter { $0.name != "account" } + [URLQueryItem(name: "account", value: tag)]
        return parts.url ?? url
    }

    /// Whether there is a store at `url` to read (a SQLite file made by a run; a database is
    /// always there: an account that never ran has no rows in it).
    public static func exists(_ url: URL) -> Bool {
        PostgresLinks.handles(url) || FileManager.default.fileExists(atPath: url.path)
    }

    /// A store's address as reports and messages may show it: a file's path, or a database's
    /// address without its password, with the account.
    public static func shown(_ url: URL) -> String {
        PostgresLinks.handles(url) ? "\(PostgresConnection.shown(url.absoluteString)) (account \(accountTag(url)))" : url.path
    }

    /// The account a store belongs to: the tag in its file name or its address, the same
    /// for one account in either place (so that a run recorded with one reads with the other).
    public static func accountTag(_ url: URL) -> String {
        if PostgresLinks.handles(url) {
            return URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "account" }?.value ?? ""
        }
        return url.deletingPathExtension().lastPathComponent
    }

    public func link(_ key: String) throws(Failure) -> ProductLink? {
        try links(key: key).first
    }

    /// Every link, by key.
    public func all() throws(Failure) -> [String: ProductLink] {
        var links: [String: ProductLink] = [:]
        for link in try self.links() { links[link.key] = link }
        return links
    }

    /// Merchant keys (not names) by product id, for `export`'s key column.
    public func keysByProductID() throws(Failure) -> [Int: String] {
        var keys: [Int: String] = [:]
        for link in try links(linkedMerchantKeysOnly: true) {
            if let id = link.productID { keys[id] = link.key }
        }
        return keys
    }

    /// The links asked for, each decoded on its own so that a damaged one is named by its key.
    private func links(key: String? = nil, linkedMerchantKeysOnly: Bool = false) throws(Failure) -> [ProductLink] {
        let rows = try access("read") { try backend.rows(key: key, linkedMerchantKeysOnly: linkedMerchantKeysOnly) }
        return try rows.map { (row: LinkRow) throws(Failure) -> ProductLink in
            do { return try ProductLink(row: row) } catch {
                let advice: String = backend.removalAdvice(key: row.key)
                let said: String = "the link store \(backend.place) has a damaged entry for key '\(row.key)': \(error); "
                throw Failure(description: said + "nothing was sent. \(advice): the next run then looks the product up in the shop by its name")
            }
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
