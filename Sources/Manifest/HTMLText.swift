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

    /// `hasTag` on the UTF-8 bytes (it was a twentieth of a Cafe24 file's reading): the same
    /// answer where no mark joins a `<` or `>` to another character (`joinsCharacters`), which
    /// is asked as `hasTag` asks it. `HTMLTextTests` holds the two equal.
    package static func hasTagByBytes(_ text: String) -> Bool {
        guard text.holdsByte(UInt8(ascii: "<")) else { return false }
        if joinsCharacters(text) { return hasTag(text) }
        var text = text
        let bytes = text.withUTF8 { Array($0) }
        var closes = ByteCloseFinder(bytes)
        var index = 0
        while let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
            guard let close = closes.next(after: open) else { return false }
            if let tag = tagName(bytes[(open + 1)..<close]), tag.name != "!" { return true }
            index = open + 1
        }
        return false
    }

    /// The text a buyer reads, made from the UTF-8 bytes: markup, entities and spaces are
    /// ASCII, and every other character is copied as it is (a space of another script, `U+3000`,
    /// is told by its scalar). It says what `plainByCharacters` says, which walked the text a
    /// Character at a time and cost a Cafe24 file's reading a fifth of its time (issue 80);
    /// `HTMLTextTests` holds the two equal on random markup.
    public static func plain(_ html: String) -> String {
        // A mark that joins the character before it (a combining accent, a joiner, a Prepend
        // sign) makes one Character of an ASCII sign and itself (`;` + U+0323 is no `;`): such
        // text is read a Character at a time, as before. Korean (precomposed or a Mac's
        // decomposed jamo) has none.
        if joinsCharacters(html) { return plainByCharacters(html) }
        var html = html
        let bytes = html.withUTF8 { Array($0) }
        let count = bytes.count
        var text = ByteText(capacity: count)
        var closes = ByteCloseFinder(bytes)
        var skipping: String? = nil
        var index = 0
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<"), let end = closes.next(after: index), let tag = tagName(bytes[(index + 1)..<end]) {
                index = end + 1
                if let skip = skipping {
                    if tag.closing && tag.name == skip { skipping = nil }
                    continue
                }
                if !tag.closing && (tag.name == "script" || tag.name == "style") { skipping = tag.name; continue }
                text.apply(effect(of: tag))
                continue
            }
            // One character: its bytes, and whether it is a space.
            let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
            let end = min(index + length, count)
            if skipping != nil { index = end; continue }
            let isSpace: Bool
            if byte < 0x80 {
                isSpace = byte == 0x20 || (0x09...0x0D).contains(byte)
            } else {
                isSpace = String(decoding: bytes[index..<end], as: UTF8.self).unicodeScalars.first?.properties.isWhitespace ?? false
            }
            if isSpace {
                text.pendingSpace = true
                index = end
                continue
            }
            if byte == UInt8(ascii: "&"), let semicolon = bytes[index..<min(index + 12, count)].firstIndex(of: UInt8(ascii: ";")),
               let decoded = entity(Substring(String(decoding: bytes[(index + 1)..<semicolon], as: UTF8.self))) {
                text.append(decoded.utf8)
                index = semicolon + 1
                continue
            }
            text.append(bytes[index..<end])
            index = end
        }
        return tidy(bytes: text.out) ?? tidy(String(decoding: text.out, as: UTF8.self))
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

    /// The text being made from bytes, with a space owed before the next character.
    private struct ByteText {
        var out: [UInt8] = []
        var pendingSpace = false

        init(capacity: Int) { out.reserveCapacity(capacity) }

        mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
            if pendingSpace, let last = out.last, last != 0x0A, last != 0x20 { out.append(0x20) }
            pendingSpace = false
            out.append(contentsOf: bytes)
        }

        mutating func lineBreak() {
            pendingSpace = false
            while out.last == 0x20 { out.removeLast() }
            out.append(0x0A)
        }

        mutating func apply(_ effect: Effect) {
            switch effect {
            case .none: break
            case .lineBreak: lineBreak()
            case .listItem:
                if !out.isEmpty && out.last != 0x0A { lineBreak() }
                out.append(contentsOf: "• ".utf8)
            case .block(let paragraphEnd):
                if !out.isEmpty && out.last != 0x0A { lineBreak() }
                if paragraphEnd { lineBreak() }
            case .cellEnd: pendingSpace = true
            }
        }
    }

    /// `CloseFinder` over bytes: the first `>` after a position, found once per `>`.
    private struct ByteCloseFinder {
        let bytes: [UInt8]
        private var found: Int?
        private var searched = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func next(after position: Int) -> Int? {
            if let found, found > position { return found }
            if found == nil && searched > position { return nil }
            let start = max(position, searched) + 1
            found = start < bytes.count ? bytes[start...].firstIndex(of: UInt8(ascii: ">")) : nil
            searched = found ?? bytes.count
            return found
        }
    }

    /// Whether a scalar of the text joins the one before it into one Character (Grapheme
    /// cluster break Extend, ZWJ, SpacingMark) or the one after it (Prepend).
    static func joinsCharacters(_ text: String) -> Bool {
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

    /// `tidy` on the bytes made, without a String per line (it was half of `plain`'s time on a
    /// Cafe24 file's `<p>Row 1</p>`). Nil where the two could differ: a CR (CR LF is one Character,
    /// which `tidy` does not split) or a space of another script at a line's end (trimmed by
    /// Foundation's set): those are tidied as Strings.
    private static func tidy(bytes out: [UInt8]) -> String? {
        var kept: [UInt8] = []
        kept.reserveCapacity(out.count)
        var emptyLast = true  // no line kept yet counts as an empty one before
        var pendingEmpty = false
        var start = 0
        let count = out.count
        while start <= count {
            var end = start
            while end < count && out[end] != 0x0A {
                if out[end] == 0x0D { return nil }
                end += 1
            }
            let next = end + 1
            // Trim ASCII spaces at both ends; a non-ASCII scalar at an end that is a space: nil.
            var low = start, high = end
            while low < high {
                let byte = out[low]
                if byte == 0x20 || (0x09...0x0D).contains(byte) { low += 1; continue }
                if byte >= 0x80, startsSpace(out, low) { return nil }
                break
            }
            while high > low {
                let byte = out[high - 1]
                if byte == 0x20 || (0x09...0x0D).contains(byte) { high -= 1; continue }
                if byte >= 0x80, endsSpace(out, low, high) { return nil }
                break
            }
            if low == high {
                if !emptyLast { pendingEmpty = true; emptyLast = true }
            } else {
                if pendingEmpty { kept.append(0x0A); pendingEmpty = false }
                if !kept.isEmpty { kept.append(0x0A) }
                kept.append(contentsOf: out[low..<high])
                emptyLast = false
            }
            start = next
        }
        return String(decoding: kept, as: UTF8.self)
    }

    /// Whether the scalar whose UTF-8 starts at `index` is a space (White_Space).
    private static func startsSpace(_ bytes: [UInt8], _ index: Int) -> Bool {
        var end = index + 1
        while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
        return String(decoding: bytes[index..<end], as: UTF8.self).unicodeScalars.first.map(ManifestValidator.isWhitespace) ?? false
    }

    /// Whether the scalar whose UTF-8 ends at `end` (not before `low`) is a space (White_Space).
    private static func endsSpace(_ bytes: [UInt8], _ low: Int, _ end: Int) -> Bool {
        var start = end - 1
        while start > low && bytes[start] & 0xC0 == 0x80 { start -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self).unicodeScalars.last.map(ManifestValidator.isWhitespace) ?? false
    }

    /// At most one empty line between paragraphs; no blanks at the ends of lines or of the text.
    private static func tidy(_ out: String) -> String {
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

    /// `<p class="x"` as bytes → p (see `tagName(_: Substring)`).
    private static func tagName(_ inside: ArraySlice<UInt8>) -> Tag? {
        var text = inside
        var closing = false
        if text.first == UInt8(ascii: "/") { closing = true; text = text.dropFirst() }
        if text.first == UInt8(ascii: "!") { return Tag(name: "!", closing: false) }
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        let name = text.prefix { isLetter($0) || (0x30...0x39).contains($0) }
        guard let first = name.first, isLetter(first) else { return nil }
        let rest = text.dropFirst(name.count)
        guard rest.isEmpty || [UInt8(ascii: " "), UInt8(ascii: "/"), UInt8(ascii: "\t"), UInt8(ascii: "\n")].contains(rest.first!) else { return nil }
        return Tag(name: String(decoding: name, as: UTF8.self).lowercased(), closing: closing)
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
        // At most one empty line between paragraphs; no blanks at the ends of lines or of the text.
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
    private static func entity(_ body: Substring) -> String? {
        if body.first == "#" {
            let digits = body.dropFirst()
            let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            guard let value, value > 0, let scalar = Unicode.Scalar(value) else { return nil }
            return value == 0xA0 ? " " : String(Character(scalar))
        }
        return named[String(body)]
    }
}
