import Foundation
import OpenMarketContract
import GRDB
import Support

/// One merchant key of one account, and the product it is.
public struct ProductLink: Sendable, Equatable {
    public enum State: String, Sendable, Codable {
        /// A create was sent and its answer not yet recorded: the product may exist.
        case pending
        case linked
    }

    /// The merchant's key, or, for a row without one, `name:` and the name.
    public var key: String
    /// Whether `key` is a name (a row without a key column).
    public var byName: Bool
    public var productID: Int?
    public var state: State
    public var pushed: Product?
    /// SHA-256 of each photo's source bytes (a URL's text for URL photos), in order.
    public var photos: [String]?
    public var updatedAt: Date

    public init(key: String, byName: Bool, productID: Int?, state: State, pushed: Product?, photos: [String]?,
                updatedAt: Date = Date()) {
        self.key = key
        self.byName = byName
        self.productID = productID
        self.state = state
        self.pushed = pushed
        self.photos = photos
        self.updatedAt = updatedAt
    }

    /// The link key of a row: its merchant key, else its name (stored as `name:` and the name).
    public static func identity(key: String?, name: String) -> (key: String, byName: Bool) {
        if let key, !key.isEmpty { return (key, false) }
        return (namePrefix + name, true)
    }

    static let namePrefix = "name:"

    /// The name a link key stands for, when it is a row's name (no key column); nil for a merchant key.
    public static func name(inKey key: String) -> String? {
        key.hasPrefix(namePrefix) ? String(key.dropFirst(namePrefix.count)) : nil
    }

    /// A link key as a merchant reads it.
    public static func shown(_ key: String) -> String {
        name(inKey: key).map { "\"\($0)\" (no key column: the name is the key)" } ?? key
    }

    /// The merchant's key of this link (nil when it is known by name).
    public var merchantKey: String? { byName ? nil : key }
}

/// A row of the `link` table, mapped by GRDB's Codable support: `pushed` and `photos` are
/// JSON text, `updated_at` seconds since 1970 (as the first stores wrote them). A row that
/// does not decode is an error (`LinkStore` names its key), never "never pushed": that
/// would change what a sync decides.
extension ProductLink: Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "link"

    enum CodingKeys: String, CodingKey {
        case key
        case byName = "by_name"
        case productID = "product_id"
        case state, pushed, photos
        case updatedAt = "updated_at"
    }

    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSince1970 }
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSince1970 }

    public static func databaseJSONEncoder(for column: String) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}

/// The identity of one vendor account's products: merchant key → product id,
/// with what was last pushed. One SQLite file per account (server + vendor),
/// under `$XDG_STATE_HOME/openmarket/links/` (for the built-in sandbox, in its
/// data folder). Every change is one transaction, on disk when it returns
/// (WAL, synchronous=FULL), so that a crash never loses a product's link.
public final class LinkStore: @unchecked Sendable {
    public let url: URL
    private let queue: DatabaseQueue

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public init(url: URL) throws(Failure) {
        self.url = url
        do {
            queue = try DatabaseQueue(path: url.path, configuration: try SQLiteFile.prepare(url, synchronous: "FULL", busy: 10))
            try SQLiteFile.migrate(url) { try Self.migrator.migrate(queue) }
        } catch {
            throw Failure(description: "cannot open the link store \(url.path): \(Self.reason(error))")
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: links and account facts") { db in
            try db.create(table: "link") { t in
                t.primaryKey("key", .text)
                t.column("by_name", .boolean).notNull()
                t.column("product_id", .integer).indexed()
                t.column("state", .text).notNull()
                t.column("pushed", .text)
                t.column("photos", .text)
                t.column("updated_at", .double).notNull()
            }
            try db.create(table: "fact") { t in
                t.primaryKey("name", .text)
                t.column("value", .text).notNull()
            }
        }
        migrator.registerMigration("v2: runs") { db in
            try db.create(table: "run") { t in
                t.primaryKey("folder", .text)
                t.column("kind", .text).notNull()
                t.column("started", .double).notNull().indexed()
                t.column("source", .text).notNull()
                t.column("counts", .text)
                t.column("finished", .double)
            }
        }
        return migrator
    }

