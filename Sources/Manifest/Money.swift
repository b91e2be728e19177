import Foundation
import OpenMarketContract

/// Prices as merchants type them: `12000`, `12,000`, `₩12,000`, `12000원`,
/// `$12.50`, `12.50`. Ambiguous forms such as `12.000,50` are refused with an
/// explanation instead of guessed. (The amount itself is the contract's `Money`.)
extension Money {
    public struct Problem: Error, Equatable, Sendable {
        public var rule: String
        public var message: String
    }

    /// Currency markers written with a price, and the code they mean.
    private static let prefixes: [(String, String)] = [("US$", "USD"), ("₩", "KRW"), ("$", "USD"), ("¥", "JPY"), ("￥", "JPY"), ("￦", "KRW")]
    private static let suffixes: [(String, String)] = [("원", "KRW"), ("円", "JPY"), ("엔", "JPY")]
    private static let codes = ["KRW", "USD", "JPY"]

    /// A currency as written in a currency cell: a code, a symbol or a Korean word.
    public static func currencyCode(_ raw: String) -> String? {
        // The common case, a code already in capitals, without Foundation's work.
        if raw.utf8.count == 3, raw.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) { return raw }
        let text = raw.trimmingCharacters(in: .whitespaces)
        switch text.uppercased() {
        case "₩", "￦", "원", "WON": return "KRW"
        case "$", "US$", "달러": return "USD"
        case "¥", "￥", "円", "엔", "YEN": return "JPY"
        case let code where code.count == 3 && code.allSatisfy(\.isLetter): return code
        default: return nil
        }
    }

    /// The amount, the currency its symbol names (if any), and how many decimals were written.
    public static func parse(_ raw: String) -> Result<(amount: Decimal, currency: String?, decimals: Int), Problem> {
        if let plain = plainNumber(raw) { return .success((plain.amount, nil, plain.decimals)) }
        var text = raw.trimmingCharacters(in: .whitespaces)
        var currency: String? = nil
        var negative = false
        if text.hasPrefix("-") { negative = true; text.removeFirst() }
        for code in codes {
            if text.uppercased().hasPrefix(code) { currency = code; text = String(text.dropFirst(3)) }
            else if text.uppercased().hasSuffix(code) { currency = code; text = String(text.dropLast(3)) }
        }
        text = text.trimmingCharacters(in: .whitespaces)
        for (symbol, code) in prefixes where text.hasPrefix(symbol) {
            currency = code
            text = String(text.dropFirst(symbol.count))
            break
        }
        for (symbol, code) in suffixes where text.hasSuffix(symbol) {
            currency = code
            text = String(text.dropLast(symbol.count))
            break
        }
        if text.hasPrefix("-") { negative = true; text.removeFirst() }
        text = text.replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "\u{00A0}", with: "")
        guard !text.isEmpty else { return .failure(Problem(rule: "price-format", message: "is not a number")) }
        guard text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "," || $0 == ".") }) else {
            return .failure(Problem(rule: "price-format", message: "is not a number; write digits, like 12000 or 12.50"))
        }
        let commas = text.filter { $0 == "," }.count
        let dots = text.filter { $0 == "." }.count
        var integerPart = text
        var fraction = ""
        if dots > 1 {
            return .failure(Problem(rule: "price-format",
                message: "has several dots; if they separate thousands (12.000.000), remove them: 12000000"))
        }
        if dots == 1 {
            let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
            integerPart = String(pieces[0])
            fraction = String(pieces[1])
            if fraction.contains(",") {
                return .failure(Problem(rule: "price-format",
                    message: "is ambiguous: a comma after the dot reads as the European style (12.000,50 = twelve thousand and a half); write 12000.50"))
            }
        }
        if commas > 0 {
            let groups = integerPart.split(separator: ",", omittingEmptySubsequences: false)
            let valid = (1...3).contains(groups[0].count) && groups.dropFirst().allSatisfy { $0.count == 3 }
            guard valid else {
                return .failure(Problem(rule: "price-format",
                    message: "is ambiguous: a comma is read as a thousands separator (12,000), and '\(text)' is not grouped by thousands; for a decimal write a dot: 12.5"))
            }
            integerPart = integerPart.replacingOccurrences(of: ",", with: "")
        }
        guard !integerPart.isEmpty || !fraction.isEmpty,
              let amount = Decimal(string: (integerPart.isEmpty ? "0" : integerPart) + (fraction.isEmpty ? "" : "." + fraction),
                                   locale: Locale(identifier: "en_US_POSIX")) else {
            return .failure(Problem(rule: "price-format", message: "is not a number"))
        }
        if fraction.count == 3 && commas == 0 {
            return .failure(Problem(rule: "price-format",
                message: "is ambiguous: '\(text)' reads as \(integerPart) with three decimals, or as thousands in the European style; write it without the dot (\(integerPart)\(fraction)) or with two decimals"))
        }
        return .success((negative ? -amount : amount, currency, fraction.count))
    }

    /// The common case without any allocation: ASCII digits, thousands grouped
    /// by commas, at most one dot with one or two decimals. Anything else
    /// (symbols, codes, signs, ambiguous forms) goes the long way, which explains.
    package static func plainNumber(_ text: String) -> (amount: Decimal, decimals: Int)? {
        guard let (value, decimals) = plainScaled(text) else { return nil }
        return (Decimal(sign: .plus, exponent: -decimals, significand: Decimal(value)), decimals)
    }

    /// A plain number (see `plainNumber`) as its digits and how many of them are decimals:
    /// `1,250.50` is (125050, 2).
    package static func plainScaled(_ text: String) -> (value: UInt64, decimals: Int)? {
        // The bytes in place (a price cell is read on every row; the UTF-8 view's iterator cost more than the reading).
        if let scaled = text.utf8.withContiguousStorageIfAvailable(plainScaled) { return scaled }
        return Array(text.utf8).withUnsafeBufferPointer(plainScaled)
    }

    private static func plainScaled(_ bytes: UnsafeBufferPointer<UInt8>) -> (value: UInt64, decimals: Int)? {
        var value: UInt64 = 0
        var digits = 0, decimals = 0, groupDigits = 0, groups = 0
        var afterDot = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard digits < 18 else { return nil }
                value = value * 10 + UInt64(byte - 48)
                digits += 1
                if afterDot { decimals += 1 } else { groupDigits += 1 }
            case UInt8(ascii: ","):
                guard !afterDot, groupDigits >= 1, groups == 0 ? groupDigits <= 3 : groupDigits == 3 else { return nil }
                groups += 1
                groupDigits = 0
            case UInt8(ascii: "."):
                guard !afterDot, groupDigits >= 1, groups == 0 || groupDigits == 3 else { return nil }
                afterDot = true
            default:
                return nil
            }
        }
        guard digits > 0, !afterDot || (1...2).contains(decimals), groups == 0 || afterDot || groupDigits == 3 else { return nil }
        return (value, decimals)
    }

    /// How two plain numbers (see `plainNumber`) compare, without making either a `Decimal`
    /// (a Cafe24 row compares its list and sale prices twice); nil when either is no plain
    /// number or the digits do not fit.
    package static func plainOrder(_ a: String, _ b: String) -> ComparisonResult? {
        guard let x = plainScaled(a), let y = plainScaled(b), let (left, right) = sameScale(x, y) else { return nil }
        return left < right ? .orderedAscending : left > right ? .orderedDescending : .orderedSame
    }

    /// Two plain numbers' digits to the same number of decimals; nil when they do not fit.
    private static func sameScale(_ a: (value: UInt64, decimals: Int), _ b: (value: UInt64, decimals: Int)) -> (UInt64, UInt64)? {
        let decimals = max(a.decimals, b.decimals)
        func scaled(_ number: (value: UInt64, decimals: Int)) -> UInt64? {
            var value = number.value
            for _ in number.decimals..<decimals {
                let (next, overflow) = value.multipliedReportingOverflow(by: 10)
                if overflow { return nil }
                value = next
            }
            return value
        }
        guard let x = scaled(a), let y = scaled(b) else { return nil }
        return (x, y)
    }

    /// `a − b` of two plain numbers, in whole numbers (the same Decimal `Decimal`'s own
    /// subtraction makes, which allocated and cost a row with a sale price a tenth of its
    /// checking); nil when `b` is more than `a` or the digits do not fit.
    package static func difference(_ a: (value: UInt64, decimals: Int), _ b: (value: UInt64, decimals: Int)) -> Decimal? {
        guard let (x, y) = sameScale(a, b), x >= y else { return nil }
        return Decimal(sign: .plus, exponent: -max(a.decimals, b.decimals), significand: Decimal(x - y))
    }

    /// The rules of a parsed amount in a currency; `decimals` is how many were written.
    /// Whether `amount` is a valid amount of `currency`; the rule is named after `field`
    /// (`price-fraction`, `discount-fraction`).
    public static func check(_ amount: Decimal, decimals: Int? = nil, currency: String, field: String = "price") -> Problem? {
        if amount < 0 { return Problem(rule: "\(field)-negative", message: "must be 0 or more") }
        let digits = decimals ?? fractionDigits(of: amount)
        // `12900.00` is a whole amount: money columns formatted with two decimals write it so.
        if (currency == "KRW" || currency == "JPY") && digits > 0 && fractionDigits(of: amount) > 0 {
            return Problem(rule: "\(field)-fraction", message: "\(currency) has no fractional part; write a whole number")
        }
        if currency == "USD" && digits > 2 {
            return Problem(rule: "\(field)-fraction", message: "USD has at most two decimals (cents)")
        }
        return nil
    }

    static func fractionDigits(of value: Decimal) -> Int {
        var copy = value
        var rounded = Decimal()
        for digits in 0..<12 {
            NSDecimalRound(&rounded, &copy, digits, .plain)
            if rounded == value { return digits }
        }
        return 12
    }
}

