/// Column width of text in a terminal: East Asian wide characters (Hangul,
/// CJK, full-width forms) and emoji take two cells.
public enum TerminalWidth {
    public static func of(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { width, scalar in
            let v = scalar.value
            if scalar.properties.generalCategory == .nonspacingMark || v == 0x200D || (0xFE00...0xFE0F).contains(v) {
                return width
            }
            let wide = (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
                || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
                || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1FAFF).contains(v) || (0x20000...0x3FFFD).contains(v)
            return width + (wide ? 2 : 1)
        }
    }

    /// Cuts to at most `width` cells, marking the cut with `…`.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard of(text) > width else { return text }
        var result = ""
        for character in text {
            if of(result + String(character)) > width - 1 { break }
            result.append(character)
        }
        return result + "…"
    }

    public static func pad(_ text: String, to width: Int, right: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - of(text)))
        return right ? padding + text : text + padding
    }
}
