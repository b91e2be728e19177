import Foundation
import Support
import Testing

@Suite("Group commit")
struct GroupCommitTests {
    @Test("items submitted together share commits; each is committed once, in a commit that returns before its caller does")
    func shared() throws {
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var committed: [[Int]] = []
            var returned: [Int: Int?] = [:]
        }
        let group = GroupCommit<Int>()
        let seen = Seen()
        DispatchQueue.concurrentPerform(iterations: 8) { lane in
            for n in 0..<50 {
                let item = lane * 1000 + n
                try? group.submit(item) { batch in
                    Thread.sleep(forTimeInterval: 0.0005)
                    seen.lock.withLock { seen.committed.append(batch) }
                }
                seen.lock.withLock { seen.returned[item] = seen.committed.firstIndex { $0.contains(item) } }
            }
        }
        let committed = seen.committed, returned = seen.returned
        let all = committed.flatMap { $0 }
        #expect(all.count == 400 && Set(all).count == 400)
        #expect(returned.count == 400 && returned.values.allSatisfy { $0 != nil })
        #expect(committed.count < 400, "\(committed.count) commits for 400 items")
    }

    @Test("a commit that fails fails every item in it, and the next commit is tried anew")
    func failure() {
        struct Full: Error {}
        let group = GroupCommit<Int>()
        #expect(throws: Full.self) { try group.submit(1) { _ in throw Full() } }
        var seen: [Int] = []
        #expect(throws: Never.self) { try group.submit(2) { seen += $0 } }
        #expect(seen == [2])
    }
}
