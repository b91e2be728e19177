import Foundation
import Support
import Testing

@Suite("Group commit")
struct GroupCommitTests {
    @Test("items submitted while a commit runs wait and share the next one; each is committed once, before its caller returns")
    func shared() throws {
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var committed: [[Int]] = []
            var returned: [Int: Int?] = [:]
            var submitting = 0
        }
        let group = GroupCommit<Int>()
        let seen = Seen()
        // Threads of their own: a pool of two cores' width would not start the others while one waits.
        let done = DispatchGroup()
        for item in 0..<8 {
            done.enter()
            Thread {
                defer { done.leave() }
            seen.lock.withLock { seen.submitting += 1 }
            try? group.submit(item) { batch in
                // The first commit holds until every caller has come (a slow disk's sync): the
                // others queue meanwhile, whatever the machine's load.
                if seen.lock.withLock({ seen.committed.isEmpty }) {
                    let deadline = Date().addingTimeInterval(10)
                    while seen.lock.withLock({ seen.submitting }) < 8, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
                    Thread.sleep(forTimeInterval: 0.2)
                }
                seen.lock.withLock { seen.committed.append(batch) }
            }
            seen.lock.withLock { seen.returned[item] = seen.committed.firstIndex { $0.contains(item) } }
            }.start()
        }
        done.wait()
        let committed = seen.committed, returned = seen.returned
        let all = committed.flatMap { $0 }
        #expect(all.count == 8 && Set(all).count == 8)
        #expect(returned.count == 8 && returned.values.allSatisfy { $0 != nil })
        #expect(committed.count <= 3, "\(committed) commits for 8 items")
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
