import Foundation

/// HTML read from its UTF-8 bytes (issue 80): the text a buyer reads (`plain`), whether a tag
/// is in it, and the tidying of the lines made. Each says what the reading a Character at a
/// time says (`HTMLText.swift`, the reference), held equal by `HTMLTextTests`.
extension HTMLText {
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
                // A CR from `&#13;` joins the line break after it into one Character (CR LF), as a
                // mark joins: the text is read a Character at a time, as `joinsCharacters` sends it.
                if decoded.utf8.contains(0x0D) { return plainByCharacters(html) }
                text.append(decoded.utf8)
                index = semicolon + 1
                continue
            }
            text.append(bytes[index..<end])
            index = end
        }
        return tidy(bytes: text.out) ?? tidy(String(decoding: text.out, as: UTF8.self))
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
                if byte >= 0x80, edgeIsSpace(out[low..<high], atStart: true) { return nil }
                break
            }
            while high > low {
                let byte = out[high - 1]
                if byte == 0x20 || (0x09...0x0D).contains(byte) { high -= 1; continue }
                if byte >= 0x80, edgeIsSpace(out[low..<high], atStart: false) { return nil }
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

    /// Whether the scalar at the start (or the end) of `line`, a line's UTF-8, is a space (White_Space).
    private static func edgeIsSpace(_ line: ArraySlice<UInt8>, atStart: Bool) -> Bool {
        var bound = atStart ? line.startIndex + 1 : line.endIndex - 1
        if atStart { while bound < line.endIndex && line[bound] & 0xC0 == 0x80 { bound += 1 } }
        else { while bound > line.startIndex && line[bound] & 0xC0 == 0x80 { bound -= 1 } }
        let scalar = atStart ? line[..<bound] : line[bound...]
        return String(decoding: scalar, as: UTF8.self).unicodeScalars.first.map(ManifestValidator.isWhitespace) ?? false
    }

    /// `<p class="x"` as bytes → p (see `tagName(_: Substring)`).
    static func tagName(_ inside: ArraySlice<UInt8>) -> Tag? {
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
}
