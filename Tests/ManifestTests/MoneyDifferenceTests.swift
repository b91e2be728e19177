import Foundation
@testable import Manifest
import OpenMarketContract
import Testing
import TestSupport

/// A sale price's discount is subtracted in whole numbers when both cells are plain numbers
/// (issue 80): the same Decimal as `Decimal`'s own subtraction, on random prices of 0 to 2
/// decimals, and none when the digits would not fit.
@Suite("A discount subtracted in whole numbers, as Decimal subtracts")
struct PlainDifferenceTests {
    @Test("5,000 random pairs: the same amount, written the same (the fuzz target sale-discount reads many more)")
    func sameAmount() throws {
        var generator = SplitMix(seed: 81)
        for _ in 0..<5_000 {
            let a = (value: generator.next() % 10_000_000, decimals: Int(generator.next() % 3))
            let b = (value: generator.next() % 10_000_000, decimals: Int(generator.next() % 3))
            let text = { (n: (value: UInt64, decimals: Int)) -> String in
                n.decimals == 0 ? "\(n.value)" : "\(n.value / (n.decimals == 1 ? 10 : 100)).\(String(n.value % (n.decimals == 1 ? 10 : 100)).leftPadding(n.decimals))"
            }
            let x = try #require(Money.plainScaled(text(a))), y = try #require(Money.plainScaled(text(b)))
            let exact = try #require(Money.plainNumber(text(a))).amount - (try #require(Money.plainNumber(text(b)))).amount
            let fast = Money.difference(x, y)
            if exact < 0 {
                #expect(fast == nil)
            } else if fast != exact || fast.map(Money.text) != Money.text(exact) || "\(fast!)" != "\(exact)" {
                Issue.record("\(text(a)) − \(text(b)): \(String(describing: fast)), Decimal says \(exact)")
                return
            }
        }
        #expect(Money.difference((UInt64.max / 2, 0), (1, 2)) == nil)
    }
}

/// A map's choice (Cafe24's 소비자가 above 판매가) compares plain amounts in whole numbers (issue 80):
/// the same order as `Money.parse`'s Decimals, on random amounts written as merchants write them.
@Suite("Plain amounts compared in whole numbers, as Decimals compare")
struct PlainOrderTests {
    @Test("5,000 random pairs, grouped by commas or not, 0 to 2 decimals, often equal: the order Decimal says")
    func sameOrder() throws {
        var generator = SplitMix(seed: 82)
        func written(_ value: UInt64, _ decimals: Int, grouped: Bool) -> String {
            let scale: UInt64 = decimals == 0 ? 1 : decimals == 1 ? 10 : 100
            var whole = String(value / scale)
            if grouped {
                var groups: [String] = []
                while whole.count > 3 { groups.insert(String(whole.suffix(3)), at: 0); whole.removeLast(3) }
                whole = ([whole] + groups).joined(separator: ",")
            }
            return decimals == 0 ? whole : whole + "." + String(value % scale).leftPadding(decimals)
        }
        var equal = 0
        for _ in 0..<5_000 {
            let a = generator.next() % 5_000_000
            // Half the pairs near each other, some the same amount written with other decimals.
            let b = generator.next() % 2 == 0 ? a + generator.next() % 3 - 1 : generator.next() % 5_000_000
            let da = Int(generator.next() % 3), db = Int(generator.next() % 3)
            let ta = written(a * [1, 10, 100][da], da, grouped: generator.next() % 2 == 0)
            let tb = written(b * [1, 10, 100][db], db, grouped: generator.next() % 2 == 0)
            guard case .success(let x) = Money.parse(ta), case .success(let y) = Money.parse(tb) else {
                Issue.record("\(ta) or \(tb) is no amount"); return
            }
            let expected: ComparisonResult = x.amount < y.amount ? .orderedAscending : x.amount > y.amount ? .orderedDescending : .orderedSame
            if expected == .orderedSame { equal += 1 }
            if Money.plainOrder(ta, tb) != expected {
                Issue.record("\(ta) against \(tb): \(String(describing: Money.plainOrder(ta, tb))), Decimal says \(expected)"); return
            }
        }
        #expect(equal > 500)
        // Not plain, or too many digits once scaled: nil (the choice parses them the long way).
        #expect(Money.plainOrder("₩1,000", "900") == nil)
        #expect(Money.plainOrder("-5", "3") == nil)
        #expect(Money.plainOrder("999999999999999999", "0.25") == nil)
    }
}

private extension String {
    func leftPadding(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
