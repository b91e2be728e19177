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
    /// The last answers from the file (under `lock`), so that rows sharing a photo ask the
    /// file once; bounded, and emptied when full (a big shop's photos are not all kept).
    private var recent: [String: (fingerprint: FileFingerprint, hash: String)] = [:]
    static let recentLimit = 1_024

    /// Opens (or makes) the file; entries not recorded again for a year are dropped.
    public init(url: URL) throws(LinkStore.Failure) {
        self.url = url
        do {
            // WAL, synchronous=NORMAL: no fsync per photo; a power loss can lose the last entries, which costs a read.
            let configuration = try SQLiteFile.prepare(url, synchronous: "NORMAL", busy: 5)
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
            pool = try SQLiteFile.opening(url) {
                let pool = try DatabasePool(path: url.path, configuration: configuration)
                try migrator.migrate(pool)
                return pool
            }
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
        lock.lock()
        if let known = recent[path], known.fingerprint == fingerprint {
            counts.hits += 1
            lock.unlock()
            return known.hash
        }
        lock.unlock()
        let found = try? pool.read { db -> (FileFingerprint, String)? in
            let statement = try db.cachedStatement(sql: "SELECT device, inode, size, modified, changed, hash FROM photo WHERE path = ?")
            guard let row = try Row.fetchOne(statement, arguments: [path]) else { return nil }
            let recorded = FileFingerprint(device: UInt64(bitPattern: row[0]), inode: UInt64(bitPattern: row[1]),
                                           size: row[2], modified: row[3], changed: row[4])
            return (recorded, row[5])
        }
        lock.lock()
        defer { lock.unlock() }
        guard let (recorded, hash) = found ?? nil, recorded == fingerprint else {
            counts.misses += 1
            return nil
        }
        counts.hits += 1
        if recent.count >= Self.recentLimit { recent.removeAll(keepingCapacity: true) }
        recent[path] = (recorded, hash)
        return hash
    }

    /// Records the hash of the bytes read from `path`, when the file did not
    /// change while it was read (`before` == `after`) and is settled.
    public func record(path: String, before: FileFingerprint?, after: FileFingerprint?, hash: String, now: Date = Date()) {
        guard let before, before == after, before.settled(now: now) else { return }
        lock.lock()
        recent[path] = nil
        lock.unlock()
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
