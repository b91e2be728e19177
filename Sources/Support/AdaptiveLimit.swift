import Foundation

/// How many writes are in flight at once, found while the run goes instead of guessed: a
/// far server needs many to fill the round trips, a busy one fewer. After TCP's congestion
/// window (additive increase, multiplicative decrease) with a latency guard in the manner of
/// TCP Vegas: one more when a round of writes (as many as are allowed) came back healthy and
/// no slower than the fastest seen; one fewer when answers slow down as more are in flight
/// (the server queues them: more would not finish more); half on an overload (429, 503, a
/// timeout). `fixed` keeps the number (`--jobs N`). Safe from any thread.
public final class AdaptiveLimit: @unchecked Sendable {
    /// What one write came to.
    public enum Signal: Sendable {
        /// Answered; `seconds` from the request to its answer. `newConnection`: the write
        /// opened a connection (TCP and TLS handshakes: at a distance, round trips that say
        /// nothing of the server's queue), so its time is not compared.
        case answered(seconds: Double, newConnection: Bool = false)
        /// The server said it is overloaded (429, 503) or did not answer in time.
        case overloaded
        /// Nothing was sent (a step with no request): says nothing of the server.
        case nothingSent
    }

    public let range: ClosedRange<Int>
    public let fixed: Bool
    private let condition = NSCondition()
    private var limit: Int
    private var inFlight = 0
    /// The fastest answer seen: the server's own time with nothing queued. A server that got
    /// slower for good is measured again when even the floor queues.
    private var fastest: Double?
    /// The current round: answers since the limit last changed, and their time.
    private var roundAnswers = 0
    private var roundSeconds = 0.0
    /// Answers of the round whose time is compared (on connections already open).
    private var roundTimed = 0
    private var overloadedThisRound = false
    /// Doubling each healthy round until the first sign of queueing or overload (TCP's slow
    /// start): a far server is filled in a few rounds, not one write at a time.
    private var slowStart = true
    private(set) var lowest: Int
    private(set) var highest: Int

    /// Answers slower than this many times the fastest mean the server is queueing.
    public static let queueing = 1.6
    /// Answers within this many times the fastest leave room for one more.
    public static let healthy = 1.25
    /// On a near server a few milliseconds are noise (a bigger photo, a busy core), not a
    /// queue: the thresholds are at least this far above the fastest.
    public static let queueingSlack = 0.020
    public static let healthySlack = 0.010

    public init(initial: Int, range: ClosedRange<Int>, fixed: Bool = false) {
        self.range = range
        self.fixed = fixed
        limit = min(max(initial, range.lowerBound), range.upperBound)
        lowest = limit
        highest = limit
    }

    /// Waits until a write may start.
    public func acquire() {
        condition.lock()
        while inFlight >= limit { condition.wait() }
        inFlight += 1
        condition.unlock()
    }

    /// A write ended: what it says of the server adjusts the limit.
    public func release(_ signal: Signal) {
        condition.lock()
        defer { condition.unlock() }
        inFlight -= 1
        if !fixed { adjust(signal) }
        condition.broadcast()
    }

    private func adjust(_ signal: Signal) {
        switch signal {
        case .nothingSent:
            return
        case .overloaded:
            // Once per round: the answers of writes sent before the cut say nothing new.
            if !overloadedThisRound {
                slowStart = false
                set(max(range.lowerBound, limit / 2))
                overloadedThisRound = true
            }
        case .answered(let seconds, let newConnection):
            roundAnswers += 1
            if !newConnection {
                fastest = min(fastest ?? seconds, seconds)
                roundTimed += 1
                roundSeconds += seconds
            }
            guard roundAnswers >= limit else { return }
            // A round of new connections only (a limit just raised at a distance): room to grow.
            guard roundTimed > 0, let fastest else {
                if !overloadedThisRound { set(min(range.upperBound, slowStart ? limit * 2 : limit + 1)) } else { newRound() }
                return
            }
            let mean = roundSeconds / Double(roundTimed)
            let healthy = mean <= max(fastest * Self.healthy, fastest + Self.healthySlack)
            let queueing = mean >= max(fastest * Self.queueing, fastest + Self.queueingSlack)
            if overloadedThisRound {
                newRound()
            } else if healthy {
                set(min(range.upperBound, slowStart ? limit * 2 : limit + 1))
            } else if queueing {
                if limit == range.lowerBound {
                    // Slow even with the fewest in flight: the server is slower now, for good.
                    self.fastest = mean
                    newRound()
                } else {
                    // Queueing: back to the last limit that was not (half, out of slow start).
                    set(max(range.lowerBound, slowStart ? limit / 2 : limit - 1))
                }
                slowStart = false
            } else {
                slowStart = false
                newRound()
            }
        }
    }

    private func set(_ value: Int) {
        limit = value
        lowest = min(lowest, value)
        highest = max(highest, value)
        newRound()
    }

    private func newRound() {
        roundAnswers = 0
        roundTimed = 0
        roundSeconds = 0
        overloadedThisRound = false
    }

    /// Writes allowed at once now, in flight now, and the range the limit went through.
    public var state: (limit: Int, inFlight: Int, lowest: Int, highest: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (limit, inFlight, lowest, highest)
    }
}
