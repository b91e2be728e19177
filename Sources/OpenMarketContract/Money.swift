import Foundation

/// An amount of money, exact: a `Decimal`, read from a server's number or from stored text
/// digit for digit (never through a binary double), compared exactly, written as the number
/// it is (`9.99`, not `9.9900000000000002`). The one type of prices from the sheet to the wire
/// (`ProductSummary`, `Product`, `ProductPatch`, every generation's answers). How a
/// merchant may type one (`₩12,000`, `12.50`) is the manifest's (`Money.parse`).
public struct Money: Sendable, Hashable, Comparable, Codable, CustomStringConvertible,
                     ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    public var amount: Decimal

    public init(_ amount: Decimal) { self.amount = amount }
    public init(_ whole: Int) { amount = Decimal(whole) }
    public init(integerLiteral value: Int) { amount = Decimal(value) }
    /// A literal as written (`9.99` is 9.99, not the double nearest it).
    public init(floatLiteral value: Double) { amount = Self.decimal(value) }
    /// A double as the shortest decimal that reads back as it (a sandbox's stored REAL).
    public init(_ double: Double) { amount = Self.decimal(double) }

    /// Exact digits (`31000`, `24.5`, `-3`); nil for anything else (never 0 for garbage).
    public init?(exactly text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-") }),
              let value = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX")) else { return nil }
        amount = value
    }

    public static let zero = Money(0)

    /// A server's answer says a number (`1200`, `9.99`); a few older ones a string of one.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Decimal.self) {
            amount = number
        } else if let text = try? container.decode(String.self), let exact = Money(exactly: text) {
            amount = exact.amount
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected an amount (a number)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(amount)
    }

    public var description: String { Self.text(amount) }
    /// Whether the amount has no fraction (a 2021 server takes only these).
    public var isWhole: Bool { Self.isWhole(amount) }
    /// The nearest double, for what only takes one (a chart, a ratio).
    public var double: Double { Self.double(amount) }

    public static func < (a: Money, b: Money) -> Bool { a.amount < b.amount }
    public static func + (a: Money, b: Money) -> Money { Money(a.amount + b.amount) }
    public static func - (a: Money, b: Money) -> Money { Money(a.amount - b.amount) }
    public static prefix func - (a: Money) -> Money { Money(-a.amount) }

    /// Whether the amount has no fraction.
    public static func isWhole(_ amount: Decimal) -> Bool {
        var value = amount
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, 0, .plain)
        return rounded == amount
    }

    /// A double as the shortest decimal that reads back as it (`12.99`, not `12.9900000000000002`).
    public static func decimal(_ value: Double) -> Decimal {
        Decimal(string: "\(value)", locale: Locale(identifier: "en_US_POSIX")) ?? Decimal(value)
    }

    /// A decimal as plain text (`31000`, `24.5`) that `Money.parse` reads back as the same
    /// amount: three decimals are written with a fourth (`9.9120`), since `9.912` is refused as
    /// ambiguous (nine thousand nine hundred twelve in the European style).
    public static func text(_ value: Decimal) -> String {
        let text = digits(value) ?? NSDecimalNumber(decimal: value).description(withLocale: Locale(identifier: "en_US_POSIX"))
        guard let dot = text.firstIndex(of: ".") else { return text }
        return text.distance(from: dot, to: text.endIndex) == 4 ? text + "0" : text
    }

    /// The decimal written as `NSDecimalNumber` writes it (`1301`, `12.50`, `-0.5`, `130100`),
    /// made from its significand and exponent when the significand fits in 64 bits (every
    /// price): a supplier's feed writes two amounts a row, and NSDecimalNumber's text, a locale
    /// looked up and the digits divided out one by one, was most of the row's time. Nil otherwise.
    static func digits(_ value: Decimal) -> String? {
        guard value.isFinite else { return nil }
        if value.isZero { return "0" }
        let exponent = value.exponent
        guard (-18...18).contains(exponent), let whole = UInt64(exactly: value.significand as NSDecimalNumber) else { return nil }
        var digits = String(whole)
        if exponent > 0 {
            digits += String(repeating: "0", count: exponent)
        } else if exponent < 0 {
            let scale = -exponent
            if digits.utf8.count <= scale { digits = String(repeating: "0", count: scale - digits.utf8.count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -scale))
        }
        return value.sign == .minus ? "-" + digits : digits
    }

    /// The nearest double to the decimal as written (`19.99`, not NSDecimalNumber's `19.990000000000002`).
    public static func double(_ value: Decimal) -> Double { Double(text(value)) ?? NSDecimalNumber(decimal: value).doubleValue }
}
