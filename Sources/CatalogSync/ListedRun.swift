import Foundation
import ShopState

/// The account's runs as every door lists them (`openmarket runs`, the console's Runs page):
/// a sharded run once, its shards' counts summed, from its first shard's start.
public struct ListedRun: Sendable {
    /// The run's newest record (a sharded run's: one of its shards').
    public var run: RecordedRun
    /// Rows by status; summed over a sharded run's shards; nil: a run of its own that did not finish.
    public var counts: [String: Int]?
    public var started: Date
    /// A sharded run's shard records (its attempts), and those that did not finish; 0 for a run of its own.
    public var shards = 0
    public var unfinished = 0

    public var isSharded: Bool { run.runName != nil }

    /// `runs`, newest first, each sharded run once (where its newest shard stands).
    public static func grouped(_ runs: [RecordedRun]) -> [ListedRun] {
        var seen = Set<String>()
        return runs.compactMap { run in
            guard let name = run.runName else { return ListedRun(run: run, counts: run.counts, started: run.started) }
            guard seen.insert(name).inserted else { return nil }
            let shards = runs.filter { $0.runName == name }
            var total: [String: Int] = [:]
            for shard in shards { shard.counts?.forEach { total[$0.key, default: 0] += $0.value } }
            return ListedRun(run: run, counts: total, started: shards.map(\.started).min() ?? run.started,
                             shards: shards.count, unfinished: shards.filter { $0.counts == nil }.count)
        }
    }
}
