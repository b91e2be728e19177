import Foundation
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
        let rule = rules.first { $0.matches(cost: cost, cell: cell) }
        let settings = rule.map { defaults.overridden(by: $0.settings) } ?? defaults
        let markup = settings.markupPercent ?? 0
        let add = settings.add ?? 0
        let step = settings.roundTo ?? unit
        let mode = settings.round ?? .nearest
        var price = Self.round(cost * (1 + markup / 100) + add, to: step, mode)
        var parts = ["cost \(Self.grouped(cost))"]
        if markup != 0 { parts.append("markup \(Self.plain(markup)) %") }
        if add != 0 { parts.append("\(add > 0 ? "+" : "−") \(Self.grouped(abs(add)))") }
        if settings.roundTo != nil { parts.append("\(mode == .nearest ? "to the nearest" : mode.rawValue + " to") \(Self.grouped(step))") }
        if let margin = settings.minMarginPercent {
            let floor = Self.round(cost * (1 + margin / 100), to: step, .up)
            if price < floor {
                price = floor
                parts.append("raised to the \(Self.plain(margin)) % minimum margin")
            }
        }
        if let rule { parts.append(rule.text) }
        return (price, parts.joined(separator: ", "))
    }

    /// `value` to a multiple of `step`, exactly (Decimal throughout).
    static func round(_ value: Decimal, to step: Decimal, _ mode: Rounding) -> Decimal {
        guard step > 0 else { return value }
        var quotient = value / step
        var whole = Decimal()
        let roundingMode: NSDecimalNumber.RoundingMode = switch mode {
        case .up: .up
        case .down: .down
        case .nearest: .plain
        }
        NSDecimalRound(&whole, &quotient, 0, roundingMode)
        return whole * step
    }

    /// `8200` → `8,200`; decimals kept (`12.5`).
    static func grouped(_ value: Decimal) -> String {
        let text = Money.text(value)
        let negative = text.hasPrefix("-")
        let digits = negative ? String(text.dropFirst()) : text
        let parts = digits.split(separator: ".", maxSplits: 1)
        var whole = String(parts[0])
        var groups: [String] = []
        while whole.count > 3 {
            groups.insert(String(whole.suffix(3)), at: 0)
            whole = String(whole.dropLast(3))
        }
        groups.insert(whole, at: 0)
        return (negative ? "-" : "") + groups.joined(separator: ",") + (parts.count > 1 ? "." + parts[1] : "")
    }

    static func plain(_ value: Decimal) -> String { Money.text(value) }
}
