import Foundation
import GRDB
import Support

/// The content hash of each photo file openmarket has read, by path, with the
/// file's fingerprint at the time. A later run asks with the file's fingerprint
/// now: the same fingerprint gives the hash without reading the file (a sync of
/// an unchanged sheet reads no photo); any other fingerprint is a miss. A cache:
/// one SQLite file under `$XDG_CACHE_HOME/openmarket/`, shared by every account,
/// whose loss costs only time; a fingerprint younger than 2 seconds is never
/// recorded (see `FileFingerprint.settled`).
public final class PhotoHashes: @unchecked Sendable {
    public let url: URL
    private let pool: DatabasePool
    private let lock = NSLock()
    private var counts = (hits: 0, misses: 0)

    /// Opens (or makes) the file; entries not recorded again for a year are dropped.
    public init(url: URL) throws(LinkStore.Failure) {
        self.url = url
        do {
            // WAL, synchronous=NORMAL: no fsync per photo; a power loss can lose the last entries, which costs a read.
            pool = try DatabasePool(path: url.path, configuration: try SQLiteFile.prepare(url, synchronous: "NORMAL", busy: 5))
            var migrator = DatabaseMigrator()
            migrator.registerMigration("v1: photo hashes") { db in
                try db.create(table: "photo") { t in
                    t.primaryKey("path", .text)
                    t.column("device", .integer).notNull()
                    t.column("inode", .integer).notNull()
                    t.column("size", .integer).notNull()
                    t.column("modified", .integer).notNull()
                    t.column("changed", .integer).notNull()
                    t.column("hash", .text).notNull()
                    t.column("recorded", .double).notNull()
                }
            }
            try SQLiteFile.migrate(url) { try migrator.migrate(pool) }
            try pool.write { db in
                try db.execute(sql: "DELETE FROM photo WHERE recorded < ?", arguments: [Date().timeIntervalSince1970 - 365 * 86400])
            }
        } catch {
            throw LinkStore.Failure(description: "cannot open the photo hash cache \(url.path): \(LinkStore.reason(error))")
        }
    }

    /// `$XDG_CACHE_HOME/openmarket/photo-hashes.sqlite`, by default under `~/.cache`.
    public static var defaultURL: URL {
        UserFolders.cache.appendingPathComponent("photo-hashes.sqlite")
    }

    /// The hash recorded for `path` when its fingerprint is still `fingerprint`.
    public func hash(path: String, fingerprint: FileFingerprint) -> String? {
        let found = try? pool.read { db -> String? in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM photo WHERE path = ?", arguments: [path]) else { return nil }
            let recorded = FileFingerprint(device: UInt64(bitPattern: row["device"]), inode: UInt64(bitPattern: row["inode"]),
                                           size: row["size"], modified: row["modified"], changed: row["changed"])
            return recorded == fingerprint ? row["hash"] : nil
        }
        lock.lock()
        if found != nil { counts.hits += 1 } else { counts.misses += 1 }
        lock.unlock()
        return found ?? nil
    }

    /// Records the hash of the bytes read from `path`, when the file did not
    /// change while it was read (`before` == `after`) and is settled.
    public func record(path: String, before: FileFingerprint?, after: FileFingerprint?, hash: String, now: Date = Date()) {
        guard let before, before == after, before.settled(now: now) else { return }
        try? pool.write { db in
            try db.execute(sql: """
                INSERT OR REPLACE INTO photo (path, device, inode, size, modified, changed, hash, recorded)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [path, Int64(bitPattern: before.device), Int64(bitPattern: before.inode), before.size,
                                 before.modified, before.changed, hash, now.timeIntervalSince1970])
        }
    }

    /// Lookups answered from the cache and not, since this was opened.
    public var statistics: (hits: Int, misses: Int) {
        lock.lock()
        defer { lock.unlock() }
        return counts
    }
}
