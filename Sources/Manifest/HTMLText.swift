import Foundation

/// A description written in HTML (Shopify's `Body (HTML)`, WooCommerce's descriptions) made
/// into the text a buyer reads: paragraphs, headings, list items and `<br>` become line
/// breaks, other tags are dropped, entities decoded. Open Market shows a description as
/// plain text, so markup sent as it is reads as `<p>Soft &amp; warm</p>`.
public enum HTMLText {
    /// Whether the text has HTML markup: a tag (`<p>`, `</div>`, `<br/>`) or an entity (`&amp;`, `&#39;`).
    public static func looksLikeHTML(_ text: String) -> Bool {
        guard text.holdsByte(UInt8(ascii: "<")) || text.holdsByte(UInt8(ascii: "&")) else { return false }
        return hasTagByBytes(text) || hasEntity(text)
    }

    /// What a tag does to the text a buyer reads: the one decision both readings apply.
    enum Effect: Equatable {
        case none
        /// `<br>`, `</li>`.
        case lineBreak
        /// `<li>`: a line of its own that starts with a bullet.
        case listItem
        /// A block (`<p>`, `<div>`, a heading, a table row): on a line of its own; a paragraph's
        /// end (`</p>`, `</h2>`, `</table>`…) leaves an empty line after it.
        case block(paragraphEnd: Bool)
        /// `</td>`, `</th>`: a space before the next cell.
        case cellEnd
    }

    static func effect(of tag: Tag) -> Effect {
        switch tag.name {
        case "br": return .lineBreak
        case "li": return tag.closing ? .lineBreak : .listItem
        case "p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "ul", "ol", "table", "section", "article",
             "blockquote", "header", "footer", "dd", "dt":
            return .block(paragraphEnd: tag.closing && ["p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "table", "blockquote"].contains(tag.name))
        case "td", "th": return tag.closing ? .cellEnd : .none
        default: return .none
        }
    }

    /// Whether a scalar of the text joins the one before it into one Character (Grapheme
    /// cluster break Extend, ZWJ, SpacingMark) or the one after it (Prepend).
    static func joinsCharacters(_ text: String) -> Bool {
        // ASCII has no scalar at U+0300 or past it (most descriptions' HTML): a pass over the bytes.
        if text.isPlainASCII { return false }
        for scalar in text.unicodeScalars where scalar.value >= 0x300 {
            if (0xAC00...0xD7A3).contains(scalar.value) { continue }  // Hangul syllables
            let properties = scalar.properties
            switch properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: return true
            default: break
            }
            // Prepend: the prepended concatenation marks (U+0600–0605, U+06DD, U+070F, U+0890–0891,
            // U+08E2, U+110BD, U+110CD) and a few Indic letters; SpacingMark letters of Thai and Lao.
            if properties.isGraphemeExtend || properties.isEmojiModifier
                || (0x0600...0x0605).contains(scalar.value) || (0x0890...0x0891).contains(scalar.value)
                || [0x06DD, 0x070F, 0x08E2, 0x110BD, 0x110CD, 0x200D, 0x0E33, 0x0EB3, 0x0D4E, 0x111C2, 0x111C3, 0x11A3A, 0x11D46]
                    .contains(scalar.value)
                || (0x11A84...0x11A89).contains(scalar.value) {
                return true
            }
        }
        return false
    }

    /// At most one empty line between paragraphs; no blanks at the ends of lines or of the text.
    static func tidy(_ out: String) -> String {
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false)
            .map { ManifestValidator.trimmed(String($0)) }
        var kept: [String] = []
        for line in lines {
            if line.isEmpty, kept.last?.isEmpty ?? true { continue }
            kept.append(line)
        }
        while kept.last?.isEmpty == true { kept.removeLast() }
        return kept.joined(separator: "\n")
    }

