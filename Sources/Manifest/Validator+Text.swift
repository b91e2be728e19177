import Foundation
import OpenMarketContract
import Support

/// The texts of a row as the rules read them: trimmed, counted as a person counts characters,
/// and keys and names hashed to be compared across rows. Each is asked of every row, so each
/// reads the bytes in place where it can.
extension ManifestValidator {
    /// Trims whitespace and newlines, without Foundation's work when there is none.
    public static func trimmed(_ text: String) -> String {
        // ASCII ends that are not spaces: nothing to trim (most cells). Read from the bytes in
        // place (`utf8.last` walked the view's indices: 2 % of a Cafe24 file's reading).
        let plainEnds = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard let first = bytes.first, let last = bytes.last else { return false }
            return first > 0x20 && first < 0x80 && last > 0x20 && last < 0x80
        }
        if plainEnds == true { return text }
        let utf8 = text.utf8
        if plainEnds == nil, let first = utf8.first, let last = utf8.last, first > 0x20, first < 0x80, last > 0x20, last < 0x80 { return text }
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last else { return text }
        if !isWhitespace(first) && !isWhitespace(last) { return text }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether `trimmed(text)` is the text itself, from its end bytes where they are ASCII
    /// other than spaces (no string made).
    static func isTrimmed(_ text: String) -> Bool {
        let plainEnds = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard let first = bytes.first, let last = bytes.last else { return true }
            return first > 0x20 && first < 0x80 && last > 0x20 && last < 0x80
        }
        if plainEnds == true { return true }
        return trimmed(text).utf8.count == text.utf8.count
    }

    /// Unicode's White_Space property (what `properties.isWhitespace` looks up in tables), by
    /// value: a name's first and last letters are asked on every row.
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    /// `ProductRules.characterCount`, skipping grapheme breaking where every scalar is a character.
    static func characterCount(_ text: String) -> Int {
        if text.isPlainASCII, !text.holdsByte(0x0D) { return text.utf8.count }
        return simpleCount(text) ?? ProductRules.characterCount(text)
    }

    /// The characters of a text made only of ASCII other than CR and of Korean syllables
    /// (U+AC00–U+D7A3): there every scalar is a character of its own, since no two of them
    /// join (of the rules that join scalars into one character, only CR LF and the conjoining
    /// jamo, U+1100–U+11FF, apply to such scalars). Nil for any other text: it is counted the
    /// long way.
    static func simpleCount(_ text: String) -> Int? {
        if let counted = text.utf8.withContiguousStorageIfAvailable(simpleCount) { return counted }
        var count = 0
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x80 {
                if value == 0x0D { return nil }
            } else if value < 0xAC00 || value > 0xD7A3 {
                return nil
            }
            count += 1
        }
        return count
    }

    /// `simpleCount` over the text's UTF-8 (valid, as a `String`'s is): a Korean syllable is
    /// three bytes led by 0xEA–0xED, decoded only to be held to U+AC00–U+D7A3.
    private static func simpleCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var count = 0
        var index = 0
        let end = bytes.count
        while index < end {
            let byte = bytes[index]
            if byte < 0x80 {
                if byte == 0x0D { return nil }
                index += 1
            } else {
                guard byte >= 0xEA, byte <= 0xED, index + 2 < end else { return nil }
                let value = (UInt32(byte & 0x0F) << 12) | (UInt32(bytes[index + 1] & 0x3F) << 6) | UInt32(bytes[index + 2] & 0x3F)
                guard value >= 0xAC00, value <= 0xD7A3 else { return nil }
                index += 3
            }
            count += 1
        }
        return count
    }

    /// The hash of a key as rows are compared: lower case, a number without its leading zeros.
    /// ASCII keys (nearly all) are hashed byte by byte, with no string made.
    static func comparableHash(_ key: String) -> UInt64 {
        if let hash = key.utf8.withContiguousStorageIfAvailable(comparableHash) { return hash ?? FNV.hash(key.lowercased()) }
        return Array(key.utf8).withUnsafeBufferPointer(comparableHash) ?? FNV.hash(key.lowercased())
    }

    /// `comparableHash` of an ASCII key's bytes; nil for a key with any other byte.
    private static func comparableHash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        var digitsOnly = !bytes.isEmpty
        for byte in bytes {
            if byte >= 0x80 { return nil }
            if byte < 48 || byte > 57 { digitsOnly = false }
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var leading = digitsOnly
        for byte in bytes {
            if leading && byte == 48 { continue }
            leading = false
            let lower = byte >= 65 && byte <= 90 ? byte + 32 : byte
            hash = (hash ^ UInt64(lower)) &* 0x100_0000_01b3
        }
        // All zeros: the number 0.
        if leading { hash = (hash ^ 48) &* 0x100_0000_01b3 }
        return hash
    }

    /// FNV-1a of the text, to remember keys and names without keeping them.
    static func hash(_ text: String) -> UInt64 { FNV.hash(text) }
}
