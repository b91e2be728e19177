import Foundation

/// A pseudo-language's catalogue file, made from openmarket's template as a translator's tool
/// would: every message's words marked `[!! … !!]` (a count's forms too), so that any text that
/// does not pass through the catalogue stands out.
public enum PseudoLanguage {
    /// The shipped template (`Sources/Words/Resources/messages/openmarket.pot`).
    public static let template = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Words/Resources/messages/openmarket.pot")

    /// Writes the pseudo-language's `xx.po` (made from the shipped template) into `folder` and
    /// returns the environment that makes openmarket speak it: `OPENMARKET_MESSAGES` and `LANG`.
    public static func install(in folder: URL) throws -> [String: String] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try file(from: try String(contentsOf: template, encoding: .utf8))
            .write(to: folder.appendingPathComponent("xx.po"), atomically: true, encoding: .utf8)
        return ["OPENMARKET_MESSAGES": folder.path, "LANG": "xx_XX.UTF-8"]
    }

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

extension PseudoLanguage {
    /// The lines of `output` that say words outside the catalogue: what is left of a line once
    /// its marked spans (`[!! … !!]`, nested ones too), the given data (paths, keys, names, the
    /// server's address), numbers and signs are taken out, when that still holds a word of two
    /// Latin letters or more that is not a unit (`KB`, `MB`) or a command line's word.
    public static func unmarked(_ output: String, data: [String]) -> [String] {
        var text = output.replacingOccurrences(of: "\u{1B}[2K", with: "")
        for value in data.filter({ !$0.isEmpty }).sorted(by: { $0.count > $1.count }) {
            text = text.replacingOccurrences(of: value, with: " ")
        }
        return withoutMarks(text).split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map(String.init)
            .map { line in
                // ArgumentParser's lead of an argument error is its own (as its usage lines are).
                if line.hasPrefix("Error: ") { return String(line.dropFirst(7)) }
                // An error's lead names the program and the command, as the merchant typed them.
                guard line.hasPrefix("openmarket "), let colon = line.firstIndex(of: ":") else { return line }
                return String(line[line.index(after: colon)...])
            }
            .filter { line in
                !line.hasPrefix("Usage: ") && !line.hasPrefix("  See 'openmarket ")
                    && words(line).contains { !allowed.contains($0) }
            }
    }

    /// Units, formats and a command line's words, said the same in every language.
    static let allowed: Set<String> = ["KB", "MB", "GB", "B", "px", "KRW", "USD", "JPY", "HTTP", "HTTPS", "JPEG", "PNG", "HEIC", "WebP",
                                       "CSV", "JSON", "xlsx", "csv", "jsonl", "json", "html", "jpg", "openmarket", "ms"]

    /// The text with every `[!! … !!]` span removed, innermost first.
    static func withoutMarks(_ text: String) -> String {
        var text = text
        while let close = text.range(of: " !!]"),
              let open = text.range(of: "[!! ", options: .backwards, range: text.startIndex..<close.lowerBound) {
            text.replaceSubrange(open.lowerBound..<close.upperBound, with: " ")
        }
        return text
    }

    /// Runs of Latin letters of two or more, outside a command line's options (`--run`), paths
    /// and addresses (a run holding `/` or `://`), and ids: a rule's `[price-format]` and the
    /// status word scripts match beside the translated one, `(created)`.
    static func words(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" }).flatMap { token -> [String] in
            if token.hasPrefix("-") || token.contains("/") || token.contains("://") || token.contains("=") { return [] }
            if isID(token) { return [] }
            return token.split(whereSeparator: { !($0.isASCII && $0.isLetter) }).map(String.init).filter { $0.count >= 2 }
        }
    }

    /// `[price-format]`, `(created)`, `(would-create),`, `name-length`: an id (in brackets, or
    /// words joined by hyphens), lower case.
    static func isID(_ token: Substring) -> Bool {
        if token.contains("-"), token.allSatisfy({ ($0.isASCII && $0.isLowercase) || $0 == "-" }), !token.hasPrefix("-") { return true }
        let core = token.trimmingCharacters(in: CharacterSet(charactersIn: ",.:;"))
        guard let first = core.first, let last = core.last, (first == "[" && last == "]") || (first == "(" && last == ")") else { return false }
        let inner = core.dropFirst().dropLast()
        return !inner.isEmpty && inner.allSatisfy { ($0.isASCII && $0.isLowercase) || $0 == "-" || $0 == "_" }
    }
}

extension PseudoLanguage {
    /// What a page says to a reader: its text and the words of its titles, labels, buttons and
    /// placeholders, a line each; no script or style.
    public static func pageText(_ html: String) -> String {
        var text = html
        for element in ["script", "style"] {
            while let open = text.range(of: "<\(element)"), let close = text.range(of: "</\(element)>", range: open.upperBound..<text.endIndex) {
                text.removeSubrange(open.lowerBound..<close.upperBound)
            }
        }
        var lines: [String] = []
        // The attributes a reader sees or hears.
        for match in text.matches(of: /(?:title|placeholder|aria-label|alt)="([^"]*)"/) { lines.append(String(match.1)) }
        for match in text.matches(of: /<input[^>]*type="(?:submit|button)"[^>]*value="([^"]*)"/) { lines.append(String(match.1)) }
        lines += text.replacing(/<[^>]*>/, with: "\n").split(separator: "\n").map(String.init)
        return lines.map { line in
            line.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
                .replacingOccurrences(of: "&amp;", with: "&").trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }.joined(separator: "\n")
    }
}
