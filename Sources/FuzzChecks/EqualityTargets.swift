import Foundation
import Manifest
import OpenMarketContract

/// Readers made faster in issue 80 beside the reading they replace, on any input: what the fast
/// one says is what the old one said (a difference is a finding).
enum EqualityTargets {
    static let all: [FuzzTarget] = [
        FuzzTarget("html-text", reads: "a description in HTML: made into text from its bytes and a Character at a time") { data throws(FuzzFinding) in
            let html = String(decoding: data.prefix(4096), as: UTF8.self)
            let bytes = HTMLText.plain(html), characters = HTMLText.plainByCharacters(html)
            if bytes != characters {
                throw FuzzFinding("\(RoundTrip.quoted(html)) reads as \(RoundTrip.quoted(bytes)) from its bytes, \(RoundTrip.quoted(characters)) a Character at a time")
            }
        },
        FuzzTarget("sale-discount", reads: "a price and a sale price (two lines): the discount in whole numbers and by Decimal") { data throws(FuzzFinding) in
            let lines = String(decoding: data.prefix(200), as: UTF8.self).split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
            guard lines.count == 2, let a = Money.plainScaled(String(lines[0])), let b = Money.plainScaled(String(lines[1])),
                  let x = Money.plainNumber(String(lines[0]))?.amount, let y = Money.plainNumber(String(lines[1]))?.amount else { return }
            let fast = Money.difference(a, b)
            if x < y {
                if let fast { throw FuzzFinding("\(lines[0]) − \(lines[1]) is below 0, yet whole numbers made \(fast)") }
                return
            }
            // None only when the digits do not fit a whole number (then Decimal subtracts).
            guard let fast else { return }
            let exact = x - y
            if fast != exact || Money.text(fast) != Money.text(exact) {
                throw FuzzFinding("\(lines[0]) − \(lines[1]): \(Money.text(fast)) in whole numbers, \(Money.text(exact)) by Decimal")
            }
        },
    ]
}
