import Foundation

/// How many writes are in flight at once, found while the run goes instead of guessed: a
/// far server needs many to fill the round trips, a busy one fewer. TCP Vegas's rule on
/// requests: after each round of writes (as many as are allowed), the writes waiting in the
/// server's queue are estimated from how much slower the round answered than the fastest
/// answer seen — `limit × (mean − fastest) / mean` (with `limit` in flight and `fastest` the
/// time of one with nothing queued, the rest of `mean` is waiting). Fewer than `fewQueued`:
/// one more (doubling at first, as TCP's slow start); more than `manyQueued`: one fewer; in
/// between, held. Answers that grow with the round trip but not with the queue (a far
/// server) keep growing the limit; a busy server's queue stops it. Half on an overload (429,
/// 503, a timeout). `fixed` keeps the number (`--jobs N`). Safe from any thread.
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
    /// Counts the limit's changes, for tickets.
    private var round = 0
    /// Doubling each healthy round until the first sign of queueing or overload (TCP's slow
    /// start): a far server is filled in a few rounds, not one write at a time.
    private var slowStart = true
    private(set) var lowest: Int
    private(set) var highest: Int

    /// Writes estimated waiting in the server's queue below which one more is sent…
    public static let fewQueued = 2.0
    /// …and above which one fewer.
    public static let manyQueued = 4.0
    /// On a near server a few milliseconds are noise (a bigger photo, a busy core), not a
    /// queue: answers within this of the fastest count as not waiting.
    public static let slack = 0.005

    public init(initial: Int, range: ClosedRange<Int>, fixed: Bool = false) {
        self.range = range
        self.fixed = fixed
        limit = min(max(initial, range.lowerBound), range.upperBound)
        lowest = limit
        highest = limit
    }

    /// The round a write started in: only writes sent at the current limit judge it (as TCP
    /// judges a window by the acknowledgements of what it sent with it). A write sent before
    /// the last change was answered with fewer, or more, in flight.
    public struct Ticket: Sendable {
        let round: Int
    }

    /// Waits until a write may start.
    @discardableResult
    public func acquire() -> Ticket {
        condition.lock()
        while inFlight >= limit { condition.wait() }
        inFlight += 1
        let ticket = Ticket(round: round)
        condition.unlock()
        return ticket
    }

    /// A write ended: what it says of the server adjusts the limit (an overload whenever it
    /// came; an answer when its write was sent in the current round).
    public func release(_ signal: Signal, ticket: Ticket? = nil) {
        condition.lock()
        defer { condition.unlock() }
        inFlight -= 1
        if !fixed {
            if case .answered = signal, let ticket, ticket.round != round {
                // Sent at the limit before the last change: says nothing of this one.
            } else {
                adjust(signal)
            }
        }
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
            // The first round, all on new connections: nothing to judge, room to grow.
            guard let fastest else {
                if !overloadedThisRound { set(min(range.upperBound, slowStart ? limit * 2 : limit + 1)) } else { newRound() }
                return
            }
            // A round mostly of writes that opened connections (a limit just raised): the timed
            // few were served first, the queue is in the others. Held for a round that says.
            guard roundTimed * 2 >= roundAnswers else {
                newRound()
                return
            }
            let mean = roundSeconds / Double(roundTimed)
            let queued = Double(limit) * max(0, mean - fastest - Self.slack) / mean
            let healthy = queued < Self.fewQueued
            let queueing = queued > Self.manyQueued
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
        if value != limit { round += 1 }
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
