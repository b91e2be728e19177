import Foundation
import Manifest
import OpenMarketContract

/// How a field's value is made from a row's cells, when it is more than one column
/// (`[columns]` in a map file):
///
/// - `"Header"`: the column as it is (a plain column is kept in `Feed.columns`);
/// - `"{Title} - {Option1 Value} / {Option2 Value}"`: a text made of fields; an empty field
///   drops with the separator before it;
/// - `["{Variant SKU}", "{Handle}/{Option1 Value}"]`: the first of these that is not empty;
/// - `{ value = "A", when_above = "B", else = "B" }`: A when its amount is above B's (also
///   `when_below`, and `when_set`: when that cell is not empty), else the `else` value (or
///   nothing); a note says when A was given but not taken, unless `quiet = true`;
/// - `{ value = "In stock?", map = { "1" = "", "0" = "0" } }`: the supplier's words for values;
/// - `{ text = "available" }`: a fixed text;
/// - `{ value = "즉시할인 값", unit = "즉시할인 단위", percent_of = "판매가" }`: an amount, or,
///   when the unit cell says `%`, that percent of another column's amount (SmartStore's
///   discount in 원 or %).
public indirect enum ValueSpec: Sendable, CustomStringConvertible {
    case column(HeaderRef)
    case text(String)
    case template([TemplatePart])
    case first([ValueSpec])
    case choice(ValueChoice)
    case mapped(ValueSpec, ValueMap)
    case percent(PercentAmount)

    public enum TemplatePart: Sendable, Equatable {
        case literal(String)
        case field(HeaderRef)
    }

    /// `"Header"` or a template, as a map file writes it.
    static func parse(_ text: String) -> ValueSpec {
        guard text.contains("{") else { return .column(HeaderRef(text)) }
        var parts: [TemplatePart] = []
        var literal = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            literal += rest[..<open]
            if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
            parts.append(.field(HeaderRef(String(rest[rest.index(after: open)..<close]))))
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        if !literal.isEmpty { parts.append(.literal(literal)) }
        return .template(parts)
    }

    /// Every supplier column the value reads.
    var headers: [HeaderRef] {
        switch self {
        case .column(let ref): [ref]
        case .text: []
        case .template(let parts): parts.compactMap { if case .field(let ref) = $0 { ref } else { nil } }
        case .first(let list): list.flatMap(\.headers)
        case .choice(let choice): choice.value.headers + [choice.test.header] + (choice.otherwise?.headers ?? [])
        case .mapped(let inner, _): inner.headers
        case .percent(let percent): percent.value.headers + percent.unit.headers + percent.base.headers
        }
    }

    public var description: String {
        switch self {
        case .column(let ref): ref.description
        case .text(let text): "\"\(text)\""
        case .template(let parts):
            parts.map { part in
                switch part {
                case .literal(let text): text
                case .field(let ref): "{\(ref)}"
                }
            }.joined()
        case .first(let list): list.map(\.description).joined(separator: " or ")
        case .choice(let choice): choice.value.description
        case .mapped(let inner, _): inner.description
        case .percent(let percent): percent.value.description
        }
    }

    /// The value for a row; `cell` gives a column's trimmed cell ("" when absent); `note`
    /// takes what a choice wants said.
    func value(_ cell: (HeaderRef) -> String, note: (String) -> Void) -> String {
        switch self {
        case .column(let ref): return cell(ref)
        case .text(let text): return text
        case .template(let parts): return Self.fill(parts, cell)
        case .first(let list):
            for spec in list {
                let value = spec.value(cell, note: note)
                if !value.isEmpty { return value }
            }
            return ""
        case .choice(let choice): return choice.value(cell, note: note)
        case .mapped(let inner, let map):
            let value = inner.value(cell, note: note)
            return map.apply(value) ?? value
        case .percent(let percent): return percent.value(cell, note: note)
        }
    }

    /// A template's text: the fields that are not empty, each after the text that followed
    /// the one before it (the text before the first field only when that field is there,
    /// the text after the last when it is).
    static func fill(_ parts: [TemplatePart], _ cell: (HeaderRef) -> String) -> String {
        // `{상품 상세설명}`: the field as it is (Cafe24's description is four such, the first not empty).
        if parts.count == 1, case .field(let ref) = parts[0] { return cell(ref) }
        guard parts.contains(where: { if case .field = $0 { true } else { false } }) else {
            return parts.map { if case .literal(let text) = $0 { text } else { "" } }.joined()
        }
        var result = ""
        var pending: String?
        var emitted = false
        var previousFieldEmpty = false
        for (index, part) in parts.enumerated() {
            switch part {
            case .literal(let text):
                if index == 0 { pending = text }
                else if emitted && !previousFieldEmpty && pending == nil { pending = text }
            case .field(let ref):
                let value = cell(ref)
                if value.isEmpty {
                    previousFieldEmpty = true
                    if !emitted { pending = nil }
                    continue
                }
                if let separator = pending { result += separator }
                result += value
                emitted = true
                previousFieldEmpty = false
                pending = nil
            }
        }
        if emitted, !previousFieldEmpty, let last = parts.last, case .literal(let text) = last { result += text }
        return result
    }
}

