import CPostgres
import Foundation

/// One connection to PostgreSQL through libpq: statements with text parameters and text
/// results, transactions, one statement at a time (a lock, as GRDB's queue is for SQLite).
/// TCP keepalives are on, so that a vanished peer (a killed pod) is noticed in about a
/// minute and its session — and any lock it held — ends.
///
/// A connection that `reconnects` (the state's, not a lock's session) outlives a lost server —
/// a managed database's failover, a restart: a statement that finds the connection gone waits
/// and connects again (bounded: `PostgresConnection.patience`), then runs again; a transaction
/// cut off runs again whole. The run waits for the database instead of stopping; it stops only
/// when the database stays away. Its statements are written so that running one again is
/// harmless (upserts; a record line twice reads as once).
final class PostgresConnection: @unchecked Sendable {
    private let connection: OpaquePointer
    private let lock = NSRecursiveLock()
    /// Where it is connected, without a password (for messages).
    let place: String
    private let reconnects: Bool
    /// Transactions open on this connection (a statement inside one is not run again alone).
    private var depth = 0
    /// Told after each reconnection (the account's lock takes its session's locks again).
    var onReconnect: (@Sendable () -> Void)?

    /// How long a lost database is waited for before the run stops (seconds), from
    /// `OPENMARKET_STATE_PATIENCE`, else 120.
    static let patience: Double = ProcessInfo.processInfo.environment["OPENMARKET_STATE_PATIENCE"].flatMap(Double.init) ?? 120

    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// The connection was lost (not a statement refused): worth connecting again.
        var lost = false
    }

    /// `address`: a `postgres://` or `postgresql://` URL, as libpq reads it.
    init(_ address: String, reconnects: Bool = false) throws(Failure) {
        self.reconnects = reconnects
        place = Self.shown(address)
        // The keepalives (and a bound on connecting) as parameters of the URL libpq is given.
        let keepalive = "keepalives=1&keepalives_idle=30&keepalives_interval=10&keepalives_count=3&connect_timeout=10"
        let full = address + (address.contains("?") ? "&" : "?") + keepalive
        guard let made = PQconnectdb(full) else { throw Failure(description: "cannot connect to \(place): out of memory") }
        // Checked before it is kept: a connection kept is finished once, by deinit.
        guard PQstatus(made) == CONNECTION_OK else {
            let reason = Self.message(made)
            PQfinish(made)
            throw Failure(description: "cannot connect to \(place): \(reason)")
        }
        connection = made
        // The server's notices (warnings) are not the user's output: libpq would print them on stderr.
        PQsetNoticeProcessor(made, { _, _ in }, nil)
        _ = try execute("SET client_min_messages TO warning")
    }

    deinit { PQfinish(connection) }

    /// Runs one statement; its rows, each column as text (nil for NULL). A lost connection
    /// (outside a transaction) is made again and the statement run again.
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?] = []) throws(Failure) -> [[String?]] {
        lock.lock()
        defer { lock.unlock() }
        do {
            return try once(sql, parameters)
        } catch where error.lost && reconnects && depth == 0 {
            try reconnect(after: error)
            return try once(sql, parameters)
        }
    }

    /// Waits for the server and connects again, with growing pauses, for at most `patience`
    /// seconds; then the first failure stands.
    private func reconnect(after failure: Failure) throws(Failure) {
        let deadline = Date().addingTimeInterval(Self.patience)
        var pause = 0.1
        while Date() < deadline {
            PQreset(connection)
            if PQstatus(connection) == CONNECTION_OK {
                PQsetNoticeProcessor(connection, { _, _ in }, nil)
                _ = try? once("SET client_min_messages TO warning", [])
                onReconnect?()
                return
            }
            Thread.sleep(forTimeInterval: pause)
            pause = min(pause * 2, 2)
        }
        throw Failure(description: "\(failure.description) (and not back within \(Int(Self.patience)) s)", lost: true)
    }

    /// Connects again once, at once (a lock's session lost with the server); whether it is up.
    func reset() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        PQreset(connection)
        guard PQstatus(connection) == CONNECTION_OK else { return false }
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        _ = try? once("SET client_min_messages TO warning", [])
        return true
    }

    private func once(_ sql: String, _ parameters: [String?]) throws(Failure) -> [[String?]] {
        let copies = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        let result: OpaquePointer? = copies.withUnsafeBufferPointer { values in
            guard let base = values.baseAddress, !values.isEmpty else { return PQexecParams(connection, sql, 0, nil, nil, nil, nil, 0) }
            return base.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: values.count) { pointer in
                PQexecParams(connection, sql, Int32(values.count), nil, pointer, nil, nil, 0)
            }
        }
        guard let result else { throw Failure(description: "\(place): \(Self.message(connection))", lost: PQstatus(connection) != CONNECTION_OK) }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK: return []
        case PGRES_TUPLES_OK:
            let rows = Int(PQntuples(result)), columns = Int(PQnfields(result))
            return (0..<rows).map { row in
                (0..<columns).map { column in
                    PQgetisnull(result, Int32(row), Int32(column)) == 1 ? nil : String(cString: PQgetvalue(result, Int32(row), Int32(column)))
                }
            }
        default:
            let text = PQresultErrorMessage(result).map { String(cString: $0) } ?? "failed"
            // A server shutting down ends sessions with an error (57P01) before the socket closes.
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            throw Failure(description: "\(place): \(text.trimmingCharacters(in: .whitespacesAndNewlines))",
                          lost: PQstatus(connection) != CONNECTION_OK || state.hasPrefix("57P") || state.hasPrefix("08"))
        }
    }

    /// `body` in one transaction: all of it or nothing. One cut off by a lost connection runs
    /// again whole once the server is back.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        do {
            return try attempt(body)
        } catch let failure as Failure where failure.lost && reconnects && depth == 0 {
            try reconnect(after: failure)
            return try attempt(body)
        }
    }

    private func attempt<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        depth += 1
        defer { depth -= 1 }
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            _ = try? once("ROLLBACK", [])
            throw error
        }
    }

    private static func message(_ connection: OpaquePointer) -> String {
        PQerrorMessage(connection).map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "unknown error"
    }

    /// The address with any password replaced: `postgres://user:…@host/db`.
    static func shown(_ address: String) -> String {
        guard var parts = URLComponents(string: address) else { return "the state database" }
        if parts.password != nil { parts.password = "…" }
        parts.query = nil
        return parts.string ?? "the state database"
    }
}
