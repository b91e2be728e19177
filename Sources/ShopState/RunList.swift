import Foundation

/// What wrote to an account: one vocabulary for the run record (`run.jsonl`), the link
/// store's run table and `openmarket runs`.
public enum RunKind: String, Sendable, Codable, CaseIterable {
    case `import`, feed, restore, migrate, delete, undo

    /// A kind written by a later version reads as an import (undo treats every kind alike).
    public init(stored: String) { self = RunKind(rawValue: stored) ?? .import }

    public init(from decoder: any Decoder) throws {
        self.init(stored: try decoder.singleValueContainer().decode(String.self))
    }
}

/// One run that wrote to the account (import, feed, restore, migrate, delete, undo), as
/// `openmarket runs` lists it.
public struct RecordedRun: Sendable, Equatable {
    public var folder: String
    public var kind: RunKind
    public var started: Date
    /// The manifest's path, or the folder of the run an undo takes back.
    public var source: String
    /// Rows by status, once the run ended (nil: it did not end, a crash or a stop).
    public var counts: [String: Int]?
    public var finished: Date?
    /// The run a sharded import's shards share (`--run NAME`); nil for a run of its own.
    public var runName: String?

    public init(folder: String, kind: RunKind, started: Date, source: String, counts: [String: Int]? = nil, finished: Date? = nil,
                runName: String? = nil) {
        self.runName = runName
        self.folder = folder
        self.kind = kind
        self.started = started
        self.source = source
        self.counts = counts
        self.finished = finished
    }
}
