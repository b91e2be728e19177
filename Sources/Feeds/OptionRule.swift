import Foundation
import Manifest

/// A platform's options held in one row (`[options]` of a map file: SmartStore's form writes
/// `옵션명` `색상`, `옵션값` `빨강,파랑`, `옵션가` `0,1000`, `옵션 재고수량` `10,5`): each option is a
/// product of its own, keyed `code/value` (`code/빨강/M` for two option names), named `name value`,
/// priced with its extra amount on top of the row's price, stocked with its own count. Several
/// option names (조합형: `색상\n사이즈`, values a line each) make every combination, in order;
/// `prices` and `stocks` then list one entry per combination.
///
/// Without `names`, the values cell names its options itself, as Cafe24's `옵션입력` does:
/// `색상{빨강|파랑}//사이즈{S|M}` (every combination; no extra amount or count in that file).
///
/// `perFirst`: the extra amounts and counts are listed once per value of the first option name
/// (11번가's form: `판매옵션가격` `0|1000` for `빨강|파랑`), each combination taking its first
/// value's amount; with several names the first value's count is not a combination's, so none
/// is read. `eachLine`: the values cell holds a line per option, its values (one per name, the
/// names on one line split on `split`) then further fields, the count at `stockAt` after the
/// values (ESM's `옵션 입력값`: `빨강,정상,노출,10,10`).
public struct OptionRule: Sendable {
    public var names: HeaderRef?
    public var values: HeaderRef
    public var prices: HeaderRef?
    public var stocks: HeaderRef?
    /// Between the values of one option name (`,`).
    public var split = ","
    /// Amounts and counts listed per value of the first option name (11번가).
    public var perFirst = false
    /// A line per option in the values cell (ESM), its count the `stockAt`-th field after its values.
    public var eachLine = false
    public var stockAt: Int?

    public init(names: HeaderRef?, values: HeaderRef) {
        self.names = names
        self.values = values
    }

    var headers: [HeaderRef] { [values] + [names, prices, stocks].compactMap { $0 } }

    /// One option of a row: its values (one per option name), extra amount and count.
    struct Option: Equatable {
        var values: [String]
        var extra: String?
        var stock: String?
    }

    enum Problem: Error { case mismatch(String) }

    /// The options a row's cells describe; none when its values cell is empty.
    func options(names: String, values: String, prices: String, stocks: String) throws(Problem) -> [Option] {
        if eachLine { return try lineOptions(names: names, values: values) }
        let lists: [[String]]
        if self.names == nil {
            lists = try Self.inline(values)
        } else {
            let lines = Self.lines(values)
            let nameCount = max(1, Self.lines(names).count)
            guard lines.isEmpty || lines.count == nameCount else {
                throw .mismatch("\(nameCount) option name(s) and \(lines.count) line(s) of values")
            }
            lists = lines.map { line in
                line.components(separatedBy: split).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
        }
        guard !lists.isEmpty else { return [] }
        var combinations: [[String]] = [[]]
        for each in lists {
            guard !each.isEmpty else { throw .mismatch("an option name without values") }
            combinations = combinations.flatMap { head in each.map { head + [$0] } }
        }
        func list(_ text: String, _ what: String) throws(Problem) -> [String]? {
            let items = Self.items(text, split: split + "\n\r")
            guard !items.isEmpty else { return nil }
            guard items.count == combinations.count else {
                throw .mismatch("\(combinations.count) option(s) and \(items.count) \(what)")
            }
            return items
        }
        if perFirst {
            let firsts = lists[0]
            func perValue(_ text: String, _ what: String) throws(Problem) -> [String: String]? {
                let items = Self.items(text, split: split + "\n\r")
                guard !items.isEmpty else { return nil }
                guard items.count == firsts.count else {
                    throw .mismatch("\(firsts.count) value(s) of the first option and \(items.count) \(what)")
                }
                return Dictionary(zip(firsts, items), uniquingKeysWith: { first, _ in first })
            }
            let extras = try perValue(prices, "extra amount(s)")
            let counts = lists.count == 1 ? try perValue(stocks, "stock count(s)") : nil
            return combinations.map { values in
                Option(values: values, extra: extras?[values[0]], stock: counts?[values[0]])
            }
        }
        let extras = try list(prices, "extra amount(s)")
        let counts = try list(stocks, "stock count(s)")
        return combinations.enumerated().map { index, values in
            Option(values: values, extra: extras?[index], stock: counts?[index])
        }
    }

    /// ESM's form: a line per option, its values then the other fields of that option.
    private func lineOptions(names: String, values: String) throws(Problem) -> [Option] {
        let nameCount = max(1, Self.items(names, split: split + "\n\r").count)
        return try Self.lines(values).map { line throws(Problem) -> Option in
            let fields = line.components(separatedBy: split).map { $0.trimmingCharacters(in: .whitespaces) }
            let own = Array(fields.prefix(nameCount))
            guard own.count == nameCount, !own.contains(where: \.isEmpty) else {
                throw .mismatch("\(nameCount) option name(s) and the line '\(line)'")
            }
            var stock: String?
            if let stockAt, nameCount + stockAt - 1 < fields.count, !fields[nameCount + stockAt - 1].isEmpty {
                stock = fields[nameCount + stockAt - 1]
            }
            return Option(values: own, extra: nil, stock: stock)
        }
    }

    private static func items(_ text: String, split: String) -> [String] {
        text.components(separatedBy: CharacterSet(charactersIn: split)).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `색상{빨강|파랑}//사이즈{S|M}`: the values of each name, in order.
    static func inline(_ text: String) throws(Problem) -> [[String]] {
        let parts = text.components(separatedBy: "//").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        return try parts.map { part throws(Problem) -> [String] in
            guard let open = part.firstIndex(of: "{"), part.hasSuffix("}") else {
                throw .mismatch("'\(part)' is not an option written as name{value|value}")
            }
            return part[part.index(after: open)..<part.index(before: part.endIndex)].components(separatedBy: "|")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
    }

    private static func lines(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
