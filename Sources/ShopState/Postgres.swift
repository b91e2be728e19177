import CPostgres
import Foundation

/// One connection to PostgreSQL through libpq: statements with text parameters and text
/// results, transactions, one statement at a time (a lock, as GRDB's queue is for SQLite).
/// TCP keepalives are on, so that a vanished peer (a killed pod) is noticed in about a
/// minute and its session — and any lock it held — ends.
final class PostgresConnection: @unchecked Sendable {
    private let connection: OpaquePointer
    private let lock = NSRecursiveLock()
    /// Where it is connected, without a password (for messages).
    let place: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `address`: a `postgres://` or `postgresql://` URL, as libpq reads it.
    init(_ address: String) throws(Failure) {
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

    /// Runs one statement; its rows, each column as text (nil for NULL).
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?] = []) throws(Failure) -> [[String?]] {
        lock.lock()
        defer { lock.unlock() }
        let copies = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        let result: OpaquePointer? = copies.withUnsafeBufferPointer { values in
            guard let base = values.baseAddress, !values.isEmpty else { return PQexecParams(connection, sql, 0, nil, nil, nil, nil, 0) }
            return base.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: values.count) { pointer in
                PQexecParams(connection, sql, Int32(values.count), nil, pointer, nil, nil, 0)
            }
        }
        guard let result else { throw Failure(description: "\(place): \(Self.message(connection))") }
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
            throw Failure(description: "\(place): \(text.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }

    /// `body` in one transaction: all of it or nothing.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        try execute("BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            _ = try? execute("ROLLBACK")
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
