import Foundation

/// What a cell shows, from what the workbook stores.
enum CellText {
    /// A stored number as Excel shows it in a General cell, to its 15 significant digits:
    /// 25000 (never 25000.0), 24.5, 0.3 (not 0.30000000000000004), large integers as their
    /// digits (never 1.23E+17). `rounded` when the stored number has more than 15 digits.
    static func number(_ stored: String) -> (text: String, rounded: Bool) {
        if Array(stored.utf8).withUnsafeBufferPointer({ isPlainDecimal($0) }) { return (stored, false) }
        guard let value = Double(stored), value.isFinite else { return (stored, false) }
        let significant = stored.utf8.prefix { $0 != UInt8(ascii: "E") && $0 != UInt8(ascii: "e") }
            .filter { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            .drop { $0 == UInt8(ascii: "0") }
        let shown = plain(String(format: "%.15g", value))
        let trimmedCount = significant.reversed().drop { $0 == UInt8(ascii: "0") }.count
        return (shown == "-0" ? "0" : shown, value == value.rounded() && abs(value) >= 1e15 && trimmedCount > 15)
    }

    /// A plain decimal: an optional `-`, digits with at most one point inside them, no
    /// exponent, no leading zero before another digit (`00123` is a code). Its count of
    /// significant digits, and whether its fraction ends in a zero; nil for anything else.
    static func plainDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> (significant: Int, trailingZero: Bool)? {
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        var index = bytes.first == UInt8(ascii: "-") ? 1 : 0
        let integerStart = index
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        let integer = bytes[integerStart..<index]
        guard !integer.isEmpty, integer.count == 1 || integer.first != UInt8(ascii: "0") else { return nil }
        var fraction = bytes[index..<index]
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            fraction = bytes[fractionStart..<index]
            guard !fraction.isEmpty else { return nil }
        }
        guard index == bytes.count else { return nil }
        let leadingZeros = integer.prefix { $0 == UInt8(ascii: "0") }.count
        let significant = integer.count - leadingZeros + fraction.count
            - (leadingZeros == integer.count ? fraction.prefix { $0 == UInt8(ascii: "0") }.count : 0)
        return (significant, fraction.last == UInt8(ascii: "0"))
    }

    /// The stored text itself is what Excel shows: a plain decimal of at most 15 significant
    /// digits with no zero to drop (`25000`, `24.5`; not `-0`). Nearly every number cell is
    /// one; the others go through `%.15g`.
    static func isPlainDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let plain = plainDecimal(bytes), plain.significant <= 15, !plain.trailingZero else { return false }
        return !(bytes.count == 2 && bytes[0] == UInt8(ascii: "-") && bytes[1] == UInt8(ascii: "0"))
    }

    /// `1e-07` → `0.0000001`, `1.5e+22` → `15000000000000000000000`.
    static func plain(_ text: String) -> String {
        guard let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }), let exponent = Int(text[text.index(after: e)...]) else { return text }
        var mantissa = String(text[..<e])
        let negative = mantissa.hasPrefix("-")
        if negative { mantissa.removeFirst() }
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        let whole = String(parts[0]), fraction = parts.count > 1 ? String(parts[1]) : ""
        let digits = whole + fraction
        let point = whole.count + exponent
        var result: String
        if point <= 0 {
            result = "0." + String(repeating: "0", count: -point) + digits
        } else if point >= digits.count {
            result = digits + String(repeating: "0", count: point - digits.count)
        } else {
            result = String(digits.prefix(point)) + "." + String(digits.dropFirst(point))
        }
        while result.contains("."), result.hasSuffix("0") { result.removeLast() }
        if result.hasSuffix(".") { result.removeLast() }
        return (negative ? "-" : "") + result
    }

    /// A date serial as `2024-03-05`, or `2024-03-05 14:30:00` when it has a time of day.
    static func date(serial: Double, uses1904: Bool) -> String {
        // Day 0 is 1899-12-30 (Excel counts a 29 February 1900 that never was), or 1904-01-01.
        var days = serial.rounded(.down)
        if !uses1904, days < 61 { days += 1 }
        let base = uses1904 ? -2_082_844_800.0 : -2_209_161_600.0 // 1904-01-01, 1899-12-30 (UTC)
        let seconds = ((serial - serial.rounded(.down)) * 86_400).rounded()
        let date = Date(timeIntervalSince1970: base + days * 86_400 + seconds)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let day = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        guard seconds > 0 else { return day }
        return day + String(format: " %02d:%02d:%02d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }
}
