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

    /// Writes local time with milliseconds, the way the sandbox answers.
    public static func format(_ date: Date, timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let whole = date.timeIntervalSince1970.rounded(.down)
        let c = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: whole))
        let millis = min(999, Int(((date.timeIntervalSince1970 - whole) * 1000).rounded()))
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03d",
            c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, c.second ?? 0, millis)
    }
}
