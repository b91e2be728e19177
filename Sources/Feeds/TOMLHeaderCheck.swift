import Foundation

/// Finds a table header with no name where one must start (`[.a]`, `[ ]x`, `[[=]]`) before
/// the text reaches TOMLKit: toml++ asserts on it (an abort in debug builds, undefined
/// behaviour in release ones) instead of reporting it. Strings, comments and the brackets of
/// array values are skipped, so a `[` inside them is never taken for a header.
enum TOMLHeaderCheck {
    /// The line (from 1) of the first header that does not start with a name, or nil.
    static func nameless(in text: String) -> Int? {
        let bytes = Array(text.utf8)
        var i = 0, line = 1, depth = 0
        var lineStart = true
        func at(_ offset: Int) -> UInt8? { i + offset < bytes.count ? bytes[i + offset] : nil }
        func startsKey(_ byte: UInt8?) -> Bool {
            guard let byte else { return false }
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"),
                 UInt8(ascii: "\""), UInt8(ascii: "'"): return true
            default: return false
            }
        }
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "\n"):
                line += 1; lineStart = true; i += 1; continue
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                i += 1; continue
            case UInt8(ascii: "#"):
                while i < bytes.count, bytes[i] != UInt8(ascii: "\n") { i += 1 }
                continue
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                let triple = at(1) == byte && at(2) == byte
                i += triple ? 3 : 1
                while i < bytes.count {
                    if bytes[i] == UInt8(ascii: "\\"), byte == UInt8(ascii: "\"") { i += 2; continue }
                    if bytes[i] == UInt8(ascii: "\n") {
                        line += 1
                        if !triple { break }
                    }
                    if bytes[i] == byte, !triple || (at(1) == byte && at(2) == byte) { i += triple ? 3 : 1; break }
                    i += 1
                }
            case UInt8(ascii: "[") where lineStart && depth == 0:
                // A table header: `[name]` or `[[name]]`, spaces allowed inside.
                i += at(1) == UInt8(ascii: "[") ? 2 : 1
                while at(0) == UInt8(ascii: " ") || at(0) == UInt8(ascii: "\t") { i += 1 }
                if !startsKey(at(0)) { return line }
                while i < bytes.count, bytes[i] != UInt8(ascii: "\n"), bytes[i] != UInt8(ascii: "#") { i += 1 }
            case UInt8(ascii: "["):
                depth += 1; i += 1
            case UInt8(ascii: "]"):
                depth = max(0, depth - 1); i += 1
            default:
                i += 1
            }
            lineStart = false
        }
        return nil
    }
}
