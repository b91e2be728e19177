import Foundation
import Synchronization

/// A gate a test shuts on the sandbox: after `shut(after:)`, that many more requests of its
/// kind are let through, and every further one is held (read, unanswered) until `open()`, or
/// until `holdAtMost` has passed. It starts open. A run can then be caught in the middle, killed or stopped, at a point that does not
/// depend on how loaded the machine is or how late the test's own polls come back.
public final class RequestGate: Sendable, Equatable {
    /// Which requests the gate counts and holds (`GET /healthChecker` never).
    public enum Kind: Sendable {
        /// POST, PATCH, DELETE.
        case writes
        /// GET.
        case reads
        /// POST /api/products: a product made.
        case registers
        case all
    }

    public let kind: Kind
    /// A held request goes on after this long even if the gate stays shut, so that a test that
    /// forgets to open it cannot hang the sandbox's stop.
    public let holdAtMost: Duration

    private struct State {
        var passed = 0
        var open = true
        var after = 0
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextTicket = 0
        /// Tickets whose time ran out before they were waiting.
        var expired: Set<Int> = []
    }

    private let state = Mutex(State())

    public init(kind: Kind = .all, holdAtMost: Duration = .seconds(120)) {
        self.kind = kind
        self.holdAtMost = holdAtMost
    }

    /// Requests of its kind let through so far (held ones not counted until they go on).
    public var passed: Int { state.withLock { $0.passed } }
    /// Requests waiting at the gate now.
    public var held: Int { state.withLock { $0.waiting.count } }

    /// Lets `count` more requests through, then holds the rest.
    public func shut(after count: Int) {
        state.withLock { state in
            state.open = false
            state.after = state.passed + max(0, count)
        }
    }

    /// Lets every held request and every later one through.
    public func open() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume() }
    }

    func counts(method: String, path: String) -> Bool {
        switch kind {
        case .all: true
        case .reads: method == "GET"
        case .writes: method != "GET" && method != "HEAD"
        case .registers: method == "POST" && path == "/api/products"
        }
    }

    /// Waits at the gate when it is shut and its count is reached.
    func pass() async {
        let ticket: Int? = state.withLock { state in
            if state.open || state.passed < state.after {
                state.passed += 1
                return nil
            }
            state.nextTicket += 1
            return state.nextTicket
        }
        guard let ticket else { return }
        let limit = holdAtMost
        let timer = Task { [weak self] in
            try? await Task.sleep(for: limit)
            self?.release(ticket)
        }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.open || state.expired.remove(ticket) != nil { return true }
                state.waiting[ticket] = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
        timer.cancel()
        state.withLock { $0.passed += 1 }
    }

    private func release(_ ticket: Int) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiting = state.waiting.removeValue(forKey: ticket) else {
                if !state.open { state.expired.insert(ticket) }
                return nil
            }
            return waiting
        }
        continuation?.resume()
    }

    public static func == (a: RequestGate, b: RequestGate) -> Bool { a === b }
}
