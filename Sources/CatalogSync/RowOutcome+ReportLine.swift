import Foundation
import Words

/// report.json's line for a row, written without `JSONEncoder`: a re-run of 20,000 unchanged
/// rows spent a tenth of its CPU encoding them one at a time. The same object as
/// `encode(to:)` (keys sorted, slashes as they are, no spaces); rows with notes or broken
/// rules (phrases and problems, a few per run) are left to the encoder: nil.
extension RowOutcome {
    func reportLine() -> [UInt8]? {
        guard notes.isEmpty, problems == nil, seconds.isFinite else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(256 + key.utf8.count + name.utf8.count)
        var first = true
        func field(_ name: StaticString) {
            out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            first = false
            out.append(UInt8(ascii: "\""))
            name.withUTF8Buffer { out.append(contentsOf: $0) }
            out.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        }
        func string(_ text: String) { JSONText.append(text, to: &out) }
        func integer(_ value: Int) { out.append(contentsOf: String(value).utf8) }
        func integers(_ values: [Int]) {
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                integer(value)
            }
            out.append(UInt8(ascii: "]"))
        }
        field("attempts"); integer(attempts)
        if let changes { field("changes"); string(changes) }
        if let changesSaid, changesSaid.key != Phrase.verbatimKey { field("changes_said"); Self.append(changesSaid, to: &out) }
        if let error { field("error"); string(error) }
        field("images_after"); integers(imagesAfter)
        field("images_before"); integers(imagesBefore)
        field("key"); string(key)
        field("name"); string(name)
        if let note { field("note"); string(note) }
        if let productID { field("product_id"); integer(productID) }
        field("row"); integer(row)
        field("seconds"); out.append(contentsOf: JSONText.number(seconds).utf8)
        field("status"); string(status.rawValue)
        if let thumbnail { field("thumbnail"); string(thumbnail) }
        field("values")
        out.append(UInt8(ascii: "{"))
        for (index, name) in values.keys.sorted().enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            string(name)
            out.append(UInt8(ascii: ":"))
            string(values[name] ?? "")
        }
        out.append(contentsOf: [UInt8(ascii: "}"), UInt8(ascii: "}")])
        return out
    }
}

/// JSON's text, byte by byte.
enum JSONText {
    /// `text` as a JSON string: quotes, backslashes and control characters escaped, the rest
    /// (slashes, non-ASCII) as it is.
    static func append(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                        hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// A finite number as JSON writes it: whole numbers without a fraction.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return "\(value)"
    }

    /// Seconds with three decimals, as report.csv says them (`String(format: "%.3f")` without
    /// the locale machinery).
    static func milliseconds(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e12 else { return String(format: "%.3f", seconds) }
        let thousandths = Int((abs(seconds) * 1000).rounded())
        let whole = String(thousandths / 1000)
        let fraction = String(thousandths % 1000)
        let padded = String(repeating: "0", count: 3 - fraction.count) + fraction
        return (seconds < 0 && thousandths > 0 ? "-" : "") + whole + "." + padded
    }
}

extension RowOutcome {
    /// A phrase as JSONEncoder writes it with sorted keys: count, key, parts (when any), values.
    static func append(_ phrase: Phrase, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        if let count = phrase.count { out.append(contentsOf: "\"count\":\(count),".utf8) }
        out.append(contentsOf: "\"key\":".utf8)
        JSONText.append(phrase.key, to: &out)
        if !phrase.parts.isEmpty {
            out.append(contentsOf: ",\"parts\":[".utf8)
            for (index, part) in phrase.parts.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                append(part, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(contentsOf: ",\"values\":[".utf8)
        for (index, value) in phrase.values.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.append(value, to: &out)
        }
        out.append(contentsOf: "]}".utf8)
    }
}
