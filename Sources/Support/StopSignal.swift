import Foundation

/// A graceful stop asked of a long run (a signal, `--max-errors`, a disk that filled up):
/// the first reason given is kept, later ones are ignored; work in flight finishes, no new
/// work starts. Safe from any thread. Import, undo and export share it.
public final class StopSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var first: String?

    public init() {}

    /// Asks for a stop; returns whether this call was the first to ask.
    @discardableResult
    public func stop(_ reason: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard first == nil else { return false }
        first = reason
        return true
    }

    /// Why the run was asked to stop, if it was.
    public var reason: String? {
        lock.lock()
        defer { lock.unlock() }
        return first
    }

    public var isStopping: Bool { reason != nil }
}
