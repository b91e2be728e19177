import Foundation
import OpenMarketContract
import Manifest

/// How a selling price is made from the supplier's cost, in Decimal from the cell to the
/// request: cost × (1 + markup %) + add, rounded to a multiple of `roundTo` (up, down or
/// nearest), never below cost × (1 + minimum margin %) rounded up. `8,200 × 1.30 = 10,660
/// → 10,700`, never `10,659.999`.
public struct PricePolicy: Sendable, Equatable {
    /// The settings of `[prices]`; each rule replaces those it names.
    public var defaults: PriceSettings
    /// `[[prices.rules]]`, in the file's order: the first that matches a row is used.
    public var rules: [PriceRule] = []

    public init(defaults: PriceSettings, rules: [PriceRule] = []) {
        self.defaults = defaults
        self.rules = rules
    }
}

public struct PriceSettings: Sendable, Equatable {
    public var markupPercent: Decimal?
    public var add: Decimal?
    public var roundTo: Decimal?
    public var round: Rounding?
    public var minMarginPercent: Decimal?

    public init(markupPercent: Decimal? = nil, add: Decimal? = nil, roundTo: Decimal? = nil, round: Rounding? = nil,
                minMarginPercent: Decimal? = nil) {
        self.markupPercent = markupPercent
        self.add = add
        self.roundTo = roundTo
        self.round = round
        self.minMarginPercent = minMarginPercent
    }

    /// These settings, with those `other` names put in their place.
    func overridden(by other: PriceSettings) -> PriceSettings {
        PriceSettings(markupPercent: other.markupPercent ?? markupPercent, add: other.add ?? add,
                      roundTo: other.roundTo ?? roundTo, round: other.round ?? round,
                      minMarginPercent: other.minMarginPercent ?? minMarginPercent)
    }
}

public enum Rounding: String, Sendable, Equatable, CaseIterable {
    case up, down, nearest
}

/// `[[prices.rules]]`: settings for the rows whose cells match every test of `when` and
/// whose cost is in range.
public struct PriceRule: Sendable, Equatable {
    /// Its position among the rules, from 1.
    public var number: Int
    public var when: [CellTest] = []
    /// The cost is at least this (`cost_at_least`) and below that (`cost_below`).
    public var costAtLeast: Decimal?
    public var costBelow: Decimal?
    public var settings: PriceSettings

    func matches(cost: Decimal, cell: (HeaderRef) -> String) -> Bool {
        if let low = costAtLeast, cost < low { return false }
        if let high = costBelow, cost >= high { return false }
        return when.allSatisfy { $0.matches(cell($0.source)) }
    }

    var text: String {
        var tests = when.map(\.text)
        if let low = costAtLeast { tests.append("cost ≥ \(PricePolicy.grouped(low))") }
        if let high = costBelow { tests.append("cost < \(PricePolicy.grouped(high))") }
        return "rule \(number) (\(tests.joined(separator: ", ")))"
    }
}

extension PricePolicy {
    /// The selling price for a cost, and how it was made (for reports and `feed test`).
    /// `unit` is the currency's smallest amount (1 won, 0.01 dollar), the rounding when
    /// the feed names none.
    public func price(cost: Decimal, unit: Decimal, cell: (HeaderRef) -> String) -> (price: Decimal, explanation: String) {
        PriceTable(self).price(cost: cost, unit: unit, cell: cell)
    }
}

/// A policy with each rule's settings resolved once (factors, rounding, the words of the
/// explanation), so that a row costs a multiplication, a rounding and one string.
struct PriceTable: Sendable {
    struct Resolved: Sendable {
        var factor: Decimal
        var add: Decimal
        var roundTo: Decimal?
        var mode: Rounding
        var marginFactor: Decimal?
        var margin: String
        /// `, markup 30 %, + 500, up to 100` (after the cost).
        var words: String
        /// `, rule 2 (cost < 2,000)`, or empty.
        var rule: String
    }

    let rules: [PriceRule]
    let byRule: [Resolved]
    let defaults: Resolved

    init(_ policy: PricePolicy) {
        rules = policy.rules
        defaults = Self.resolve(policy.defaults, rule: nil)
        byRule = policy.rules.map { Self.resolve(policy.defaults.overridden(by: $0.settings), rule: $0) }
    }

    static func resolve(_ settings: PriceSettings, rule: PriceRule?) -> Resolved {
        let markup = settings.markupPercent ?? 0
        let add = settings.add ?? 0
        let mode = settings.round ?? .nearest
        var words = ""
        if markup != 0 { words += ", markup \(PricePolicy.plain(markup)) %" }
        if add != 0 { words += ", \(add > 0 ? "+" : "−") \(PricePolicy.grouped(abs(add)))" }
        if let step = settings.roundTo { words += ", \(mode == .nearest ? "to the nearest" : mode.rawValue + " to") \(PricePolicy.grouped(step))" }
        return Resolved(factor: 1 + markup / 100, add: add, roundTo: settings.roundTo, mode: mode,
                        marginFactor: settings.minMarginPercent.map { 1 + $0 / 100 },
                        margin: settings.minMarginPercent.map { ", raised to the \(PricePolicy.plain($0)) % minimum margin" } ?? "",
                        words: words, rule: rule.map { ", \($0.text)" } ?? "")
    }

    func price(cost: Decimal, unit: Decimal, cell: (HeaderRef) -> String) -> (price: Decimal, explanation: String) {
        let settings = rules.firstIndex { $0.matches(cost: cost, cell: cell) }.map { byRule[$0] } ?? defaults
        let step = settings.roundTo ?? unit
        var price = PricePolicy.round(cost * settings.factor + settings.add, to: step, settings.mode)
        var raised = false
        if let margin = settings.marginFactor {
            let floor = PricePolicy.round(cost * margin, to: step, .up)
            if price < floor {
                price = floor
                raised = true
            }
        }
        return (price, "cost \(PricePolicy.grouped(cost))\(settings.words)\(raised ? settings.margin : "")\(settings.rule)")
    }
}

extension PricePolicy {
    /// `value` to a multiple of `step`, exactly (Decimal throughout); a power of ten
    /// (1, 100, 0.01) without a division.
    static func round(_ value: Decimal, to step: Decimal, _ mode: Rounding) -> Decimal {
        guard step > 0 else { return value }
        let roundingMode: NSDecimalNumber.RoundingMode = switch mode {
        case .up: .up
        case .down: .down
        case .nearest: .plain
        }
        var whole = Decimal()
        if step.significand == 1 {
            var value = value
            NSDecimalRound(&whole, &value, -step.exponent, roundingMode)
            return whole
        }
        var quotient = value / step
        NSDecimalRound(&whole, &quotient, 0, roundingMode)
        return whole * step
    }

    /// `8200` → `8,200`; decimals kept (`12.5`).
    static func grouped(_ value: Decimal) -> String {
        // Byte by byte (a feed's every row writes its cost so): a comma before each three digits
        // of the whole part counted from its end.
        let text = Array(Money.text(value).utf8)
        let start = text.first == UInt8(ascii: "-") ? 1 : 0
        let end = text.firstIndex(of: UInt8(ascii: ".")) ?? text.count
        var grouped: [UInt8] = Array(text[..<start])
        grouped.reserveCapacity(text.count + (end - start) / 3)
        for index in start..<end {
            if index > start, (end - index) % 3 == 0 { grouped.append(UInt8(ascii: ",")) }
            grouped.append(text[index])
        }
        grouped.append(contentsOf: text[end...])
        return String(decoding: grouped, as: UTF8.self)
    }

    static func plain(_ value: Decimal) -> String { Money.text(value) }
}
