import Foundation

/// A graceful stop asked of a long run (a signal, `--max-errors`, a disk that filled up):
/// the first reason given is kept, later ones are ignored; work in flight finishes, no new
/// work starts. Safe from any thread. Import, undo and export share it.
public final class StopSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var first: String?
    private var firstCause: StopCause?
    private var firstSaid: (key: String, values: [String])?

    public init() {}

    /// Asks for a stop; returns whether this call was the first to ask. `cause`: what the stop
    /// says of the run, when more than any stop (the credentials refused at the first write).
    /// `said`: the message catalogue's id and values of the reason, when openmarket gave it, so
    /// that it is said in the reader's language (a reason in a server's words has none).
    @discardableResult
    public func stop(_ reason: String, cause: StopCause? = nil, said: (key: String, values: [String])? = nil) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard first == nil else { return false }
        first = reason
        firstCause = cause
        firstSaid = said
        return true
    }

    /// The first stop's reason as the catalogue's id and values, when it was given so.
    public var said: (key: String, values: [String])? {
        lock.lock()
        defer { lock.unlock() }
        return firstSaid
    }

    /// The cause the first stop gave, if it gave one.
    public var cause: StopCause? {
        lock.lock()
        defer { lock.unlock() }
        return firstCause
    }

    /// Why the run was asked to stop, if it was.
    public var reason: String? {
        lock.lock()
        defer { lock.unlock() }
        return first
    }

    public var isStopping: Bool { reason != nil }
}

/// Ctrl-C and SIGTERM turned into a graceful stop of one long run (a second one exits at
/// once, 130). Cancel the returned sources when the run ends.
public enum SignalStop {
    public static let notice = "\nStopping: rows in flight finish, no new rows start (again to stop at once)…\n"

    public static func install(_ stop: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            let count = SignalCount()
            source.setEventHandler {
                if count.next() > 1 { exit(130) }
                try? FileHandle.standardError.write(contentsOf: Data(notice.utf8))
                stop()
            }
            source.resume()
            return source
        }
    }

    private final class SignalCount: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
    }
}