/// Spreadsheet formula neutralisation: cells that start with `=`, `+`, `-`
/// or `@` are written with a leading apostrophe so that a spreadsheet shows
/// them as text; reading removes it again, so round trips are exact.
public enum CSVCell {
    /// By scalars: a trigger followed by a combining mark is one Character with it, and a
    /// spreadsheet still takes the cell for a formula.
    static let triggers: Set<Unicode.Scalar> = ["=", "+", "-", "@"]

    public static func neutralise(_ value: String) -> String {
        let scalars = value.unicodeScalars
        guard let first = scalars.first else { return value }
        if CharacterSet.whitespacesAndNewlines.contains(first) {
            // A reader trims the cell first, then restores: the mark goes after the spaces.
            guard let start = scalars.firstIndex(where: { !CharacterSet.whitespacesAndNewlines.contains($0) }) else { return value }
            let rest = String(scalars[start...])
            return needsMark(rest) ? String(scalars[..<start]) + "'" + rest : value
        }
        return needsMark(value) ? "'" + value : value
    }

    private static func needsMark(_ value: String) -> Bool {
        guard let first = value.unicodeScalars.first else { return false }
        return triggers.contains(first) || needsRestore(value)
    }

    public static func restore(_ value: String) -> String {
        needsRestore(value) ? String(value.unicodeScalars.dropFirst()) : value
    }

    /// Apostrophes followed by a trigger: what `neutralise` makes, so one
    /// apostrophe is taken off. A value that itself looks so is written with one
    /// more, which keeps round trips exact.
    private static func needsRestore(_ value: String) -> Bool {
        guard value.utf8.first == UInt8(ascii: "'") else { return false }
        let scalars = value.unicodeScalars
        guard let next = scalars.first(where: { $0 != "'" }) else { return false }
        return triggers.contains(next)
    }
}
