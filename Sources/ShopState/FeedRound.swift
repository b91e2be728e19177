import Foundation
import Support

/// One round of a fleet's feeds shared by several machines (`feed run --all --state …` on K
/// pods at once): each feed of the round is run by exactly one of them, with no scheduler of
/// ours. A machine claims the next feed nobody has finished by locking its row
/// (`FOR UPDATE SKIP LOCKED`: the others pass over it at once) in a transaction of a session of
/// its own, held while the feed runs; finishing marks the row and commits. A machine that dies
/// mid-feed ends its session, the transaction with it: the row is unlocked and unfinished, and
/// the next machine to look claims it.
public final class FeedRound: @unchecked Sendable {
    public let name: String
    private let connection: PostgresConnection
    private var claimed: String?

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// What the round holds for one feed.
    public struct Entry: Sendable, Equatable {
        public var feed: String
        /// nil: not finished (waiting, or being run).
        public var outcome: String?
        public var machine: String?
    }

    /// Opens round `name` in the database at `state` and adds `feeds` to it (feeds already
    /// there, added by another machine, are kept as they are).
    public init(state: URL, name: String, feeds: [String]) throws(Failure) {
        self.name = name
        do {
            // The tables through the store's own opening (the migrations run once).
            let store = try PostgresLinks(database: state, account: "feed-rounds")
            connection = try PostgresConnection(store.address)
            for feed in feeds {
                try connection.execute("INSERT INTO feed_round (round, feed) VALUES ($1, $2) ON CONFLICT (round, feed) DO NOTHING", [name, feed])
            }
        } catch {
            throw Failure(description: "the feeds' round \(name) in \(PostgresConnection.shown(state.absoluteString)): \(LinkStore.reason(error))")
        }
    }

    /// The next feed of the round that no machine has finished or is running, held for this
    /// machine until `finish`; nil when none is left.
    public func claim() throws(Failure) -> String? {
        precondition(claimed == nil, "finish the claimed feed first")
        do {
            try connection.execute("BEGIN")
            let rows = try connection.execute("""
                SELECT feed FROM feed_round WHERE round = $1 AND finished IS NULL ORDER BY feed LIMIT 1 FOR UPDATE SKIP LOCKED
                """, [name])
            guard let feed = rows.first?.first ?? nil else {
                try connection.execute("ROLLBACK")
                return nil
            }
            claimed = feed
            return feed
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw Failure(description: "cannot claim a feed of round \(name): \(error)")
        }
    }

    /// Marks the claimed feed finished with its outcome, and lets go of it.
    public func finish(outcome: String) throws(Failure) {
        guard let feed = claimed else { return }
        claimed = nil
        do {
            try connection.execute("UPDATE feed_round SET finished = now(), outcome = $3, machine = $4 WHERE round = $1 AND feed = $2",
                                   [name, feed, outcome, RunLock.holderLine("feed run --all", machine: true)])
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw Failure(description: "cannot record \(feed) as finished in round \(name): \(error)")
        }
    }

    /// Every feed of the round, by name.
    public func entries() throws(Failure) -> [Entry] {
        do {
            return try connection.execute("SELECT feed, outcome, machine FROM feed_round WHERE round = $1 ORDER BY feed", [name]).map {
                Entry(feed: $0[0] ?? "", outcome: $0[1], machine: $0[2])
            }
        } catch {
            throw Failure(description: "cannot read round \(name): \(error)")
        }
    }
}
