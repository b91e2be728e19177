import Foundation

/// A cursor over a JSON object's bytes, for the lines openmarket writes itself (the journal's,
/// report.json's rows, a link's pushed product): strings, numbers and null read; nested values only skipped.
public struct FlatJSON {
    private let bytes: UnsafeRawBufferPointer
    private var at = 0

    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    public var atEnd: Bool {
        mutating get {
            skipSpace()
            return at == bytes.count
        }
    }

    private mutating func skipSpace() {
        while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
    }

    /// Where the reading is, in bytes from the start.
    public var offset: Int { at }

    public mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard at < bytes.count, bytes[at] == byte else { return false }
        at += 1
        return true
    }

    public mutating func null() -> Bool {
        skipSpace()
        guard at + 4 <= bytes.count, bytes[at] == UInt8(ascii: "n"), bytes[at + 1] == UInt8(ascii: "u"),
              bytes[at + 2] == UInt8(ascii: "l"), bytes[at + 3] == UInt8(ascii: "l") else { return false }
        at += 4
        return true
    }

    /// A string, its escapes undone; nil where the text is not one.
    public mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = at
        // Most strings have no escape: taken as they are.
        while at < bytes.count, bytes[at] != UInt8(ascii: "\""), bytes[at] != UInt8(ascii: "\\") {
            guard bytes[at] >= 0x20 else { return nil }
            at += 1
        }
        guard at < bytes.count else { return nil }
        if bytes[at] == UInt8(ascii: "\"") {
            at += 1
            return String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<(at - 1)]), as: UTF8.self)
        }
        var out = Array(bytes[start..<at])
        while at < bytes.count {
            let byte = bytes[at]
            at += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard at < bytes.count else { return nil }
                let escaped = bytes[at]
                at += 1
                if let byte = JSONEscape.simple(escaped) {
                    out.append(byte)
                    continue
                }
                switch escaped {
                case UInt8(ascii: "u"):
                    guard var scalar = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard take(UInt8(ascii: "\\")), at < bytes.count, bytes[at] == UInt8(ascii: "u") else { return nil }
                        at += 1
                        guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                        scalar = JSONEscape.pair(high: scalar, low: low)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { return nil }
                    out.append(contentsOf: Array(String(Character(unicode)).utf8))
                default: return nil
                }
            default:
                guard byte >= 0x20 else { return nil }
                out.append(byte)
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard at + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[at]
            at += 1
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value << 4 | digit
        }
        return value
    }

    /// A whole number (no fraction, no exponent).
    public mutating func integer() -> Int? {
        skipSpace()
        let start = at
        if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
        let digits = at
        while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
        guard at > digits, at - digits <= 18 else { return nil }
        if at < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[at]) { return nil }
        return Int(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self))
    }

    /// Skips any one value, nested ones too; false where the text is not JSON.
    public mutating func skipValue(depth: Int = 0) -> Bool {
        skipSpace()
        guard at < bytes.count, depth < 64 else { return false }
        switch bytes[at] {
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let close = bytes[at] == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
            let object = close == UInt8(ascii: "}")
            at += 1
            if take(close) { return true }
            repeat {
                if object { guard string() != nil, take(UInt8(ascii: ":")) else { return false } }
                guard skipValue(depth: depth + 1) else { return false }
            } while take(UInt8(ascii: ","))
            return take(close)
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            while at < bytes.count, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[at]) { at += 1 }
            return true
        default: return number() != nil
        }
    }

    /// An array of strings (`["a","b"]`); nil for anything else.
    public mutating func strings() -> [String]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var out: [String] = []
        if take(UInt8(ascii: "]")) { return out }
        repeat {
            guard let value = string() else { return nil }
            out.append(value)
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? out : nil
    }

    /// The next value's first byte, without taking it.
    public var nextByte: UInt8? {
        mutating get {
            skipSpace()
            return at < bytes.count ? bytes[at] : nil
        }
    }

    /// Any JSON number.
    public mutating func number() -> Double? {
        skipSpace()
        let start = at
        while at < bytes.count, "+-.eE0123456789".utf8.contains(bytes[at]) { at += 1 }
        guard at > start else { return nil }
        return Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self))
    }
}
