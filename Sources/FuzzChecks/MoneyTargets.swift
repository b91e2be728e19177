import Foundation
import OpenMarketContract
import Manifest

/// Prices as merchants write them (`₩12,000`, `12.000,50 €`, `USD 9.99`): an amount, or a
/// problem with its rule; the amount printed and parsed again is the same amount and text.
enum MoneyTargets {
    static let all: [FuzzTarget] = [
        FuzzTarget("money", reads: "a price or discount cell, with currency symbols, codes and separators") { data throws(FuzzFinding) in
            let raw = String(decoding: data.prefix(200), as: UTF8.self)
            switch Money.parse(raw) {
            case .failure(let problem):
                if problem.rule.isEmpty || problem.message.isEmpty { throw FuzzFinding("a money problem without rule or message: \(problem)") }
            case .success(let parsed):
                let text = Money.text(parsed.amount)
                guard case .success(let again) = Money.parse(text) else {
                    throw FuzzFinding("\(RoundTrip.quoted(raw)) parsed as \(text), which does not parse again")
                }
                if again.amount != parsed.amount || Money.text(again.amount) != text {
                    throw FuzzFinding("\(RoundTrip.quoted(raw)) parsed as \(text), which parses again as \(Money.text(again.amount))")
                }
                if let currency = parsed.currency, Money.currencyCode(currency) != currency {
                    throw FuzzFinding("\(RoundTrip.quoted(raw)) names the currency '\(currency)', which is not a currency code")
                }
            }
        },
    ]
}
