import Foundation
import Words

/// Stops what toml++ asserts on instead of reporting (an abort of the whole process, found by
/// `scripts/fuzz feed`) before the text reaches TOMLKit. A feed file holds text in quotes,
/// numbers, true and false, arrays and inline tables; so a bare value must be a plain number or
/// a boolean (toml++'s scan of other bare values — dates, `4--0--`, hex — asserted), a table
/// header must start with a name (`[.a]` asserted), and a `}` cannot stand where an array
/// expects a value (`["a", }` asserted). Strings and comments are skipped, so nothing in them
/// is taken for any of these.
enum TOMLPreCheck {
    enum Problem: Equatable {
        case namelessHeader(line: Int)
        case bareValue(line: Int, value: String)
        case braceForValue(line: Int)

        var line: Int {
            switch self {
            case .namelessHeader(let line), .bareValue(let line, _), .braceForValue(let line): line
            }
        }

        var phrase: Phrase {
            switch self {
            case .namelessHeader: Phrase("fm_nameless_header")
            case .braceForValue: Phrase("fm_brace_for_value")
            case .bareValue(_, let value) where TOMLPreCheck.looksLikeDate(value): Phrase("fm_date_value", value)
            case .bareValue(_, let value): Phrase("fm_bare_value", String(value.prefix(40)))
            }
        }
    }

    /// The first problem, or nil.
    static func problem(in text: String) -> Problem? {
        var scanner = Scanner(Array(text.utf8))
        return scanner.run()
    }

    static func looksLikeDate(_ token: String) -> Bool {
        let bytes = Array(token.utf8.prefix(5))
        func digit(_ n: Int) -> Bool { n < bytes.count && bytes[n] >= 0x30 && bytes[n] <= 0x39 }
        return (digit(0) && digit(1) && digit(2) && digit(3) && bytes.count > 4 && bytes[4] == UInt8(ascii: "-"))
            || (digit(0) && digit(1) && bytes.count > 2 && bytes[2] == UInt8(ascii: ":"))
    }

    /// `12`, `-3`, `+1_000`, `2.5`, `1e-5`, `inf`, `nan`, `true`, `false`.
    static func isPlainValue(_ token: String) -> Bool {
        if ["true", "false", "inf", "+inf", "-inf", "nan", "+nan", "-nan"].contains(token) { return true }
        var bytes = Substring(token).utf8[...]
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        func digits() -> Bool {
            guard let first = bytes.first, first >= 0x30, first <= 0x39 else { return false }
            var last = first
            while let byte = bytes.first, (byte >= 0x30 && byte <= 0x39) || (byte == UInt8(ascii: "_") && last != byte) {
                last = byte
                bytes = bytes.dropFirst()
            }
            return last != UInt8(ascii: "_")
        }
        guard digits() else { return false }
        if bytes.first == UInt8(ascii: ".") { bytes = bytes.dropFirst(); guard digits() else { return false } }
        if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard digits() else { return false }
        }
        return bytes.isEmpty
    }

    private struct Scanner {
        let bytes: [UInt8]
        var i = 0, line = 1
        var lineStart = true
        /// The open arrays (`[`) and inline tables (`{`) of a value.
        var open: [UInt8] = []
        /// After `=`, or `[` and `,` in an array: the next bare token is a value.
        var valueNext = false

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
            // toml++ skips a byte order mark: the first line starts after it.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        }

        func at(_ offset: Int) -> UInt8? { i + offset < bytes.count ? bytes[i + offset] : nil }

        mutating func run() -> Problem? {
            while i < bytes.count {
                let byte = bytes[i]
                switch byte {
                case UInt8(ascii: "\n"):
                    line += 1; lineStart = true; i += 1
                    continue
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                    i += 1
                    continue
                case UInt8(ascii: "#"):
                    while i < bytes.count, bytes[i] != UInt8(ascii: "\n") { i += 1 }
                    continue
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    skipString(byte)
                    valueNext = false
                case UInt8(ascii: "[") where lineStart && open.isEmpty:
                    // A table header: `[name]` or `[[name]]`, spaces allowed inside.
                    i += at(1) == UInt8(ascii: "[") ? 2 : 1
                    while at(0) == UInt8(ascii: " ") || at(0) == UInt8(ascii: "\t") { i += 1 }
                    guard let first = at(0), Self.startsKey(first) else { return .namelessHeader(line: line) }
                    while i < bytes.count, bytes[i] != UInt8(ascii: "\n"), bytes[i] != UInt8(ascii: "#") { i += 1 }
                    valueNext = false
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    open.append(byte); i += 1
                    valueNext = byte == UInt8(ascii: "[")
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    if valueNext, byte == UInt8(ascii: "}"), open.last == UInt8(ascii: "[") { return .braceForValue(line: line) }
                    if !open.isEmpty { open.removeLast() }
                    i += 1
                    valueNext = false
                case UInt8(ascii: "="):
                    i += 1
                    valueNext = true
                case UInt8(ascii: ","):
                    i += 1
                    valueNext = open.last == UInt8(ascii: "[")
                default:
                    // A bare token: a key (or a dotted one), or a value after `=`.
                    let start = i
                    while i < bytes.count, !Self.ends(bytes[i]) { i += 1 }
                    if i == start { i += 1 }  // a byte no token holds: toml++ says what it is
                    if valueNext {
                        let token = String(decoding: bytes[start..<i], as: UTF8.self)
                        if !TOMLPreCheck.isPlainValue(token) { return .bareValue(line: line, value: token) }
                    }
                    valueNext = false
                }
                lineStart = false
            }
            return nil
        }

        mutating func skipString(_ quote: UInt8) {
            let triple = at(1) == quote && at(2) == quote
            i += triple ? 3 : 1
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "\\"), quote == UInt8(ascii: "\"") { i += 2; continue }
                if bytes[i] == UInt8(ascii: "\n") {
                    if !triple { return }  // unterminated: the newline is counted by the caller
                    line += 1
                }
                if bytes[i] == quote, !triple {
                    i += 1
                    return
                }
                if bytes[i] == quote {
                    // Up to two quotes of the content may stand before the closing three (`'''''`).
                    var run = 0
                    while at(run) == quote { run += 1 }
                    i += min(run, 5)
                    if run >= 3 { return }
                    continue
                }
                i += 1
            }
        }

        static func startsKey(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"),
                 UInt8(ascii: "\""), UInt8(ascii: "'"): true
            default: false
            }
        }

        /// Where a bare token ends.
        static func ends(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"), UInt8(ascii: ","),
                 UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "#"),
                 UInt8(ascii: "="), UInt8(ascii: "\""), UInt8(ascii: "'"): true
            default: false
            }
        }
    }
}
