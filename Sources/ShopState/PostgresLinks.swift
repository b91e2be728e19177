import Foundation
import Synchronization

/// One account's links in a shared PostgreSQL database: the tables of the SQLite store with an
/// `account` column, so that every pod, shard and machine that reaches the database sees one
/// account's links, facts and runs. Its account is named by TAG (the account's tag, as a SQLite
/// store's file name). One connection per database per process,
/// shared by the stores opened on it; the migrations run once per database, under a lock held
/// in the database, so that pods starting together do not race to make the tables.
final class PostgresLinks: LinkBackend, @unchecked Sendable {
    private let connection: PostgresConnection
    let account: String
    /// The database's address without the account (what libpq is given).
    let address: String

    /// The rows of account `account` in the database at `database`.
    init(database: URL, account: String) throws {
        self.account = account
        address = database.absoluteString
        connection = try Self.connection(address)
    }

    var place: String { "\(connection.place) (account \(account))" }

    func removalAdvice(key: String) -> String {
        "Delete that row (DELETE FROM link WHERE account = '\(account)' AND key = '…')"
    }

    // MARK: connections and migrations

    private static let connections = Mutex<[String: PostgresConnection]>([:])

    /// The process's connection to `address`, made (and the database migrated) on first use.
    private static func connection(_ address: String) throws -> PostgresConnection {
        if let known = connections.withLock({ $0[address] }) { return known }
        let made = try PostgresConnection(address, reconnects: true)
        // A server back after a restart: the account locks of this process taken again on it.
        made.onReconnect = { PostgresLock.retakeAll(address) }
        try migrate(made)
        return connections.withLock { known in
            if let first = known[address] { return first }
            known[address] = made
            return made
        }
    }

    static let migrations: [(name: String, sql: [String])] = [
        (LinkMigrations.names[0], [
            """
            CREATE TABLE link (account TEXT NOT NULL, key TEXT NOT NULL, by_name BOOLEAN NOT NULL, product_id BIGINT,
                state TEXT NOT NULL, pushed TEXT, photos TEXT, updated_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (account, key))
            """,
            "CREATE INDEX link_product ON link (account, product_id)",
            "CREATE TABLE fact (account TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (account, name))",
        ]),
        (LinkMigrations.names[1], [
            """
            CREATE TABLE run (account TEXT NOT NULL, folder TEXT NOT NULL, kind TEXT NOT NULL, started DOUBLE PRECISION NOT NULL,
                source TEXT NOT NULL, counts TEXT, finished DOUBLE PRECISION, PRIMARY KEY (account, folder))
            """,
            "CREATE INDEX run_started ON run (account, started DESC)",
        ]),
        (LinkMigrations.names[2], [
            "ALTER TABLE run ADD COLUMN run_name TEXT",
            "CREATE TABLE record_line (seq BIGSERIAL PRIMARY KEY, account TEXT NOT NULL, run TEXT NOT NULL, part TEXT NOT NULL, line TEXT NOT NULL)",
            "CREATE INDEX record_line_run ON record_line (account, run, part, seq)",
        ]),
        // The database's, not an account's: a fleet's feeds shared by machines (FeedRound).
        (LinkMigrations.names[3], [
            "CREATE TABLE feed_round (round TEXT NOT NULL, feed TEXT NOT NULL, finished TIMESTAMPTZ, outcome TEXT, machine TEXT, PRIMARY KEY (round, feed))",
        ]),
        (LinkMigrations.names[4], [
            "CREATE TABLE saved_photo (account TEXT NOT NULL, run TEXT NOT NULL, path TEXT NOT NULL, data BYTEA NOT NULL, PRIMARY KEY (account, run, path))",
        ]),
    ]

