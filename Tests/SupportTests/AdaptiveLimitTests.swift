import Foundation
import Support
import Testing

/// The number of writes in flight, found against simulated servers: each round sends as many
/// as the limit allows and gives their answer times from the server's model.
@Suite("Writes in flight, found while the run goes")
struct AdaptiveLimitTests {
    /// Runs `rounds` rounds against a server whose answer time for `n` in flight is `latency(n)`
    /// (nil: overloaded); returns the limit after each round.
    static func simulate(_ limit: AdaptiveLimit, rounds: Int, latency: (Int) -> Double?) -> [Int] {
        var seen: [Int] = []
        for _ in 0..<rounds {
            let n = limit.state.limit
            for _ in 0..<n { limit.acquire() }
            #expect(limit.state.inFlight == n)
            let answer = latency(n)
            for _ in 0..<n { limit.release(answer.map { .answered(seconds: $0) } ?? .overloaded) }
            seen.append(limit.state.limit)
        }
        return seen
    }

    @Test("a far server that takes what it is given: doubled each round up to the ceiling, then held")
    func farServer() {
        let limit = AdaptiveLimit(initial: 4, range: 1...24)
        let seen = Self.simulate(limit, rounds: 8) { _ in 0.150 }
        #expect(Array(seen.prefix(3)) == [8, 16, 24] && seen.last == 24, "\(seen)")
        #expect(limit.state.lowest == 4 && limit.state.highest == 24)
    }

    @Test("a server that slows down beyond 10 in flight (it queues the rest): the limit settles at 10 and the few Vegas keeps queued, not at the ceiling")
    func slowingServer() {
        let limit = AdaptiveLimit(initial: 4, range: 1...32)
        // 50 ms up to 10 in flight; beyond, each waits its turn: time grows with the queue.
        let seen = Self.simulate(limit, rounds: 40) { n in 0.050 * max(1, Double(n) / 10) }
        let settled = seen.suffix(20)
        #expect(settled.allSatisfy { (10...(10 + Int(AdaptiveLimit.manyQueued))).contains($0) }, "\(seen)")
        #expect(limit.state.highest < 32, "never ran to the ceiling: \(seen)")
    }

    @Test("an overload (429, 503, a timeout) halves the limit once per round; then it grows again by one a round")
    func overload() {
        let limit = AdaptiveLimit(initial: 16, range: 1...32)
        var calls = 0
        let seen = Self.simulate(limit, rounds: 4) { _ in
            calls += 1
            return calls == 1 ? nil : 0.05
        }
        // The round after the cut carries writes sent before it: it neither cuts nor grows.
        #expect(seen == [8, 8, 9, 10], "\(seen)")
        let low = AdaptiveLimit(initial: 1, range: 1...8)
        #expect(Self.simulate(low, rounds: 2) { _ in nil } == [1, 1], "never below the floor")
    }

    @Test("--jobs N: a fixed number, whatever the answers")
    func fixed() {
        let limit = AdaptiveLimit(initial: 8, range: 8...8, fixed: true)
        #expect(Self.simulate(limit, rounds: 5) { n in n > 4 ? nil : 0.01 } == [8, 8, 8, 8, 8])
    }

    @Test("a writer waits while the limit is taken, and goes on when one ends")
    func blocks() async throws {
        let limit = AdaptiveLimit(initial: 1, range: 1...1, fixed: true)
        limit.acquire()
        final class Acquired: @unchecked Sendable { let lock = NSLock(); var at: Date? }
        let acquired = Acquired()
        let waiter = Thread {
            limit.acquire()
            acquired.lock.withLock { acquired.at = Date() }
            limit.release(.answered(seconds: 0))
        }
        waiter.start()
        try await Task.sleep(for: .milliseconds(200))
        #expect(acquired.lock.withLock { acquired.at } == nil, "the second writer went past a limit of 1")
        let released = Date()
        limit.release(.answered(seconds: 0.2))
        let deadline = Date().addingTimeInterval(10)
        while acquired.lock.withLock({ acquired.at }) == nil, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let at = try #require(acquired.lock.withLock { acquired.at }, "the waiter never went on")
        #expect(at >= released)
    }
}
