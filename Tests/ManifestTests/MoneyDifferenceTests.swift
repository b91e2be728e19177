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

private extension String {
    func leftPadding(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