    /// The store of an account: `folder/links/<hash of server and identifier>.sqlite`.
    /// The file name does not show the identifier.
    public static func location(in folder: URL, server: String, identifier: String) -> URL {
        folder.appendingPathComponent("links", isDirectory: true)
            .appendingPathComponent("\(FNV.tag(server + "|" + identifier)).sqlite")
    }

    public func link(_ key: String) throws(Failure) -> ProductLink? {
        try links(where: "key = ?", [key]).first
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
        for link in try links(where: "by_name = 0 AND state = 'linked'") {
            if let id = link.productID { keys[id] = link.key }
        }
        return keys
    }

    /// The links whose rows match `condition`, each decoded on its own so that a damaged
    /// one is named by its key.
    private func links(where condition: String = "1", _ arguments: StatementArguments = []) throws(Failure) -> [ProductLink] {
        let decoded: [Result<ProductLink, Failure>] = try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM link WHERE \(condition)", arguments: arguments).map { row in
                do { return .success(try ProductLink(row: row)) } catch {
                    let key: String = (try? row.decode(String.self, forColumn: "key")) ?? "?"
                    return .failure(Failure(description: "the link store \(url.path) has a damaged entry for key '\(key)': "
                        + "\(Self.reason(error)); nothing was sent. Restore the file from a backup, or delete that row "
                        + "(sqlite3 FILE \"DELETE FROM link WHERE key = '…'\"): the next run then looks the product up "
                        + "in the shop by its name"))
                }
            }
        }
        return try decoded.map { (result: Result<ProductLink, Failure>) throws(Failure) -> ProductLink in try result.get() }
    }

    /// Writes the link (replacing the key's earlier one, and any other key's link
    /// to the same product: one product has one key).
    public func save(_ link: ProductLink) throws(Failure) {
        try write { db in
            if let id = link.productID {
                try db.execute(sql: "DELETE FROM link WHERE product_id = ? AND key <> ?", arguments: [id, link.key])
            }
            try link.save(db)
        }
    }

    public func remove(_ key: String) throws(Failure) {
        try write { db in _ = try ProductLink.deleteOne(db, key: key) }
    }

    /// A fact about the account (`vendor_id`).
    public func fact(_ name: String) throws(Failure) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM fact WHERE name = ?", arguments: [name]) }
    }

    public func setFact(_ name: String, _ value: String) throws(Failure) {
        try write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO fact (name, value) VALUES (?, ?)", arguments: [name, value])
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(Failure) -> T {
        do { return try queue.read(body) } catch { throw Failure(description: "cannot read the link store \(url.path): \(Self.reason(error))") }
    }

    func write(_ body: (Database) throws -> Void) throws(Failure) {
        do { try queue.write(body) } catch { throw Failure(description: "cannot write the link store \(url.path): \(Self.reason(error))") }
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? "\(error.resultCode)" }
        return "\(error)"
    }
}

/// openmarket's SQLite files: the folder made, a wait for another process's
/// write, and how hard a commit is pushed to disk.
enum SQLiteFile {
    static func prepare(_ url: URL, synchronous: String, busy: TimeInterval) throws -> Configuration {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(busy)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = \(synchronous)") }
        return configuration
    }

    /// Runs `body` (the migrations) holding an exclusive lock on `file.lock`: two processes
    /// opening a new file at once (two runs started together) would both find it without
    /// tables and both make them, and the second fail ("table already exists").
    static func migrate(_ url: URL, _ body: () throws -> Void) throws {
        let descriptor = open(url.path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return try body() }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(descriptor, LOCK_UN) }
        try body()
    }
}

/// Where openmarket keeps what it remembers of accounts.
public enum StateFolder {
    /// `$XDG_STATE_HOME/openmarket`, by default `~/.local/state/openmarket`.
    public static var url: URL {
        UserFolders.state
    }

}
