/// JSON's string escapes, for every reader of JSON text here (the sheet's JSON reader, the
/// journal's and the report's own lines).
public enum JSONEscape {
    /// The byte a one-letter escape stands for (`n` → line feed); nil for `u` and anything else.
    public static func simple(_ letter: UInt8) -> UInt8? {
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): letter
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }

    /// A UTF-16 surrogate pair's scalar value.
    public static func pair(high: UInt32, low: UInt32) -> UInt32 {
        0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
    }
}
