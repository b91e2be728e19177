import Foundation
import Support

/// One value of a product's JSON object, as a cell reads it.
enum JSONCell: Equatable {
    /// A string, a number (its digits, as written: `12.50` is `12.5`, `1e3` is `1000`), `true` or `false`.
    case text(String)
    /// An array of such values (a product's photos); nested values as their JSON text.
    case list([String])
    case null
    /// An object, or an array holding arrays or objects: its JSON text as written.
    case nested(String)

    /// The cell's text: a list joined with `;` (as a sheet's photos cell), null empty.
    var joined: String {
        switch self {
        case .text(let text), .nested(let text): text
        case .list(let items): items.joined(separator: ";")
        case .null: ""
        }
    }
}

/// A product's JSON object read straight from its bytes into keys and cells: no Foundation
/// object per row (a JSON sheet of 300,000 rows was read 5 times slower than the same CSV
/// through `JSONSerialization`). Strict JSON (RFC 8259): what it refuses, `JSONSerialization`
/// refused too, and the message says where.
struct JSONRowReader {
    enum Failure: Error, Equatable {
        /// Not JSON at all, with what and where (a byte offset from the object's start).
        case invalid(String)
        /// Valid JSON, but not an object.
        case notAnObject
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var i = 0
    /// Bytes that are not UTF-8 in a string read as U+FFFD (a JSON Lines file, read as text
    /// line by line before), instead of refused (a JSON array, refused by JSONSerialization before).
    private let repairing: Bool
    /// The keys the last object had, by place (nil: one with an escape, a quote or a control
    /// character, never matched on its bytes): a key whose bytes are the same is that String.
    private var knownKeys: [String?] = []
    /// How many of `knownKeys`, from the first, are known and distinct (`distinctPrefix`).
    private var distinctKnown = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>, repairing: Bool) {
        self.bytes = bytes
        self.repairing = repairing
    }

    /// The object's keys and cells in order (a key given twice: the last one, as JSONSerialization).
    static func object(_ bytes: some ContiguousBytes, repairingUTF8: Bool = false) throws(Failure) -> [(key: String, cell: JSONCell)] {
        var keys = KnownKeys()
        return try bytes.withUnsafeBytes { raw in
            Result { () throws(Failure) in try object(raw, repairingUTF8: repairingUTF8, keys: &keys) }
        }.get()
    }

    /// The same for one of a run of objects, `keys` the last one's (see `knownKeys`): rows name
    /// the same keys in the same order, and a key is then not made into a String again.
    static func object(_ bytes: UnsafeRawBufferPointer, repairingUTF8: Bool = false, keys: inout KnownKeys) throws(Failure) -> [(key: String, cell: JSONCell)] {
        var reader = JSONRowReader(bytes.bindMemory(to: UInt8.self), repairing: repairingUTF8)
        swap(&reader.knownKeys, &keys.keys)
        reader.distinctKnown = keys.distinct
        defer {
            swap(&reader.knownKeys, &keys.keys)
            keys.distinct = reader.distinctKnown
        }
        return try reader.wholeObject()
    }

    /// The last object's keys by place (`knownKeys`), handed from one object to the next, and
    /// how many of them from the first are distinct.
    struct KnownKeys {
        var keys: [String?] = []
        var distinct = 0
    }

