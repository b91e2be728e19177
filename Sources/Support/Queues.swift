import Foundation

/// A FIFO with a capacity: `put` waits while it is full (backpressure),
/// `take` waits while it is empty, and returns nil once closed and drained.
public final class BoundedQueue<Element>: @unchecked Sendable {
    /// Taken slots are cleared at once, so that a taken item (a row with its photos)
    /// is freed as soon as its taker is done with it.
    private var items: [Element?] = []
    private var head = 0
    private var room: Int
    private var closed = false
    private let condition = NSCondition()

    public init(capacity: Int) { room = max(1, capacity) }

    /// How many items it holds at most; changed while it is used (a queue that follows an
    /// adaptive limit), a waiting `put` goes on as soon as there is room.
    public var capacity: Int {
        get { condition.withLock { room } }
        set {
            condition.withLock {
                room = max(1, newValue)
                condition.broadcast()
            }
        }
    }

    public func put(_ item: Element) {
        condition.lock()
        while items.count - head >= room && !closed { condition.wait() }
        if !closed { items.append(item) }
        condition.broadcast()
        condition.unlock()
    }

    public func take() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while items.count == head && !closed { condition.wait() }
        guard items.count > head, let item = items[head] else { return nil }
        items[head] = nil
        head += 1
        if head >= 64 {
            items.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return item
    }

    /// No more items will come; waiting takers get nil once it is empty.
    public func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Requests per second across all workers, and a shared pause after a 429.
public final class RateLimiter: @unchecked Sendable {
    private let interval: Double?
    private var next = 0.0
    private var pausedUntil = 0.0
    private let lock = NSLock()

    public init(perSecond: Double?) { interval = perSecond.map { 1 / $0 } }

    /// Waits for this worker's turn.
    public func acquire() {
        lock.lock()
        let now = Date().timeIntervalSince1970
        var at = max(now, pausedUntil)
        if let interval {
            at = max(at, next)
            next = at + interval
        }
        lock.unlock()
        let wait = at - now
        if wait > 0 { Thread.sleep(forTimeInterval: wait) }
    }

    /// The server said 429: every worker waits this long before its next request.
    public func pause(for seconds: Double) {
        lock.lock()
        pausedUntil = max(pausedUntil, Date().timeIntervalSince1970 + seconds)
        lock.unlock()
    }
}

/// Blocking work run on a thread of its own, awaited from async code (the commands'
/// bridge from ArgumentParser's async `run` to the blocking pipelines and libcurl).
public enum BlockingThread {
    public static func run<T: Sendable>(_ name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.name = name
            thread.start()
        }
    }
}
