import Foundation
import Support

/// One run that writes per account at a time, wherever it runs: a file lock in the state
/// folder for an account kept on this machine; for an account in a shared database, an
/// advisory lock of a PostgreSQL session of the run's own, so that two machines (two pods)
/// never run one account at once. A process that dies lets go either way: the kernel drops
/// its `flock`; PostgreSQL ends its session (at once for a closed socket, within about a
/// minute through the keepalives for a machine that vanished) and the lock with it.
public enum AccountLocks {
    /// Takes the account's lock at once, or throws `RunLock.Busy` naming the holder.
    public static func take(links: URL, file: URL, holder: String) throws -> any HeldLock {
        PostgresLinks.handles(links) ? try PostgresLock(links: links, holder: holder) : try RunLock(url: file, holder: holder)
    }
}

final class PostgresLock: HeldLock, @unchecked Sendable {
    private let connection: PostgresConnection
    private let key: String
    private let account: String
    private let lock = NSLock()
    private var released = false

    init(links: URL, holder: String) throws {
        // The tables (its `fact` row names the holder), through the store's own opening.
        let store = try PostgresLinks(links)
        account = store.account
        key = String(Int64(bitPattern: FNV.hash("openmarket account lock|" + account)))
        // A session of its own: the lock lives exactly as long as it does.
        connection = try PostgresConnection(store.address)
        let taken = try connection.execute("SELECT pg_try_advisory_lock($1)", [key]).first?.first ?? nil
        guard taken == "t" else {
            let said = (try? connection.execute("SELECT value FROM fact WHERE account = $1 AND name = 'running'", [account]).first?.first) ?? nil
            throw RunLock.Busy(holder: said ?? "a run on another machine that has not said which", subject: "this account")
        }
        try connection.execute("""
            INSERT INTO fact (account, name, value) VALUES ($1, 'running', $2) ON CONFLICT (account, name) DO UPDATE SET value = EXCLUDED.value
            """, [account, RunLock.holderLine(holder, machine: true)])
    }

    func release() {
        let first = lock.withLock { () -> Bool in
            defer { released = true }
            return !released
        }
        guard first else { return }
        _ = try? connection.execute("DELETE FROM fact WHERE account = $1 AND name = 'running'", [account])
        _ = try? connection.execute("SELECT pg_advisory_unlock($1)", [key])
    }

    deinit { release() }
}
