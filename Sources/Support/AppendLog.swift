#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A file of lines that only grows: the memory of a run across crashes (the
/// import's journal, the export's state).
///
/// - Opening replays every whole line and repairs a torn tail (a line cut by a
///   crash or a full disk is cut off, so that the next line starts clean).
/// - `append` throws when the line cannot be written or made durable. After
///   one failure every later append throws too: the file may end in a torn
///   line, and nothing may be written past it in this run (the next open repairs it).
/// - With `sync`, `append` returns once the line is on disk (fsync); appends
///   from several threads at once share one fsync (group commit).
public final class AppendLog: @unchecked Sendable {
    /// Writes bytes at the end of the log; tests put a failing one in its place.
    public protocol Sink: Sendable {
        /// Writes all of `bytes`, or throws (some of them may have been written).
        func write(_ bytes: UnsafeRawBufferPointer) throws
        func sync() throws
        func close()
    }

    public struct Failure: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "cannot write \(path): \(reason)" }

        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    public let url: URL
    private let sink: any Sink
    private let lock = NSLock()
    private let syncLock = NSLock()
    private var written: UInt64 = 0
    private var synced: UInt64 = 0
    private var failure: Failure?

    /// Opens (creating it and its folder) the log at `url`; `replay` is handed
    /// each whole line already there, in order. A torn last line is removed
    /// from the file. `sink` replaces the file writer (tests).
    public init(url: URL, sink: (any Sink)? = nil, replay: (Data) throws -> Void = { _ in }) throws {
        self.url = url
        let manager = FileManager.default
        try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !manager.fileExists(atPath: url.path) {
            guard manager.createFile(atPath: url.path, contents: nil) else {
                throw Failure(path: url.path, reason: "the file cannot be created")
            }
        }
        // Read a mebibyte at a time, each whole line handed over as it is found: a journal of a
        // big shop's first import is tens of megabytes, never all in memory at once.
        guard let input = FileHandle(forReadingAtPath: url.path) else {
            throw Failure(path: url.path, reason: "the file cannot be read")
        }
        defer { try? input.close() }
        var whole = 0
        var size = 0
        var carry: [UInt8] = []
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
            size += chunk.count
            carry.append(contentsOf: chunk)
            var start = 0
            try carry.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                while start < raw.count, let found = memchr(base + start, 0x0A, raw.count - start) {
                    let newline = UnsafeRawPointer(found) - base
                    if newline > start { try replay(Data(bytes: base + start, count: newline - start)) }
                    whole += newline - start + 1
                    start = newline + 1
                }
            }
            carry.removeFirst(start)
        }
        if whole < size {
            // A line cut by a crash: everything before it counts, the cut part is dropped.
            guard truncate(url.path, off_t(whole)) == 0 else {
                throw Failure(path: url.path, reason: "a torn last line cannot be removed: \(String(cString: strerror(errno)))")
            }
        }
        self.sink = try sink ?? FileSink(path: url.path)
    }

    deinit { sink.close() }

    /// The first failure, if a write failed.
    public var failed: Failure? {
        lock.lock()
        defer { lock.unlock() }
        return failure
    }

    /// Appends one line (a newline is added). Throws if it cannot be written, or
    /// with `sync`, made durable.
    public func append(_ line: Data, sync: Bool) throws(Failure) {
        var bytes = line
        bytes.append(0x0A)
        lock.lock()
        if let failure {
            lock.unlock()
            throw failure
        }
        do {
            try bytes.withUnsafeBytes { try sink.write($0) }
        } catch {
            let failure = Failure(path: url.path, reason: Self.reason(error))
            self.failure = failure
            lock.unlock()
            throw failure
        }
        written += 1
        let mine = written
        lock.unlock()
        guard sync else { return }

        syncLock.lock()
        defer { syncLock.unlock() }
        lock.lock()
        let covered = synced >= mine
        let target = written
        lock.unlock()
        guard !covered else { return }
        do {
            try sink.sync()
        } catch {
            lock.lock()
            let failure = self.failure ?? Failure(path: url.path, reason: Self.reason(error))
            self.failure = failure
            lock.unlock()
            throw failure
        }
        lock.lock()
        synced = max(synced, target)
        lock.unlock()
    }

    /// Appends and, when `sync` is nil, fsyncs at most once a second
    /// (a kill loses nothing the kernel has; a power cut at most the last second).
    private var lastSync = Date()
    public func appendSoon(_ line: Data) throws(Failure) {
        lock.lock()
        let due = Date().timeIntervalSince(lastSync) > 1
        if due { lastSync = Date() }
        lock.unlock()
        try append(line, sync: due)
    }

    /// Closes the log and deletes its file (a finished export).
    public func remove() {
        lock.lock()
        sink.close()
        failure = Failure(path: url.path, reason: "removed")
        lock.unlock()
        try? FileManager.default.removeItem(at: url)
    }

    static func reason(_ error: any Error) -> String {
        if let posix = error as? POSIXErrorReason { return posix.text }
        return "\(error)"
    }
}

/// An errno as a sentence ("No space left on device").
struct POSIXErrorReason: Error {
    var code: Int32
    var text: String { String(cString: strerror(code)) }
}

/// The log's file, written with write(2) and made durable with fsync(2).
final class FileSink: AppendLog.Sink, @unchecked Sendable {
    private var fd: Int32

    init(path: String) throws {
        fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw AppendLog.Failure(path: path, reason: String(cString: strerror(errno))) }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXErrorReason(code: errno)
            }
            offset += count
        }
    }

    func sync() throws {
        guard fsync(fd) == 0 else { throw POSIXErrorReason(code: errno) }
    }

    func close() {
        if fd >= 0 { _ = Glibc.close(fd); fd = -1 }
    }
}
