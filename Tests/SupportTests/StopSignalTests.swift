import Dispatch
import Support
import Testing

@Suite("A graceful stop")
struct StopSignalTests {
    @Test("the first reason of many threads is kept, and only one caller is told it was first")
    func firstReasonWins() {
        let signal = StopSignal()
        #expect(!signal.isStopping && signal.reason == nil)
        let firsts = Counter()
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            if signal.stop("reason \(index)") { firsts.add() }
        }
        #expect(firsts.value == 1)
        #expect(signal.isStopping && signal.reason?.hasPrefix("reason ") == true)
        #expect(!signal.stop("later"), "a later reason does not replace the first")
    }

    final class Counter: @unchecked Sendable {
        private let queue = DispatchQueue(label: "counter")
        private var count = 0
        func add() { queue.sync { count += 1 } }
        var value: Int { queue.sync { count } }
    }
}
