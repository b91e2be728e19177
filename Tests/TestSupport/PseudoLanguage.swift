import Foundation

/// A pseudo-language's catalogue file, made from openmarket's template as a translator's tool
/// would: every message's words marked `[!! … !!]` (a count's forms too), so that any text that
/// does not pass through the catalogue stands out.
public enum PseudoLanguage {
    /// The shipped template (`Sources/Words/Resources/messages/openmarket.pot`).
    public static let template = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Words/Resources/messages/openmarket.pot")

    /// Each msgstr of the template filled with its English marked: what a translator's tool makes.
    public static func file(from template: String) -> String {
        var out: [String] = []
        var english = ""
        var plural = ""
        var inID = false
        for line in template.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("msgid ") {
                english = String(line.dropFirst(6).dropFirst().dropLast())
                inID = true
                out.append(line)
            } else if inID, line.hasPrefix("\"") {
                english += String(line.dropFirst().dropLast())
                out.append(line)
            } else if line.hasPrefix("msgid_plural ") {
                plural = String(line.dropFirst(13).dropFirst().dropLast())
                inID = false
                out.append(line)
            } else if line.hasPrefix("msgstr ") {
                inID = false
                out.append(english.isEmpty ? line : "msgstr \"[!! \(english) !!]\"")
            } else if line.hasPrefix("msgstr[") {
                // A count's forms: the first the English one, the others its plural.
                inID = false
                let form = line.hasPrefix("msgstr[0]") ? english : plural
                out.append(String(line.prefix(9)) + " \"[!! \(form) !!]\"")
            } else {
                out.append(line)
            }
        }
        return out.joined(separator: "\n")
    }
}
