/// Text garbled by a wrong encoding on its way into the sheet: UTF-8 bytes read as Windows-1252
/// (or Latin-1), so that `녹차 라떼` became `ë…¹ì°¨ ë¼ë–¼`. Found by turning the characters back
/// into those bytes: when every one of them is such a byte and the bytes are valid UTF-8 with
/// letters beyond ASCII, the text was meant to be that. Ordinary accented text (`café`) does
/// not make valid UTF-8 this way.
public enum GarbledText {
    /// What the text was meant to say, when it looks garbled; nil otherwise.
    public static func meant(_ text: String) -> String? {
        // UTF-8 read as Windows-1252 always shows a lead byte as Â–ô (U+00C2–U+00F4), which UTF-8
        // writes as C3 xx: text without the byte C3 (all ASCII, all Korean) is not garbled.
        guard text.holdsByte(0xC3) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var high = 0
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x80 {
                bytes.append(UInt8(value))
            } else if value <= 0xFF {
                bytes.append(UInt8(value))
                high += 1
            } else if let byte = cp1252[value] {
                bytes.append(byte)
                high += 1
            } else {
                return nil
            }
        }
        guard high >= 2 else { return nil }
        // Windows-1252 has no character for 0x81, 0x8D, 0x8F, 0x90 and 0x9D, and many programs
        // drop those bytes: a sequence or two may be broken. The text was UTF-8 when most of
        // what decodes is letters beyond Latin-1 (`녹차 �떼`), and few sequences are broken.
        let decoded = String(decoding: bytes, as: UTF8.self)
        var meaningful = 0, broken = 0
        for scalar in decoded.unicodeScalars where scalar.value >= 0x100 {
            if scalar == "\u{FFFD}" { broken += 1 } else { meaningful += 1 }
        }
        guard meaningful >= 2, broken * 2 < meaningful else { return nil }
        return decoded
    }

    /// Windows-1252's characters at 0x80–0x9F, by the byte they were read from.
    private static let cp1252: [UInt32: UInt8] = [
        0x20AC: 0x80, 0x201A: 0x82, 0x0192: 0x83, 0x201E: 0x84, 0x2026: 0x85, 0x2020: 0x86, 0x2021: 0x87,
        0x02C6: 0x88, 0x2030: 0x89, 0x0160: 0x8A, 0x2039: 0x8B, 0x0152: 0x8C, 0x017D: 0x8E, 0x2018: 0x91,
        0x2019: 0x92, 0x201C: 0x93, 0x201D: 0x94, 0x2022: 0x95, 0x2013: 0x96, 0x2014: 0x97, 0x02DC: 0x98,
        0x2122: 0x99, 0x0161: 0x9A, 0x203A: 0x9B, 0x0153: 0x9C, 0x017E: 0x9E, 0x0178: 0x9F,
    ]
}
