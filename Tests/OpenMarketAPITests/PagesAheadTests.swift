import Foundation
@testable import OpenMarketAPI
import OpenMarketContract
import Testing

/// Pages asked for ahead of their turn: as many in flight as asked, however few the cores.
@Suite("Pages ahead")
struct PagesAheadTests {
    /// Counts the fetches in flight; each waits (up to 3 s) until `target` are in flight at once.
    final class Gate: @unchecked Sendable {
        let condition = NSCondition()
        var now = 0
        var most = 0
        var asked: [Int] = []
        /// Fetches that gave up waiting for the others (fewer than `target` ever in flight together).
        var waitedInVain = 0
        let target: Int
        init(target: Int) { self.target = target }

        func fetch(_ number: Int) -> ProductPage {
            condition.lock()
            now += 1
            most = max(most, now)
            asked.append(number)
            condition.broadcast()
            let until = Date().addingTimeInterval(3)
            while most < target {
                if !condition.wait(until: until) {
                    if most < target { waitedInVain += 1 }
                    break
                }
            }
            now -= 1
            condition.unlock()
            return ProductPage(pageNo: number, itemsPerPage: 1, totalCount: 40, offset: number - 1, limit: 1, lastPage: 40,
                               hasNext: number < 40, hasPrev: number > 1, pages: [])
        }
    }

    /// On Dispatch's global queue the 8 blocked fetches reached 8 only after about 7 s (the pool
    /// grows a thread at a time while its threads block): a listing was over long before.
    @Test("8 pages ahead are 8 requests at once, on 2 cores; taken in order, each asked once")
    func inFlightAtOnce() throws {
        let gate = Gate(target: 8)
        let ahead = PagesAhead(from: 2, through: 40, inFlight: 8) { gate.fetch($0) }
        for number in 2...40 {
            let page = try #require(try ahead.take(number))
            #expect(page.pageNo == number)
        }
        #expect(gate.most == 8, "at most \(gate.most) pages were in flight at once")
        #expect(gate.waitedInVain == 0, "\(gate.waitedInVain) fetches waited 3 s for the others to be in flight")
        #expect(gate.asked.sorted() == Array(2...40))
        #expect(try ahead.take(41) == nil, "a page never asked for is the caller's to ask")
    }
}
