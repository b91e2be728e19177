import Foundation
import GRDB

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

    public init(folder: String, kind: RunKind, started: Date, source: String, counts: [String: Int]? = nil, finished: Date? = nil) {
        self.folder = folder
        self.kind = kind
        self.started = started
        self.source = source
        self.counts = counts
        self.finished = finished
    }
}

extension LinkStore {
    /// Records a run as begun. A resumed run (stopped, run again in the same folder)
    /// keeps its first start; a new run in a folder replaces the one before.
    public func beginRun(_ run: RecordedRun, resumed: Bool) throws(Failure) {
        try write { db in
            try db.execute(sql: "INSERT OR \(resumed ? "IGNORE" : "REPLACE") INTO run (folder, kind, started, source) VALUES (?, ?, ?, ?)",
                           arguments: [run.folder, run.kind.rawValue, run.started.timeIntervalSince1970, run.source])
        }
    }

    public func finishRun(folder: String, counts: [String: Int]) throws(Failure) {
        let text = (try? JSONEncoder().encode(counts)).map { String(decoding: $0, as: UTF8.self) }
        try write { db in
            try db.execute(sql: "UPDATE run SET counts = ?, finished = ? WHERE folder = ?",
                           arguments: [text, Date().timeIntervalSince1970, folder])
        }
    }

    /// The account's runs, newest first.
    public func runs(limit: Int = 1000) throws(Failure) -> [RecordedRun] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM run ORDER BY started DESC LIMIT ?", arguments: [limit]).map { row in
                let counts = (row["counts"] as String?).flatMap { try? JSONDecoder().decode([String: Int].self, from: Data($0.utf8)) }
                return RecordedRun(folder: row["folder"], kind: RunKind(stored: row["kind"]), started: Date(timeIntervalSince1970: row["started"]),
                                   source: row["source"], counts: counts,
                                   finished: (row["finished"] as Double?).map(Date.init(timeIntervalSince1970:)))
            }
        }
    }
}
