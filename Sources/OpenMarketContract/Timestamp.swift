import Foundation

/// The server's timestamps: local time without a zone, `yyyy-MM-dd'T'HH:mm:ss`,
/// sometimes followed by a fraction of a second (any number of digits).
public enum OpenMarketTimestamp {
    /// Reads `2022-11-14T00:00:00` or `2022-11-14T00:00:00.123456` as local time.
    /// A trailing `Z` or numeric offset, which some servers add, is honoured.
    public static func parse(_ text: String, timeZone: TimeZone = .current) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                let b = bytes[i]
                guard b >= 0x30, b <= 0x39 else { return nil }
                value = value * 10 + Int(b - 0x30)
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var zone = timeZone
        if index < bytes.count {
            let rest = String(decoding: bytes[index...], as: UTF8.self)
            if rest == "Z" {
                zone = TimeZone(secondsFromGMT: 0)!
            } else if rest.count == 6, let sign = rest.first, sign == "+" || sign == "-",
                      let h = Int(rest.dropFirst().prefix(2)), let m = Int(rest.suffix(2)) {
                zone = TimeZone(secondsFromGMT: (sign == "-" ? -1 : 1) * (h * 3600 + m * 60))!
            } else {
                return nil
            }
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let components = DateComponents(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61,
              let date = calendar.date(from: components) else { return nil }
        return date.addingTimeInterval(fraction)
    }

    /// Writes local time with milliseconds, the way the sandbox answers: the instant plus the
    /// zone's offset at it, as a date by arithmetic (a Calendar and `String(format:)` for each
    /// timestamp were a sixth of the sandbox's CPU serving a page).
    public static func format(_ date: Date, timeZone: TimeZone = .current) -> String {
        let whole = date.timeIntervalSince1970.rounded(.down)
        let millis = min(999, Int(((date.timeIntervalSince1970 - whole) * 1000).rounded()))
        let local = Int64(whole) + Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: whole)))
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let second = Int(local - days * 86_400)
        // Days since 1970-01-01 to a civil date (proleptic Gregorian; H. Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * shifted + 2) / 5 + 1)
        let month = Int(shifted < 10 ? shifted + 3 : shifted - 9)
        let year = Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0))
        var out: [UInt8] = []
        out.reserveCapacity(23)
        func digits(_ value: Int, _ count: Int) {
            var text = Array(String(value).utf8)
            while text.count < count { text.insert(UInt8(ascii: "0"), at: 0) }
            out.append(contentsOf: text)
        }
        digits(year, 4); out.append(UInt8(ascii: "-")); digits(month, 2); out.append(UInt8(ascii: "-")); digits(day, 2)
        out.append(UInt8(ascii: "T")); digits(second / 3_600, 2); out.append(UInt8(ascii: ":")); digits(second / 60 % 60, 2)
        out.append(UInt8(ascii: ":")); digits(second % 60, 2); out.append(UInt8(ascii: ".")); digits(millis, 3)
        return String(decoding: out, as: UTF8.self)
    }
}
