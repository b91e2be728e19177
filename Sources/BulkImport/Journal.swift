import Foundation

/// The import's memory across crashes and re-runs: an append-only file of
/// JSON lines, each flushed to disk (fsync) before the row counts as done.
///
/// For every row: `sent` (the write is about to leave, with the time), then
/// `done` (the product id came back) or `failed`. A `sent` without a `done`
/// is a write whose outcome is unknown: the next run looks on the server first.
public final class Journal: @unchecked Sendable {
    public struct Entry: Codable, Sendable, Equatable {
        public enum Event: String, Codable, Sendable { case sent, done, failed }
        public var event: Event
        /// The row's key: its `key`/`sku`, or a hash of its content.
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

    public let url: URL
    private let handle: FileHandle
    private let lock = NSLock()
    /// One fsync at a time; each covers every line written before it started, so
    /// that workers recording at the same moment share one (group commit).
    private let syncLock = NSLock()
    private var written: UInt64 = 0
    private var synced: UInt64 = 0
    public private(set) var states: [String: State] = [:]

    public init(url: URL) throws {
        self.url = url
        if FileManager.default.fileExists(atPath: url.path) {
            let data = try Data(contentsOf: url)
            // A crash can cut the last line: everything before it still counts.
            for line in data.split(separator: 0x0A) {
                guard let entry = try? JSONDecoder().decode(Entry.self, from: line) else { continue }
                switch entry.event {
                case .sent: states[entry.key] = .sent(at: entry.time, hash: entry.hash)
                case .done: states[entry.key] = .done(id: entry.id ?? 0, hash: entry.hash)
                case .failed:
                    // A failure after a success (a later update failing) keeps the product known.
                    if case .done = states[entry.key] {} else { states[entry.key] = .failed }
                }
            }
        } else {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
            }
        }
        handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
    }

    deinit { try? handle.close() }

    public func state(of key: String) -> State? {
        lock.lock()
        defer { lock.unlock() }
        return states[key]
    }

    /// Appends, and returns only once the line is on disk (fsync).
    public func record(_ event: Entry.Event, key: String, hash: String, row: Int, id: Int? = nil, error: String? = nil) {
        let entry = Entry(event: event, key: key, hash: hash, row: row, time: Date().timeIntervalSince1970, id: id, error: error)
        guard var line = try? JSONEncoder().encode(entry) else { return }
        line.append(0x0A)
        lock.lock()
        handle.write(line)
        written += 1
        let mine = written
        switch event {
        case .sent: states[key] = .sent(at: entry.time, hash: hash)
        case .done: states[key] = .done(id: id ?? 0, hash: hash)
        case .failed: if case .done = states[key] {} else { states[key] = .failed }
        }
        lock.unlock()

        syncLock.lock()
        defer { syncLock.unlock() }
        lock.lock()
        let covered = synced >= mine
        let target = written
        lock.unlock()
        guard !covered else { return }
        try? handle.synchronize()
        lock.lock()
        synced = max(synced, target)
        lock.unlock()
    }
}
