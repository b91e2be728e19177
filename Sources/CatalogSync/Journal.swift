import Foundation
import ShopState
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
/// Where a journal's lines are kept, chosen once from the account: a file of this machine (an
/// account kept here), or the account's shared state (every machine reads it, so that a run
/// killed on one and started again on another replays what the dead one wrote). Never both.
public protocol JournalStore: Sendable {
    /// Hands over every line written so far, oldest first.
    func replay(_ line: (Data) -> Void) throws
    /// Appends one line; with `durable`, on disk when it returns (else with the next durable
    /// line, or within a second: what a kill leaves the kernel still writes).
    func append(_ line: Data, durable: Bool) throws(AppendLog.Failure)
    /// Where it is, as the summary names it.
    var place: String { get }
}

/// A journal's lines in a file: an `AppendLog`, each line synced before `append` returns.
/// The file is opened (and its lines replayed, a mebibyte at a time) by `replay`.
final class FileJournal: JournalStore, @unchecked Sendable {
    private let url: URL
    private let sink: (any AppendLog.Sink)?
    private let lock = NSLock()
    private var log: AppendLog?

    /// `sink` replaces the file writer (tests of a full disk).
    init(url: URL, sink: (any AppendLog.Sink)? = nil) {
        self.url = url
        self.sink = sink
    }

    func replay(_ line: (Data) -> Void) throws {
        try lock.withLock {
            guard log == nil else { return }
            log = try AppendLog(url: url, sink: sink) { line($0) }
        }
    }

    func append(_ line: Data, durable: Bool) throws(AppendLog.Failure) {
        let log: AppendLog
        do {
            log = try lock.withLock {
                if let log = self.log { return log }
                let opened = try AppendLog(url: url, sink: sink)
                self.log = opened
                return opened
            }
        } catch {
            throw (error as? AppendLog.Failure) ?? AppendLog.Failure(path: url.path, reason: "\(error)")
        }
        if durable { try log.append(line, sync: true) } else { try log.appendSoon(line) }
    }

    var place: String { url.path }
}

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
        case done(id: Int, hash: RowHash)
        case sent(at: Double, hash: RowHash)
        case failed
    }

    /// A row's content hash as the journal remembers it for each key: 64 bits of it (the
    /// first 16 hex digits of a SHA-256, or a digest of any other text), no string per key, so
    /// that a journal of a million rows is not a million strings in memory. Only ever compared
    /// with the hash of the same key's row now.
    public struct RowHash: Sendable, Equatable, Hashable, ExpressibleByStringLiteral {
        let bits: UInt64

        public init(_ text: String) {
            let utf8 = Array(text.utf8.prefix(16))
            if text.utf8.count == 64, let bits = UInt64(String(decoding: utf8, as: UTF8.self), radix: 16) {
                self.bits = bits
            } else {
                // FNV-1a over the whole text.
                var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
                bits = hash
            }
        }

        public init(stringLiteral value: String) { self.init(value) }
    }

    /// Where the lines are (a file's path, or the shared state).
    public var place: String { store.place }
    private let store: any JournalStore
    private let lock = NSLock()
    /// Each key's state, held compactly (a journal of 50,000 keys in a dictionary took 5.3 MB).
    private var states = CompactMap<String, State>()

    /// The journal kept in `store`, its lines so far replayed in order.
    public init(store: any JournalStore) throws {
        let decoder = JSONDecoder()
        var states = CompactMap<String, State>()
        try store.replay { line in
            if let entry = Entry(line: line) ?? (try? decoder.decode(Entry.self, from: line)) { Self.apply(entry, to: &states) }
        }
        states.compact()
        self.states = states
        self.store = store
    }

    /// A journal in a file of this machine; `sink` replaces the file writer (tests of a full disk).
    public convenience init(url: URL, sink: (any AppendLog.Sink)? = nil) throws {
        try self.init(store: FileJournal(url: url, sink: sink))
    }

    private static func apply(_ entry: Entry, to states: inout CompactMap<String, State>) {
        switch entry.event {
        case .sent: states[entry.key] = .sent(at: entry.time, hash: RowHash(entry.hash))
        case .done: states[entry.key] = .done(id: entry.id ?? 0, hash: RowHash(entry.hash))
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
        return states.compactMap { if case .done(let id, _) = $0.value { id } else { nil } }
    }

    /// Appends. A `sent` line returns only once it is on disk (fsync): it is what makes a write
    /// whose answer is lost looked up instead of sent again. `done` and `failed` are written at
    /// once and made durable with the next `sent` (or within a second): the product's link is
    /// on disk before the row is done, and a `done` lost to a power cut leaves a `sent`, which
    /// the next run looks up. Throws when it cannot be written: then nothing more may be sent.
    /// `durable: false` for a `sent` line whose intent another durable record states (a
    /// create's pending link).
    public func record(_ event: Entry.Event, key: String, hash: String, row: Int, id: Int? = nil,
                       error: String? = nil, durable: Bool = true) throws(AppendLog.Failure) {
        let entry = Entry(event: event, key: key, hash: hash, row: row, time: Date().timeIntervalSince1970, id: id, error: error)
        guard let line = try? JSONEncoder().encode(entry) else { return }
        try store.append(line, durable: event == .sent && durable)
        lock.lock()
        Self.apply(entry, to: &states)
        lock.unlock()
    }
}

/// A journal in the shared state (the account's record lines), and nowhere else: a shard's under
/// `journal NAME`, one part per shard; another run's under `journal FILE` (the journal's own file
/// name, the same on every machine that reads the sheet at one path). A run killed and started
/// again on another machine replays what the dead one wrote — the rows it finished, the writes
/// it sent without hearing back.
public struct SharedJournal: JournalStore {
    let store: LinkStore
    let run: String
    let part: String

    public init(store: LinkStore, run: String, shard: Shard) {
        self.store = store
        self.run = "journal \(run)"
        part = shard.description
    }

    public init(store: LinkStore, journal: URL) {
        self.store = store
        run = "journal \(journal.lastPathComponent)"
        part = "whole"
    }

    public func replay(_ line: (Data) -> Void) throws {
        for text in try store.record(run: run)[part] ?? [] { line(Data(text.utf8)) }
    }

    /// Every line is a committed row of the database.
    public func append(_ line: Data, durable: Bool) throws(AppendLog.Failure) {
        do { try store.appendRecord(run: run, part: part, line: String(decoding: line, as: UTF8.self)) } catch {
            throw AppendLog.Failure(path: place, reason: "\(error)")
        }
    }

    public var place: String { "the shared state (\(run), \(part))" }
}
