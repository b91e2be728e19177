import Foundation
import Support
import Synchronization

/// One run that writes per account at a time, wherever it runs: a file lock in the state
/// folder for an account kept on this machine; for an account in a shared database, an
/// advisory lock of a PostgreSQL session of the run's own, so that two machines (two pods)
/// never run one account at once. A process that dies lets go either way: the kernel drops
/// its `flock`; PostgreSQL ends its session (at once for a closed socket, within about a
/// minute through the keepalives for a machine that vanished) and the lock with it.
public enum AccountLocks {
    /// Takes the lock of the account whose store is `store` at once, or throws `RunLock.Busy`
    /// naming the holder: the file `store.lockFile` on this machine, a database session's lock
    /// for a shared store.
    public static func take(_ store: StoreAddress, holder: String) throws -> any HeldLock {
        switch store {
        case .file: try RunLock(url: store.lockFile ?? URL(fileURLWithPath: "/"), holder: holder)
        case .database(let database, let account): try PostgresLock(database: database, account: account, holder: holder, part: nil)
        }
    }

    /// The lock of one shard of a sharded run: the account shared with the run's other shards
    /// (a run that is not theirs is refused, and refuses them), the shard itself exclusive (the
    /// same shard started twice, a restarted pod while the old one lives, is refused).
    public static func take(_ store: StoreAddress, holder: String, run: String, part: String) throws -> any HeldLock {
        guard case .database(let database, let account) = store else { throw NotShared() }
        return try PostgresLock(database: database, account: account, holder: holder, part: (run, part))
    }

    public struct NotShared: Error, CustomStringConvertible {
        public var description: String {
            "--shard needs the account's state shared between the shards: --state postgres://… (or OPENMARKET_STATE)"
        }
    }
}

final class PostgresLock: HeldLock, @unchecked Sendable {
    private let connection: PostgresConnection
    private let key: String
    private let account: String
    private let lock = NSLock()
    /// Set once both locks are taken: a refused taker lets go of nothing it does not hold.
    private var held = false

    /// The fact that names the holder: `running`, or `running NAME I/N` for a shard.
    private let fact: String
    private let shardKey: String?

    init(database: URL, account: String, holder: String, part: (run: String, shard: String)?) throws {
        // The tables (its `fact` row names the holder), through the store's own opening.
        let store = try PostgresLinks(database: database, account: account)
        self.account = store.account
        key = String(Int64(bitPattern: FNV.hash("openmarket account lock|" + store.account)))
        // A session of its own: the lock lives exactly as long as it does.
        connection = try PostgresConnection(store.address)
        fact = part.map { "running \($0.run) \($0.shard)" } ?? "running"
        holderLine = RunLock.holderLine(holder, machine: true)
        address = store.address
        shardKey = part.map { String(Int64(bitPattern: FNV.hash("openmarket shard lock|\(store.account)|\($0.run)|\($0.shard)"))) }
        let taken = try connection.execute(part == nil ? "SELECT pg_try_advisory_lock($1)" : "SELECT pg_try_advisory_lock_shared($1)", [key])
        guard taken.first?.first == "t" else { throw busy(part == nil ? "a run on another machine" : "a run that is not this sharded one") }
        if let shardKey {
            guard try connection.execute("SELECT pg_try_advisory_lock($1)", [shardKey]).first?.first == "t" else {
                _ = try? connection.execute("SELECT pg_advisory_unlock_shared($1)", [key])
                throw busy("this shard, started elsewhere")
            }
        }
        lock.withLock { held = true }
        try connection.execute("""
            INSERT INTO fact (account, name, value) VALUES ($1, $2, $3) ON CONFLICT (account, name) DO UPDATE SET value = EXCLUDED.value
            """, [account, fact, holderLine])
        Self.heldLocks.withLock { $0[ObjectIdentifier(self)] = Weak(self) }
    }

    private let holderLine: String
    private let address: String

    private struct Weak: @unchecked Sendable { weak var lock: PostgresLock?; init(_ lock: PostgresLock) { self.lock = lock } }
    /// The locks this process holds: taken again when the database comes back from a restart.
    private static let heldLocks = Mutex<[ObjectIdentifier: Weak]>([:])

    /// The server restarted under a run (its state connection saw it and connected again): each
    /// lock held on that database lost its session with it, and is taken again on a new one.
    static func retakeAll(_ address: String) {
        for entry in heldLocks.withLock({ Array($0.values) }) where entry.lock?.address == address { entry.lock?.retake() }
    }

    /// The session's locks again (at once: nobody else could run while the server was down but
    /// a run that started in the moments since; then this one still holds its own fact).
    private func retake() {
        guard lock.withLock({ held }), connection.reset() else { return }
        _ = try? connection.execute(shardKey == nil ? "SELECT pg_try_advisory_lock($1)" : "SELECT pg_try_advisory_lock_shared($1)", [key])
        if let shardKey { _ = try? connection.execute("SELECT pg_try_advisory_lock($1)", [shardKey]) }
        _ = try? connection.execute("""
            INSERT INTO fact (account, name, value) VALUES ($1, $2, $3) ON CONFLICT (account, name) DO UPDATE SET value = EXCLUDED.value
            """, [account, fact, holderLine])
    }

    /// Who holds the account (or this shard), as they said it.
    private func busy(_ otherwise: String) -> RunLock.Busy {
        let pattern = shardKey == nil ? "running%" : fact
        let said = (try? connection.execute("SELECT value FROM fact WHERE account = $1 AND name LIKE $2 ORDER BY name", [account, pattern]))?
            .compactMap { $0.first ?? nil } ?? []
        return RunLock.Busy(holder: said.isEmpty ? otherwise : said.joined(separator: "; "), subject: "this account")
    }

    func release() {
        let holding = lock.withLock { () -> Bool in
            defer { held = false }
            return held
        }
        guard holding else { return }
        _ = Self.heldLocks.withLock { $0.removeValue(forKey: ObjectIdentifier(self)) }
        _ = try? connection.execute("DELETE FROM fact WHERE account = $1 AND name = $2", [account, fact])
        if let shardKey {
            _ = try? connection.execute("SELECT pg_advisory_unlock($1)", [shardKey])
            _ = try? connection.execute("SELECT pg_advisory_unlock_shared($1)", [key])
        } else {
            _ = try? connection.execute("SELECT pg_advisory_unlock($1)", [key])
        }
    }

    deinit { release() }
}
