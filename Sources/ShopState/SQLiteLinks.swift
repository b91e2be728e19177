import Foundation
import GRDB
import Support

/// One account's links in a SQLite file. Every change is one transaction, on disk when it
/// returns (WAL, synchronous=FULL), so that a crash never loses a product's link.
final class SQLiteLinks: LinkBackend, @unchecked Sendable {
    let url: URL
    private let queue: DatabaseQueue

    init(_ url: URL) throws {
        self.url = url
        var configuration = try SQLiteFile.prepare(url, synchronous: "FULL", busy: 10)
        // WAL, as the comment above always said (a queue's default was a rollback journal: each
        // change made, synced and deleted a journal file — two syncs, an unlink and an fchown a
        // commit); in WAL a commit is one append to the log and one sync.
        configuration.journalMode = .wal
        queue = try SQLiteFile.opening(url) {
            let queue = try DatabaseQueue(path: url.path, configuration: configuration)
            // GRDB's WAL setup lowers `synchronous` to NORMAL after `prepareDatabase`: back to FULL,
            // so that a link is on disk when its change returns, a power cut included.
            try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
            try Self.migrator.migrate(queue)
            return queue
        }
    }

    var place: String { url.path }

    func removalAdvice(key: String) -> String {
        "Restore the file from a backup, or delete that row (sqlite3 FILE \"DELETE FROM link WHERE key = '…'\")"
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(LinkMigrations.names[0]) { db in
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
        migrator.registerMigration(LinkMigrations.names[1]) { db in
            try db.create(table: "run") { t in
                t.primaryKey("folder", .text)
                t.column("kind", .text).notNull()
                t.column("started", .double).notNull().indexed()
                t.column("source", .text).notNull()
                t.column("counts", .text)
                t.column("finished", .double)
            }
        }
        migrator.registerMigration(LinkMigrations.names[2]) { db in
            try db.alter(table: "run") { t in t.add(column: "run_name", .text) }
            try db.create(table: "record_line") { t in
                t.autoIncrementedPrimaryKey("seq")
                t.column("run", .text).notNull()
                t.column("part", .text).notNull()
                t.column("line", .text).notNull()
            }
            try db.create(index: "record_line_run", on: "record_line", columns: ["run", "part", "seq"])
        }
        // Feed rounds are a shared database's (machines sharing a fleet of feeds): nothing in
        // one account's file, named here so that both stores' histories stay alike.
        migrator.registerMigration(LinkMigrations.names[3]) { _ in }
        migrator.registerMigration(LinkMigrations.names[4]) { db in
            try db.create(table: "saved_photo") { t in
                t.column("run", .text).notNull()
                t.column("path", .text).notNull()
                t.column("data", .blob).notNull()
                t.primaryKey(["run", "path"])
            }
        }
        return migrator
    }

    func rows(key: String?) throws -> [LinkRow] {
        let (condition, arguments): (String, StatementArguments) = key.map { ("key = ?", [$0]) } ?? ("1", [])
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM link WHERE \(condition)", arguments: arguments).map { row in
                LinkRow(key: row["key"], byName: row["by_name"], productID: row["product_id"], state: row["state"],
                        pushed: row["pushed"], photos: row["photos"], updatedAt: row["updated_at"])
            }
        }
    }

    /// Read by a cursor: a row at a time, never the whole table in memory.
    func eachRow(_ body: (LinkRow) throws -> Void) throws {
        try queue.read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM link")
            while let row = try rows.next() {
                try body(LinkRow(key: row["key"], byName: row["by_name"], productID: row["product_id"], state: row["state"],
                                 pushed: row["pushed"], photos: row["photos"], updatedAt: row["updated_at"]))
            }
        }
    }

    func eachLinkedKey(_ body: (_ key: String, _ productID: Int) throws -> Void) throws {
        try queue.read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT key, product_id FROM link WHERE by_name = 0 AND state = 'linked' AND product_id IS NOT NULL")
            while let row = try rows.next() { try body(row[0], row[1]) }
        }
    }

    /// Durable saves arriving together (workers linking their products at once) share one
    /// transaction, and so one sync of the log.
    private let commits = GroupCommit<LinkRow>()

    func save(_ row: LinkRow, durable: Bool) throws {
        guard durable else {
            return try queue.writeWithoutTransaction { db in
                // In WAL, a commit at synchronous=NORMAL is in the log but not synced: the next
                // FULL commit's sync covers it (the log is synced whole, in order).
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                defer { try? db.execute(sql: "PRAGMA synchronous = FULL") }
                try db.inTransaction {
                    try Self.write(row, db)
                    return .commit
                }
            }
        }
        try commits.submit(row) { rows in
            try queue.write { db in for row in rows { try Self.write(row, db) } }
        }
    }

    private static func write(_ row: LinkRow, _ db: Database) throws {
        if let id = row.productID {
            try db.execute(sql: "DELETE FROM link WHERE product_id = ? AND key <> ?", arguments: [id, row.key])
        }
        try db.execute(sql: """
            INSERT OR REPLACE INTO link (key, by_name, product_id, state, pushed, photos, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [row.key, row.byName, row.productID, row.state, row.pushed, row.photos, row.updatedAt])
    }

    func remove(key: String) throws {
        try queue.write { db in try db.execute(sql: "DELETE FROM link WHERE key = ?", arguments: [key]) }
    }

    func fact(_ name: String) throws -> String? {
        try queue.read { db in try String.fetchOne(db, sql: "SELECT value FROM fact WHERE name = ?", arguments: [name]) }
    }

    func setFact(_ name: String, _ value: String) throws {
        try queue.write { db in try db.execute(sql: "INSERT OR REPLACE INTO fact (name, value) VALUES (?, ?)", arguments: [name, value]) }
    }

    func beginRun(_ run: RunRow, resumed: Bool) throws {
        try queue.write { db in
            try db.execute(sql: "INSERT OR \(resumed ? "IGNORE" : "REPLACE") INTO run (folder, kind, started, source, run_name) VALUES (?, ?, ?, ?, ?)",
                           arguments: [run.folder, run.kind, run.started, run.source, run.runName])
        }
    }

    func finishRun(folder: String, counts: String?, finished: Double) throws {
        try queue.write { db in
            try db.execute(sql: "UPDATE run SET counts = ?, finished = ? WHERE folder = ?", arguments: [counts, finished, folder])
        }
    }

    func runs(limit: Int) throws -> [RunRow] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM run ORDER BY started DESC LIMIT ?", arguments: [limit]).map { row in
                RunRow(folder: row["folder"], kind: row["kind"], started: row["started"], source: row["source"], counts: row["counts"],
                       finished: row["finished"], runName: row["run_name"])
            }
        }
    }

    func appendRecord(run: String, part: String, line: String) throws {
        try queue.write { db in
            try db.execute(sql: "INSERT INTO record_line (run, part, line) VALUES (?, ?, ?)", arguments: [run, part, line])
        }
    }

    func record(run: String) throws -> [(part: String, line: String)] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT part, line FROM record_line WHERE run = ? ORDER BY part, seq", arguments: [run]).map { ($0["part"], $0["line"]) }
        }
    }

    func savePhoto(run: String, path: String, data: Data) throws {
        try queue.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO saved_photo (run, path, data) VALUES (?, ?, ?)", arguments: [run, path, data])
        }
    }

    func savedPhotos(run: String, path: String?) throws -> [(path: String, data: Data)] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT path, data FROM saved_photo WHERE run = ? AND (? IS NULL OR path = ?) ORDER BY path",
                             arguments: [run, path, path]).map { ($0["path"], $0["data"]) }
        }
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

    /// Runs `body` (opening the file and its migrations) holding an exclusive lock on
    /// `file.lock`, for processes and threads alike. Two openings of a new file at once (two
    /// runs started together) would both find it without tables and both make them, and the
    /// second fail ("table already exists"). Before that, both would turn it to WAL, and one
    /// got "database is locked" at once, without waiting (14 to 40 of 2,400 openings, 8 at a time:
    /// `SQLiteOpeningTests`).
    static func opening<T>(_ url: URL, _ body: () throws -> T) throws -> T {
        let descriptor = open(url.path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return try body() }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}

