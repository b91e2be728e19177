/// Text from outside (a server's answer, a sheet's cell) made safe to print on a terminal: every
/// control character shown as an escape instead of being obeyed. A name holding `ESC [2J` would
/// clear the merchant's screen, `ESC ]0;…BEL` retitle the window, a carriage return or backspaces
/// overwrite the line before, a right-to-left override reverse what follows.
public enum VisibleText {
    /// C0 (but line feed and tab, unless `lines` is false), DEL, C1 as `\x1B`; the bidirectional
    /// controls as `<U+202E>`. Everything else as it is; text with none is returned unchanged.
    public static func of(_ text: String, lines: Bool = true) -> String {
        guard text.unicodeScalars.contains(where: { hidden($0, lines: lines) }) else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard hidden(scalar, lines: lines) else {
                shown.append(scalar)
                continue
            }
            let code = scalar.value
            let escape = code <= 0xFF ? "\\x" + hex(code, digits: 2) : "<U+" + hex(code, digits: 4) + ">"
            shown.append(contentsOf: escape.unicodeScalars)
        }
        return String(shown)
    }

    /// One line of a value (a name in a table): line breaks shown too.
    public static func line(_ text: String) -> String { of(text, lines: false) }

    static func hidden(_ scalar: Unicode.Scalar, lines: Bool) -> Bool {
        let code = scalar.value
        if code < 0x20 { return !(lines && (code == 0x0A || code == 0x09)) }
        if code < 0x7F { return false }
        if code <= 0x9F { return true }
        return bidi.contains(code)
    }

    /// Marks and embeddings, overrides and isolates that reorder what follows them.
    static let bidi: Set<UInt32> = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