/// `{ value = A, when_above = B, else = C }`: A when the test holds, else C.
public struct ValueChoice: Sendable {
    public enum Test: Sendable {
        case above(HeaderRef), below(HeaderRef), set(HeaderRef)

        var header: HeaderRef {
            switch self {
            case .above(let ref), .below(let ref), .set(let ref): ref
            }
        }

        var isAbove: Bool { if case .above = self { true } else { false } }
    }

    public var value: ValueSpec
    public var test: Test
    public var otherwise: ValueSpec?
    /// No note when the value is given but not taken.
    public var quiet = false

    func value(_ cell: (HeaderRef) -> String, note: (String) -> Void) -> String {
        let given = value.value(cell, note: note)
        let other = cell(test.header)
        let holds: Bool
        switch test {
        case .set: holds = !other.isEmpty
        case .above(_), .below(_):
            if let order = Money.plainOrder(given, other) {
                holds = order == (test.isAbove ? .orderedDescending : .orderedAscending)
            } else if case .success(let a) = Money.parse(given), case .success(let b) = Money.parse(other) {
                if case .above = test { holds = a.amount > b.amount } else { holds = a.amount < b.amount }
            } else {
                holds = false
            }
        }
        if holds { return given }
        let fallback = otherwise?.value(cell, note: note) ?? ""
        if !quiet, !given.isEmpty, !other.isEmpty {
            let relation: String
            switch test {
            case .above: relation = "is not above"
            case .below: relation = "is not below"
            case .set: relation = "is not used without"
            }
            let instead = otherwise.map { fallback.isEmpty ? "" : ": \($0) \(fallback) is used" } ?? ""
            note("\(value) \(given) \(relation) \(test.header) \(other)\(instead)")
        }
        return fallback
    }
}

/// `{ value = A, unit = U, percent_of = B }`: A as an amount when U is blank or says won (`원`,
/// `KRW`); when U says percent (`%`, `퍼센트`, `정률`), A percent of B's amount, to the unit of
/// B's currency below (a discount never takes off more than the percent says). Another unit
/// is kept beside the number, so that the row fails naming it.
public struct PercentAmount: Sendable {
    public var value: ValueSpec
    public var unit: ValueSpec
    public var base: ValueSpec

    static let percentWords: Set<String> = ["%", "％", "퍼센트", "percent", "정률", "율"]
    static let amountWords: Set<String> = ["", "원", "krw", "won", "₩", "정액", "금액"]

    func value(_ cell: (HeaderRef) -> String, note: (String) -> Void) -> String {
        let given = value.value(cell, note: note)
        guard !given.isEmpty else { return "" }
        let unit = self.unit.value(cell, note: note).trimmingCharacters(in: .whitespaces)
        if Self.amountWords.contains(unit.lowercased()) { return given }
        guard Self.percentWords.contains(unit.lowercased()) else { return "\(given) \(unit)" }
        guard case .success(let rate) = Money.parse(given.hasSuffix("%") ? String(given.dropLast()) : given) else { return "\(given) %" }
        guard case .success(let amount) = Money.parse(base.value(cell, note: note)) else { return "" }
        var exact = amount.amount * rate.amount / 100
        var whole = Decimal()
        // Won and yen have no smaller unit; others are kept to the cent.
        let digits = amount.decimals > 0 ? 2 : 0
        NSDecimalRound(&whole, &exact, digits, .down)
        return Money.text(whole)
    }
}
