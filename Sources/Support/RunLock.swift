import Foundation

/// A lock a run holds until it lets go (or its process ends): a file's `flock` (`RunLock`), or
/// a PostgreSQL session's advisory lock for an account whose state is shared.
public protocol HeldLock: AnyObject, Sendable {
    func release()
}

/// One run at a time (of an account, of a backup repository): an exclusive `flock` on a
/// file. The kernel lets go when the process ends, however it ends, so a run that died
/// never blocks the next; the file's text (pid, feed, since when) only names the holder.
public final class RunLock: HeldLock, @unchecked Sendable {
    private let descriptor: Int32
    private var released = false
    public let url: URL

    public struct Busy: Error, Sendable, CustomStringConvertible {
        /// What the running one wrote: `pid 4242, feed acme, since 2026-11-23T03:00:01Z`.
        public var holder: String
        /// What is locked: `this account`, `this repository`.
        public var subject: String
        public var description: String { "another run of \(subject) is running (\(holder)); this one did nothing" }

        public init(holder: String, subject: String) {
            self.holder = holder
            self.subject = subject
        }
    }

    /// What a lock's holder says of itself: `pid 4242, feed acme, since 2026-11-23T03:00:01Z`
    /// (with the machine's name when the lock is shared between machines).
    public static func holderLine(_ holder: String, machine: Bool = false) -> String {
        let host = machine ? (ProcessInfo.processInfo.hostName.isEmpty ? "" : " on \(ProcessInfo.processInfo.hostName)") : ""
        return "pid \(getpid())\(host), \(holder), since \(ISO8601DateFormatter().string(from: Date()))"
    }

    /// Takes the lock at once, or throws `Busy` naming the holder.
    public init(url: URL, holder: String, subject: String = "this account") throws {
        self.url = url
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let text = (try? String(contentsOf: url, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            close(descriptor)
            throw Busy(holder: text?.isEmpty == false ? text! : "a process that has not said which", subject: subject)
        }
        self.descriptor = descriptor
        let line = Self.holderLine(holder) + "\n"
        _ = ftruncate(descriptor, 0)
        _ = line.withCString { pwrite(descriptor, $0, strlen($0), 0) }
    }

    /// Lets go (also when the process ends).
    public func release() {
        guard !released else { return }
        released = true
        _ = ftruncate(descriptor, 0)
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    deinit { release() }
}
