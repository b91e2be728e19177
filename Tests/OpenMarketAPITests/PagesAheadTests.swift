import Foundation
@testable import OpenMarketAPI
import OpenMarketContract
import Testing

/// Pages asked for ahead of their turn: as many in flight as asked, however few the cores.
@Suite("Pages ahead")
struct PagesAheadTests {
    /// Counts the fetches in flight; each waits (up to 10 s) until `target` are in flight at once.
    final class Gate: @unchecked Sendable {
        let condition = NSCondition()
        var now = 0
        var most = 0
        var asked: [Int] = []
        let target: Int
        init(target: Int) { self.target = target }

        func fetch(_ number: Int) -> ProductPage {
            condition.lock()
            now += 1
            most = max(most, now)
            asked.append(number)
            condition.broadcast()
            let until = Date().addingTimeInterval(10)
            while most < target, condition.wait(until: until) {}
            now -= 1
            condition.unlock()
            return ProductPage(pageNo: number, itemsPerPage: 1, totalCount: 40, offset: number - 1, limit: 1, lastPage: 40,
                               hasNext: number < 40, hasPrev: number > 1, pages: [])
        }
    }

    @Test("8 pages ahead are 8 requests at once on 2 cores (Dispatch's global queue ran 2), taken in order, each asked once")
    func inFlightAtOnce() throws {
        let gate = Gate(target: 8)
        let ahead = PagesAhead(from: 2, through: 40, inFlight: 8) { gate.fetch($0) }
        for number in 2...40 {
            let page = try #require(try ahead.take(number))
            #expect(page.pageNo == number)
        }
        #expect(gate.most == 8, "at most \(gate.most) pages were in flight at once")
        #expect(gate.asked.sorted() == Array(2...40))
        #expect(try ahead.take(41) == nil, "a page never asked for is the caller's to ask")
    }
}
