import Foundation

/// Finds what toml++ asserts on instead of reporting (an abort of the whole process, found by
/// `scripts/fuzz feed`) before the text reaches TOMLKit: a table header with no name where one
/// must start (`[.a]`, `[ ]`), a `}` where an array expects a value (`["a", }`), and dates and times (`1979-05-27T(7:32`), which no key of a feed
/// file takes. Strings and comments are skipped, and so are the brackets of array values, so
/// a `[` inside them is never taken for a header.
enum TOMLPreCheck {
    enum Problem: Equatable {
        case namelessHeader(line: Int)
        case dateOrTime(line: Int)
        case braceForValue(line: Int)

        var line: Int {
            switch self {
            case .namelessHeader(let line), .dateOrTime(let line), .braceForValue(let line): line
            }
        }

        var message: String {
            switch self {
            case .namelessHeader: "not valid TOML: a table header needs a name right after its '[' (like [columns] or [[prices.rules]])"
            case .braceForValue: "not valid TOML: a '}' where the array expects a value or its closing ']'"
            case .dateOrTime: "a date or a time, which no key of a feed file takes (text goes in quotes: \"2024-05-01\")"
            }
        }
    }

    /// The first problem, or nil.
    static func problem(in text: String) -> Problem? {
        let bytes = Array(text.utf8)
        var i = 0, line = 1
        // toml++ skips a byte order mark: the first line starts after it.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        // The open arrays ('[') and inline tables ('{') of a value.
        var open: [UInt8] = []
        var valueDue = false
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
                        if !triple { break }  // unterminated: the line is counted below
                        line += 1
                    }
                    if bytes[i] == byte, !triple || (at(1) == byte && at(2) == byte) { i += triple ? 3 : 1; break }
                    i += 1
                }
            case UInt8(ascii: "[") where lineStart && open.isEmpty:
                // A table header: `[name]` or `[[name]]`, spaces allowed inside.
                i += at(1) == UInt8(ascii: "[") ? 2 : 1
                while at(0) == UInt8(ascii: " ") || at(0) == UInt8(ascii: "\t") { i += 1 }
                if !startsKey(at(0)) { return .namelessHeader(line: line) }
                while i < bytes.count, bytes[i] != UInt8(ascii: "\n"), bytes[i] != UInt8(ascii: "#") { i += 1 }
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                open.append(byte); i += 1
                lineStart = false
                valueDue = byte == UInt8(ascii: "[")
                continue
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                // In an array, a value or its ']' is due after '[' and ','; toml++ asserts on '}' there.
                if valueDue, byte == UInt8(ascii: "}") { return .braceForValue(line: line) }
                if !open.isEmpty { open.removeLast() }
                i += 1
            case UInt8(ascii: ",") where open.last == UInt8(ascii: "["):
                i += 1
                lineStart = false
                valueDue = true
                continue
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                // A bare token from here: `1979-05-27…` or `07:32…` is a date or a time.
                func digit(_ offset: Int) -> Bool { at(offset).map { $0 >= 0x30 && $0 <= 0x39 } ?? false }
                if (digit(1) && digit(2) && digit(3) && at(4) == UInt8(ascii: "-")) || (digit(1) && at(2) == UInt8(ascii: ":")) {
                    return .dateOrTime(line: line)
                }
                while i < bytes.count, !Self.ends(bytes[i]) { i += 1 }
            default:
                // A key or a word (digits inside it are no date), or one mark (`=`, `,`, `{`).
                i += 1
                if !Self.ends(byte) { while i < bytes.count, !Self.ends(bytes[i]) { i += 1 } }
            }
            lineStart = false
            valueDue = false
        }
        return nil
    }

    /// Where a bare token ends.
    private static func ends(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"), UInt8(ascii: ","), UInt8(ascii: "]"),
             UInt8(ascii: "}"), UInt8(ascii: "#"), UInt8(ascii: "="), UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "\""), UInt8(ascii: "'"):
            true
        default: false
        }
    }
}
