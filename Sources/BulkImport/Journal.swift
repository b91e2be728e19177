import Foundation
import Support

/// One run's memory across crashes and re-runs: an `AppendLog` of JSON lines,
/// each on disk (fsync) before the write it announces is sent, or before the
/// row counts as done.
///
/// For every row: `sent` (the write is about to leave, with the time), then
/// `done` (the product id came back) or `failed`. A `sent` without a `done`
/// is a write whose outcome is unknown: the next run looks on the server first.
/// Identity (which product a merchant key is) lives in the account's link
/// store, not here: this file only carries one manifest's runs through crashes.
public final class Journal: @unchecked Sendable {
    public struct Entry: Codable, Sendable, Equatable {
        public enum Event: String, Codable, Sendable { case sent, done, failed }
        public var event: Event
        /// The row's key: its `key`/`sku`, or its name.
        public var key: String
        /// Hash of the row's content, to notice a row edited between runs.
        public var hash: String
        public var row: Int
        public var time: Double
        public var id: Int?
        public var error: String?
    }

    /// What the journal knows of one key, from its last entries.
    public enum State: Sendable, Equatable {
        case done(id: Int, hash: String)
        case sent(at: Double, hash: String)
        case failed
    }

    public var url: URL { log.url }
    private let log: AppendLog
    private let lock = NSLock()
    private var states: [String: State] = [:]

    /// `sink` replaces the file writer (tests of a full disk).
    public init(url: URL, sink: (any AppendLog.Sink)? = nil) throws {
        var states: [String: State] = [:]
        let decoder = JSONDecoder()
        log = try AppendLog(url: url, sink: sink) { line in
            guard let entry = try? decoder.decode(Entry.self, from: line) else { return }
            Self.apply(entry, to: &states)
        }
        self.states = states
    }

    private static func apply(_ entry: Entry, to states: inout [String: State]) {
        switch entry.event {
        case .sent: states[entry.key] = .sent(at: entry.time, hash: entry.hash)
        case .done: states[entry.key] = .done(id: entry.id ?? 0, hash: entry.hash)
        case .failed:
            // A failure after a success (a later update failing) keeps the product known.
            if case .done = states[entry.key] {} else { states[entry.key] = .failed }
        }
    }

    public func state(of key: String) -> State? {
        lock.lock()
        defer { lock.unlock() }
        return states[key]
    }

    /// The products this journal has seen created or updated.
    public var doneIDs: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return states.values.compactMap { if case .done(let id, _) = $0 { id } else { nil } }
    }

    /// Appends, and returns only once the line is on disk (fsync). Throws when
    /// it cannot be written: then nothing more may be sent in this run.
    public func record(_ event: Entry.Event, key: String, hash: String, row: Int, id: Int? = nil,
                       error: String? = nil) throws(AppendLog.Failure) {
        let entry = Entry(event: event, key: key, hash: hash, row: row, time: Date().timeIntervalSince1970, id: id, error: error)
        guard let line = try? JSONEncoder().encode(entry) else { return }
        try log.append(line, sync: true)
        lock.lock()
        Self.apply(entry, to: &states)
        lock.unlock()
    }
}
