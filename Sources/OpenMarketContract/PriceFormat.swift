import Foundation

/// Prices as people read them: `₩1,800,000`, `$12.50`, `¥500`.
public enum PriceFormat {
    public static func format(_ amount: Money, currency: String) -> String {
        let code = currency.uppercased()
        let digits = code == "USD" ? 2 : 0
        let formatter = NumberFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.numberStyle = .decimal
        formatter.usesGroupingSeparator = true
        formatter.groupingSeparator = ","
        formatter.groupingSize = 3
        formatter.minimumFractionDigits = digits
        formatter.maximumFractionDigits = digits == 0 ? 2 : digits
        let number = formatter.string(from: NSDecimalNumber(decimal: amount.amount)) ?? amount.description
        switch code {
        case "KRW": return "₩" + number
        case "USD": return "$" + number
        case "JPY": return "¥" + number
        default: return number + " " + code
        }
    }
}
