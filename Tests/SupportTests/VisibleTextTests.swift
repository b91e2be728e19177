import Support
import Testing

@Suite("Text from outside shown, never obeyed, on a terminal")
struct VisibleTextTests {
    @Test("C0, DEL, C1 and the bidirectional controls become escapes; line feeds and tabs stay in text, not in one line; Korean and emoji untouched")
    func escapes() {
        #expect(VisibleText.of("녹차 🍵 tea") == "녹차 🍵 tea")
        #expect(VisibleText.of("a\u{1B}[2Jb") == "a\\x1B[2Jb")
        #expect(VisibleText.of("\u{1B}]0;owned\u{07}") == "\\x1B]0;owned\\x07")
        #expect(VisibleText.of("ok\rFAKE\u{08}\u{7F}") == "ok\\x0DFAKE\\x08\\x7F")
        #expect(VisibleText.of("\u{9B}31m") == "\\x9B31m")
        #expect(VisibleText.of("abc\u{202E}gpj.exe") == "abc<U+202E>gpj.exe")
        #expect(VisibleText.of("\u{2066}x\u{2069}\u{200F}") == "<U+2066>x<U+2069><U+200F>")
        #expect(VisibleText.of("two\nlines\tand a tab") == "two\nlines\tand a tab")
        #expect(VisibleText.line("two\nlines\tand a tab") == "two\\x0Alines\\x09and a tab")
    }
}
