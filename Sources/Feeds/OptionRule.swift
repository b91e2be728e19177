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
public struct OptionRule: Sendable {
    public var names: HeaderRef?
    public var values: HeaderRef
    public var prices: HeaderRef?
    public var stocks: HeaderRef?
    /// Between the values of one option name (`,`).
    public var split = ","

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
            let items = text.components(separatedBy: CharacterSet(charactersIn: split + "\n\r")).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
            guard !items.isEmpty else { return nil }
            guard items.count == combinations.count else {
                throw .mismatch("\(combinations.count) option(s) and \(items.count) \(what)")
            }
            return items
        }
        let extras = try list(prices, "extra amount(s)")
        let counts = try list(stocks, "stock count(s)")
        return combinations.enumerated().map { index, values in
            Option(values: values, extra: extras?[index], stock: counts?[index])
        }
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
