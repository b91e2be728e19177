import Foundation
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

@Suite("Run folders")
struct RunFolderTests {
    @Test("runs started in the same second get folders of their own, made, in the order they asked")
    func sameSecond() throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("runfolder-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: parent) }
        let now = Date()
        let folders = try (0..<3).map { _ in try RunFolder.make(in: parent, prefix: "openmarket-report", date: now) }
        let stem = "openmarket-report-\(RunFolder.stamp(now))"
        #expect(folders.map(\.lastPathComponent) == [stem, stem + "-2", stem + "-3"])
        #expect(folders.allSatisfy { FileManager.default.fileExists(atPath: $0.path) })
    }
}