    private mutating func wholeObject() throws(Failure) -> [(key: String, cell: JSONCell)] {
        skipSpace()
        guard peek == UInt8(ascii: "{") else {
            // Say "not an object" only of valid JSON (`42`, `[1]`), as before.
            _ = try rawValue()
            skipSpace()
            guard i == bytes.count else { throw invalid("text after the value") }
            throw .notAnObject
        }
        i += 1
        var fields: [(key: String, cell: JSONCell)] = []
        // Room for the last object's keys at once (grown one by one it was allocated four times a row).
        fields.reserveCapacity(max(knownKeys.count, 8))
        // The keys so far each the last object's at its place, and those distinct: this one is new
        // among them too when it is also the last object's (no comparison with each before it).
        var asLast = distinctKnown > 0
        // A key given twice keeps its last value. Looked for among the fields while they are
        // few (a row's dozen: no dictionary made per row), by a dictionary past that.
        var positions: [String: Int] = [:]
        var place = 0
        skipSpace()
        if peek == UInt8(ascii: "}") {
            i += 1
        } else {
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\"") else { throw invalid("a key (a string) expected") }
                let (key, known) = try key(at: place)
                asLast = asLast && known && place < distinctKnown
                place += 1
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw invalid("':' expected after the key \"\(key)\"") }
                i += 1
                skipSpace()
                let cell = try cell()
                if asLast {
                    fields.append((key, cell))
                    if fields.count == 32 { for (at, field) in fields.enumerated() { positions[field.key] = at } }
                } else if fields.count < 32 {
                    if let at = fields.firstIndex(where: { $0.key == key }) { fields[at].cell = cell } else { fields.append((key, cell)) }
                    if fields.count == 32 { for (at, field) in fields.enumerated() { positions[field.key] = at } }
                } else if let at = positions[key] {
                    fields[at].cell = cell
                } else {
                    positions[key] = fields.count
                    fields.append((key, cell))
                }
                skipSpace()
                guard let next = peek else { throw invalid("the object is not closed") }
                i += 1
                if next == UInt8(ascii: "}") { break }
                guard next == UInt8(ascii: ",") else { throw invalid("',' or '}' expected") }
            }
        }
        skipSpace()
        guard i == bytes.count else { throw invalid("text after the object") }
        return fields
    }

    /// A key from its opening quote: the last object's key at this place when the bytes are
    /// its bytes (then closed by a quote), else read as a string and kept for the next object.
    /// The key at `place`, and whether it is the last object's key there (the same bytes).
    private mutating func key(at place: Int) throws(Failure) -> (String, Bool) {
        if place < knownKeys.count, var known = knownKeys[place] {
            let start = i + 1, count = known.utf8.count
            if count > 0, start + count < bytes.count, bytes[start + count] == UInt8(ascii: "\""),
               known.withUTF8({ memcmp($0.baseAddress!, bytes.baseAddress! + start, count) == 0 }) {
                i = start + count + 1
                return (known, true)
            }
        }
        let key = try string()
        let plain = key.utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") } ? key : nil
        if place < knownKeys.count { knownKeys[place] = plain } else if place == knownKeys.count { knownKeys.append(plain) }
        distinctKnown = Self.distinctPrefix(knownKeys)
        return (key, false)
    }

    /// How many of the keys from the first are known and differ from one another (as `==` compares texts).
    private static func distinctPrefix(_ keys: [String?]) -> Int {
        var count = 0
        for (place, key) in keys.enumerated() {
            guard let key, !keys[..<place].contains(where: { $0 == key }) else { break }
            count = place + 1
        }
        return count
    }

    private mutating func cell() throws(Failure) -> JSONCell {
        switch peek {
        case UInt8(ascii: "\""): return .text(try string())
        case UInt8(ascii: "["):
            let start = i
            if let scalars = try scalarList() { return .list(scalars) }
            i = start
            return .nested(try rawValue())
        case UInt8(ascii: "{"): return .nested(try rawValue())
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "t"): try literal("true"); return .text("true")
        case UInt8(ascii: "f"): try literal("false"); return .text("false")
        default: return .text(try number())
        }
    }

    /// `[scalar, …]` as texts; nil when an element is an array or an object (then read as JSON text).
    private mutating func scalarList() throws(Failure) -> [String]? {
        i += 1
        var items: [String] = []
        skipSpace()
        if peek == UInt8(ascii: "]") { i += 1; return items }
        while true {
            skipSpace()
            switch try cell() {
            case .text(let text): items.append(text)
            case .null: items.append("")
            case .list, .nested: return nil
            }
            skipSpace()
            guard let next = peek else { throw invalid("the array is not closed") }
            i += 1
            if next == UInt8(ascii: "]") { return items }
            guard next == UInt8(ascii: ",") else { throw invalid("',' or ']' expected") }
        }
    }

    /// Any value, checked, as the text it was written as.
    private mutating func rawValue() throws(Failure) -> String {
        let start = i
        try skipValue(depth: 0)
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
    }

    private mutating func skipValue(depth: Int) throws(Failure) {
        guard depth < 256 else { throw invalid("nested more than 256 deep") }
        skipSpace()
        switch peek {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let close = peek == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
            let isObject = close == UInt8(ascii: "}")
            i += 1
            skipSpace()
            if peek == close { i += 1; return }
            while true {
                skipSpace()
                if isObject {
                    guard peek == UInt8(ascii: "\"") else { throw invalid("a key (a string) expected") }
                    _ = try string()
                    skipSpace()
                    guard peek == UInt8(ascii: ":") else { throw invalid("':' expected") }
                    i += 1
                }
                try skipValue(depth: depth + 1)
                skipSpace()
                guard let next = peek else { throw invalid("not closed") }
                i += 1
                if next == close { return }
                guard next == UInt8(ascii: ",") else { throw invalid("',' expected") }
            }
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        default: _ = try number()
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard i + count <= bytes.count,
              word.withUTF8Buffer({ word in word.indices.allSatisfy { bytes[i + $0] == word[$0] } }) else {
            throw invalid("unexpected \(peek.map { "'\(Character(Unicode.Scalar($0)))'" } ?? "end")")
        }
        i += count
    }

    /// A number as its digits: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`, trailing zeros of
    /// its fraction dropped (`10.0` is `10`, as `JSONSerialization`'s number said it), an exponent
    /// worked out exactly.
    private mutating func number() throws(Failure) -> String {
        let start = i
        if peek == UInt8(ascii: "-") { i += 1 }
        guard let first = peek, isDigit(first) else { throw invalid(peek == nil ? "a value expected" : "unexpected '\(Character(Unicode.Scalar(bytes[i])))'") }
        i += 1
        if first != UInt8(ascii: "0") { while let d = peek, isDigit(d) { i += 1 } }
        var fraction = false, exponent = false
        if peek == UInt8(ascii: ".") {
            i += 1
            guard let d = peek, isDigit(d) else { throw invalid("a digit expected after '.'") }
            while let d = peek, isDigit(d) { i += 1 }
            fraction = true
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            i += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { i += 1 }
            guard let d = peek, isDigit(d) else { throw invalid("a digit expected in the exponent") }
            while let d = peek, isDigit(d) { i += 1 }
            exponent = true
        }
        var text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        if exponent {
            if let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) { text = "\(value)" }
        } else if fraction {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            if text == "-0" { text = "0" }
        }
        return text
    }

    /// A string from its opening quote: unescaped, UTF-8 checked.
    private mutating func string() throws(Failure) -> String {
        i += 1
        let start = i
        // Fast path: no escape, read as it is.
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<i])
                i += 1
                return try text(slice)
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw invalid("a control character in a string") }
            i += 1
        }
        var out: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[start..<min(i, bytes.count)]))
        while i < bytes.count {
            let byte = bytes[i]
            i += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try out.withUnsafeBufferPointer { buffer throws(Failure) in try text(buffer) }
            case UInt8(ascii: "\\"):
                guard let escape = peek else { throw invalid("the string is not closed") }
                i += 1
                if let byte = JSONEscape.simple(escape) {
                    out.append(byte)
                    continue
                }
                switch escape {
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        // A surrogate pair: the low half must follow.
                        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                            throw invalid("a lone surrogate \\u\(String(scalar, radix: 16))")
                        }
                        i += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw invalid("a lone surrogate") }
                        scalar = JSONEscape.pair(high: scalar, low: low)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw invalid("a lone surrogate")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw invalid("a \\u escape that is no character") }
                    out.append(contentsOf: Array(String(Character(unicode)).utf8))
                default: throw invalid("an unknown escape \\\(Character(Unicode.Scalar(escape)))")
                }
            default:
                guard byte >= 0x20 else { throw invalid("a control character in a string") }
                out.append(byte)
            }
        }
        throw invalid("the string is not closed")
    }

    private func text(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> String {
        // Decoding repairs what is not UTF-8 (with U+FFFD): the same bytes back say it was UTF-8.
        // (`String(validating:)` is generic, and cost a quarter of a JSON Lines file's reading.)
        let decoded = String(decoding: bytes, as: UTF8.self)
        // Repaired or not, the decoded text is the string (JSON Lines): no comparison with the bytes.
        if repairing { return decoded }
        let same = decoded.utf8.count == bytes.count
            && (bytes.isEmpty || decoded.utf8.withContiguousStorageIfAvailable { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
                ?? decoded.utf8.elementsEqual(bytes))
        guard same else { throw invalid("a string is not UTF-8") }
        return decoded
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard i + 4 <= bytes.count else { throw invalid("a \\u escape cut off") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[i]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw invalid("a \\u escape with a non-hex digit")
            }
            value = value << 4 | digit
            i += 1
        }
        return value
    }

    private var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipSpace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { i += 1 }
    }

    private func invalid(_ what: String) -> Failure { .invalid("\(what) at byte \(i + 1)") }
}
