/// The zip standard's own code page for names without the UTF-8 flag (IBM PC code page 437):
/// ASCII, then 128 letters, signs and box lines.
public enum CP437 {
    private static let upper: [Character] = Array(
        "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐"
            + "└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{00A0}")

    /// `bytes` read as CP437: every byte is one character, so this never fails.
    public static func text(_ bytes: some Sequence<UInt8>) -> String {
        String(bytes.map { $0 < 0x80 ? Character(Unicode.Scalar($0)) : upper[Int($0) - 0x80] })
    }
}