    /// The text a buyer reads, a Character at a time: what `plain` said before it read bytes,
    /// kept as the reference it is tested against.
    package static func plainByCharacters(_ html: String) -> String {
        var out = ""
        out.reserveCapacity(html.utf8.count)
        var closes = CloseFinder(html)
        var index = html.startIndex
        var skipping: String? = nil  // inside <script> or <style>
        var pendingSpace = false
        func emit(_ text: String) {
            if pendingSpace, !out.isEmpty, out.last != "\n", out.last != " " { out.append(" ") }
            pendingSpace = false
            out.append(text)
        }
        func lineBreak() {
            pendingSpace = false
            while out.last == " " { out.removeLast() }
            out.append("\n")
        }
        while index < html.endIndex {
            let character = html[index]
            if character == "<", let close = closes.next(after: index),
               let tag = tagName(html[html.index(after: index)..<close]) {
                index = html.index(after: close)
                if let skip = skipping {
                    if tag.closing && tag.name == skip { skipping = nil }
                    continue
                }
                if !tag.closing && (tag.name == "script" || tag.name == "style") { skipping = tag.name; continue }
                switch effect(of: tag) {
                case .none: break
                case .lineBreak: lineBreak()
                case .listItem:
                    if !out.isEmpty && out.last != "\n" { lineBreak() }
                    out.append("• ")
                case .block(let paragraphEnd):
                    if !out.isEmpty && out.last != "\n" { lineBreak() }
                    if paragraphEnd { lineBreak() }
                case .cellEnd: pendingSpace = true
                }
                continue
            }
            if skipping != nil { index = html.index(after: index); continue }
            if character.isWhitespace {
                pendingSpace = true
                index = html.index(after: index)
                continue
            }
            if character == "&", let semicolon = html[index...].prefix(12).firstIndex(of: ";"),
               let decoded = entity(html[html.index(after: index)..<semicolon]) {
                emit(decoded)
                index = html.index(after: semicolon)
                continue
            }
            // A letter as it is (no string made of it: a description is mostly these).
            if pendingSpace, !out.isEmpty, out.last != "\n", out.last != " " { out.append(" ") }
            pendingSpace = false
            out.append(character)
            index = html.index(after: index)
        }
        return tidy(out)
    }

    struct Tag {
        var name: String
        var closing: Bool
    }

    /// `p class="x"` → p; `/div` → div (closing); `br/` → br. nil when not a tag (`a < b`).
    private static func tagName(_ inside: Substring) -> Tag? {
        var text = inside
        var closing = false
        if text.first == "/" { closing = true; text = text.dropFirst() }
        if text.first == "!" { return Tag(name: "!", closing: false) }  // comments, doctype
        let name = text.prefix { $0.isASCII && ($0.isLetter || $0.isNumber) }
        guard let first = name.first, first.isLetter else { return nil }
        let rest = text.dropFirst(name.count)
        guard rest.isEmpty || rest.first == " " || rest.first == "/" || rest.first == "\t" || rest.first == "\n" else { return nil }
        return Tag(name: name.lowercased(), closing: closing)
    }

    /// The first `>` after a position, for positions that only move forward: found once per
    /// `>`, not once per `<` (a cell of many `<` and one `>` at its end is read once).
    private struct CloseFinder {
        let text: String
        private var found: String.Index?
        private var searched: String.Index

        init(_ text: String) {
            self.text = text
            searched = text.startIndex
        }

        mutating func next(after position: String.Index) -> String.Index? {
            if let found, found > position { return found }
            if found == nil && searched > position { return nil }
            let start = max(position, searched)
            found = start < text.endIndex ? text[text.index(after: start)...].firstIndex(of: ">") : nil
            searched = found ?? text.endIndex
            return found
        }
    }

    package static func hasTag(_ text: String) -> Bool {
        var closes = CloseFinder(text)
        var index = text.startIndex
        while let open = text[index...].firstIndex(of: "<") {
            let after = text.index(after: open)
            guard let close = closes.next(after: open) else { return false }
            if let tag = tagName(text[after..<close]), tag.name != "!" { return true }
            index = after
        }
        return false
    }

    private static func hasEntity(_ text: String) -> Bool {
        var index = text.startIndex
        while let amp = text[index...].firstIndex(of: "&") {
            let after = text.index(after: amp)
            if let semicolon = text[after...].prefix(11).firstIndex(of: ";"), entity(text[after..<semicolon]) != nil { return true }
            index = after
        }
        return false
    }

    private static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "ndash": "–", "mdash": "—",
        "hellip": "…", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”", "middot": "·", "bull": "•",
        "copy": "©", "reg": "®", "trade": "™", "deg": "°", "times": "×", "euro": "€", "pound": "£", "yen": "¥",
        "won": "₩", "laquo": "«", "raquo": "»", "frac12": "½", "eacute": "é", "egrave": "è", "uuml": "ü",
        "ouml": "ö", "auml": "ä", "szlig": "ß", "ccedil": "ç",
    ]

    /// The text of an entity between `&` and `;`: named, `#39` or `#x27`.
    static func entity(_ body: Substring) -> String? {
        if body.first == "#" {
            let digits = body.dropFirst()
            let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            guard let value, value > 0, let scalar = Unicode.Scalar(value) else { return nil }
            return value == 0xA0 ? " " : String(Character(scalar))
        }
        return named[String(body)]
    }
}