    /// The named migrations not yet applied, in order, in one transaction holding an advisory
    /// lock: a second migrator waits, then finds them applied.
    static func migrate(_ connection: PostgresConnection) throws {
        try connection.transaction {
            // The lock's number: "openmarket links" as 8 bytes, a constant of this store.
            try connection.execute("SELECT pg_advisory_xact_lock(7958528119478871411)")
            try connection.execute("CREATE TABLE IF NOT EXISTS openmarket_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
            let applied = Set(try connection.execute("SELECT name FROM openmarket_migrations").compactMap { $0.first ?? nil })
            for migration in migrations where !applied.contains(migration.name) {
                for statement in migration.sql { try connection.execute(statement) }
                try connection.execute("INSERT INTO openmarket_migrations (name) VALUES ($1)", [migration.name])
            }
        }
    }

    // MARK: the store

    func rows(key: String?) throws -> [LinkRow] {
        var sql = "SELECT key, by_name, product_id, state, pushed, photos, updated_at FROM link WHERE account = $1"
        var parameters: [String?] = [account]
        if let key {
            sql += " AND key = $2"
            parameters.append(key)
        }
        return try connection.execute(sql, parameters).map { columns in
            LinkRow(key: columns[0] ?? "", byName: columns[1] == "t", productID: columns[2].flatMap { Int($0) }, state: columns[3] ?? "",
                    pushed: columns[4], photos: columns[5], updatedAt: columns[6].flatMap { Double($0) } ?? 0)
        }
    }

    func eachRow(_ body: (LinkRow) throws -> Void) throws {
        for row in try rows(key: nil) { try body(row) }
    }

    func eachLinkedKey(_ body: (_ key: String, _ productID: Int) throws -> Void) throws {
        let sql = "SELECT key, product_id FROM link WHERE account = $1 AND NOT by_name AND state = 'linked' AND product_id IS NOT NULL"
        for columns in try connection.execute(sql, [account]) {
            if let key = columns[0], let id = columns[1].flatMap({ Int($0) }) { try body(key, id) }
        }
    }

    func save(_ row: LinkRow, durable: Bool) throws {
        try connection.transaction {
            if let id = row.productID {
                try connection.execute("DELETE FROM link WHERE account = $1 AND product_id = $2 AND key <> $3", [account, String(id), row.key])
            }
            try connection.execute("""
                INSERT INTO link (account, key, by_name, product_id, state, pushed, photos, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                ON CONFLICT (account, key) DO UPDATE SET by_name = EXCLUDED.by_name, product_id = EXCLUDED.product_id, state = EXCLUDED.state,
                    pushed = EXCLUDED.pushed, photos = EXCLUDED.photos, updated_at = EXCLUDED.updated_at
                """, [account, row.key, row.byName ? "t" : "f", row.productID.map(String.init), row.state, row.pushed, row.photos,
                      String(row.updatedAt)])
        }
    }

    func remove(key: String) throws {
        try connection.execute("DELETE FROM link WHERE account = $1 AND key = $2", [account, key])
    }

    func fact(_ name: String) throws -> String? {
        try connection.execute("SELECT value FROM fact WHERE account = $1 AND name = $2", [account, name]).first?.first ?? nil
    }

    func setFact(_ name: String, _ value: String) throws {
        try connection.execute("""
            INSERT INTO fact (account, name, value) VALUES ($1, $2, $3) ON CONFLICT (account, name) DO UPDATE SET value = EXCLUDED.value
            """, [account, name, value])
    }

    func beginRun(_ run: RunRow, resumed: Bool) throws {
        let conflict = resumed ? "DO NOTHING"
            : "DO UPDATE SET kind = EXCLUDED.kind, started = EXCLUDED.started, source = EXCLUDED.source, run_name = EXCLUDED.run_name, counts = NULL, finished = NULL"
        try connection.execute("""
            INSERT INTO run (account, folder, kind, started, source, run_name) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (account, folder) \(conflict)
            """, [account, run.folder, run.kind, String(run.started), run.source, run.runName])
    }

    func finishRun(folder: String, counts: String?, finished: Double) throws {
        try connection.execute("UPDATE run SET counts = $1, finished = $2 WHERE account = $3 AND folder = $4",
                               [counts, String(finished), account, folder])
    }

    func runs(limit: Int) throws -> [RunRow] {
        try connection.execute("""
            SELECT folder, kind, started, source, counts, finished, run_name FROM run WHERE account = $1 ORDER BY started DESC LIMIT $2
            """, [account, String(limit)]).map { columns in
            RunRow(folder: columns[0] ?? "", kind: columns[1] ?? "", started: columns[2].flatMap { Double($0) } ?? 0, source: columns[3] ?? "",
                   counts: columns[4], finished: columns[5].flatMap { Double($0) }, runName: columns[6])
        }
    }

    func appendRecord(run: String, part: String, line: String) throws {
        try connection.execute("INSERT INTO record_line (account, run, part, line) VALUES ($1, $2, $3, $4)", [account, run, part, line])
    }

    func record(run: String) throws -> [(part: String, line: String)] {
        try connection.execute("SELECT part, line FROM record_line WHERE account = $1 AND run = $2 ORDER BY part, seq", [account, run])
            .map { ($0[0] ?? "", $0[1] ?? "") }
    }

    /// Bytes as text parameters and results: bytea's hex form (`\x0a1b…`).
    func savePhoto(run: String, path: String, data: Data) throws {
        try connection.execute("""
            INSERT INTO saved_photo (account, run, path, data) VALUES ($1, $2, $3, $4::bytea)
            ON CONFLICT (account, run, path) DO UPDATE SET data = EXCLUDED.data
            """, [account, run, path, Self.hex(data)])
    }

    func savedPhotos(run: String, path: String?) throws -> [(path: String, data: Data)] {
        try connection.execute("SELECT path, data FROM saved_photo WHERE account = $1 AND run = $2 AND ($3::text IS NULL OR path = $3) ORDER BY path",
                               [account, run, path]).map {
            ($0[0] ?? "", Self.bytes(hex: $0[1] ?? ""))
        }
    }

    static func hex(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = [92, 120]  // \x
        text.reserveCapacity(data.count * 2 + 2)
        for byte in data {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func bytes(hex text: String) -> Data {
        var data = Data(capacity: max(0, text.utf8.count / 2 - 1))
        var high: UInt8?
        for c in text.utf8.dropFirst(2) {
            let value: UInt8 = c >= 97 ? c - 87 : c >= 65 ? c - 55 : c - 48
            if let h = high { data.append(h << 4 | value); high = nil } else { high = value }
        }
        return data
    }
}
