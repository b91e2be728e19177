import Foundation

/// Bytes of the part being tokenized, valid only during the call they are given to.
typealias XMLBytes = Slice<UnsafeBufferPointer<UInt8>>

/// What `XMLTokens` reports, in document order. Names are local names (a prefix such
/// as `x:` is dropped); attribute values and text are already unescaped.
protocol XMLTokenHandler {
    mutating func start(_ name: XMLBytes, attributes: XMLAttributes) throws
    mutating func end(_ name: XMLBytes) throws
    /// Text between tags (called only while `wantsText` is true, to skip the rest cheaply).
    mutating func text(_ bytes: XMLBytes) throws
    var wantsText: Bool { get }
}

/// The attributes of one start tag, read on demand.
struct XMLAttributes {
    let bytes: XMLBytes

    /// The unescaped value of the attribute with this local name.
    func value(_ name: StaticString) throws -> [UInt8]? {
        let wanted = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        var found: [UInt8]? = nil
        try each { attributeName, value in
            if found == nil, attributeName.elementsEqual(wanted) { found = try XMLTokens.unescape(value) }
        }
        return found
    }

    /// The attribute with this local name as text.
    func string(_ name: StaticString) throws -> String? {
        try value(name).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Every attribute: its local name and its raw (escaped) value.
    func each(_ body: (XMLBytes, XMLBytes) throws -> Void) throws {
        var index = bytes.startIndex
        let end = bytes.endIndex
        while index < end {
            while index < end, XMLTokens.isSpace(bytes[index]) { index += 1 }
            let nameStart = index
            while index < end, bytes[index] != UInt8(ascii: "="), !XMLTokens.isSpace(bytes[index]) { index += 1 }
            let attributeName = XMLTokens.localName(bytes[nameStart..<index])
            while index < end, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "'") { index += 1 }
            guard index < end else { return }
            let quote = bytes[index]
            index += 1
            let valueStart = index
            while index < end, bytes[index] != quote { index += 1 }
            guard index < end else { throw XMLTokens.Failure.malformed("an attribute without its closing quote") }
            try body(attributeName, bytes[valueStart..<index])
            index += 1
        }
    }
}

/// A small, strict XML tokenizer for the two big and regular parts of a workbook (the
/// sheet's cells and the shared strings), fed in chunks as the zip inflates them.
/// Foundation's XMLParser alone took 2.4 s on the benchmark's 100,000-row sheet (47 MB of
/// XML), more than this reader with inflating and validation takes in all (1.4–1.5 s).
///
/// It knows elements, attributes, text, CDATA, comments and processing instructions,
/// the five predefined entities and character references. A document type declaration
/// is refused outright: no entity is ever defined, so none can expand.
struct XMLTokens {
    enum Failure: Error, Equatable {
        case doctype
        case malformed(String)
    }

    private var carry: [UInt8] = []
    /// Bytes of one token held while waiting for its end; a tag or text longer than this is refused.
    static let maxTokenBytes = 64 << 20

    /// Tokenizes what can be, keeping an unfinished token for the next chunk.
    mutating func feed<Handler: XMLTokenHandler>(_ chunk: UnsafeRawBufferPointer, into handler: inout Handler) throws {
        carry.append(contentsOf: chunk)
        let consumed = try scan(&handler)
        if consumed > 0 { carry.removeFirst(consumed) }
        if carry.count > Self.maxTokenBytes {
            throw Failure.malformed("a single tag or text of more than \(Self.maxTokenBytes >> 20) MB")
        }
    }

    /// The end of the part: nothing may be left unfinished but blank text.
    mutating func finish<Handler: XMLTokenHandler>(into handler: inout Handler) throws {
        if carry.contains(UInt8(ascii: "<")) { throw Failure.malformed("the part ends inside a tag") }
        carry.removeAll()
    }

    /// Scans complete tokens of `carry`; returns how many bytes were used.
    private func scan<Handler: XMLTokenHandler>(_ handler: inout Handler) throws -> Int {
        try carry.withUnsafeBufferPointer { try Self.scan($0, &handler) }
    }

    private static func scan<Handler: XMLTokenHandler>(_ bytes: UnsafeBufferPointer<UInt8>, _ handler: inout Handler) throws -> Int {
        let end = bytes.count
        var index = 0
        var used = 0
        while index < end {
            if bytes[index] != UInt8(ascii: "<") {
                // text up to the next tag
                let next = Self.nextTag(bytes, from: index)
                // Text nobody wants is dropped as it comes, so blanks cannot pile up.
                guard next < end else { return handler.wantsText ? used : end }
                if handler.wantsText {
                    let text = bytes[index..<next]
                    if text.contains(UInt8(ascii: "&")) {
                        try Self.unescape(text).withUnsafeBufferPointer { try handler.text($0[...]) }
                    }
                    else { try handler.text(text) }
                }
                index = next
                used = index
                continue
            }
            guard index + 1 < end else { return used }
            let second = bytes[index + 1]
            if second == UInt8(ascii: "?") {
                guard let close = Self.find(bytes, "?>", from: index + 2) else { return used }
                index = close + 2
            } else if second == UInt8(ascii: "!") {
                if Self.starts(bytes, "<!--", at: index) {
                    guard let close = Self.find(bytes, "-->", from: index + 4) else { return used }
                    index = close + 3
                } else if Self.starts(bytes, "<![CDATA[", at: index) {
                    guard let close = Self.find(bytes, "]]>", from: index + 9) else { return used }
                    if handler.wantsText { try handler.text(bytes[(index + 9)..<close]) }
                    index = close + 3
                } else if end - index >= 9 {
                    // <!DOCTYPE, <!ENTITY, <!ELEMENT…: never in a workbook, and the way to entity bombs.
                    throw Failure.doctype
                } else {
                    return used
                }
            } else {
                var close = index + 1
                var quote: UInt8 = 0
                while close < end {
                    let byte = bytes[close]
                    if quote != 0 { if byte == quote { quote = 0 } }
                    else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { quote = byte }
                    else if byte == UInt8(ascii: ">") { break }
                    close += 1
                }
                guard close < end else { return used }
                if second == UInt8(ascii: "/") {
                    var nameEnd = index + 2
                    while nameEnd < close, !Self.isSpace(bytes[nameEnd]) { nameEnd += 1 }
                    try handler.end(Self.localName(bytes[(index + 2)..<nameEnd]))
                } else {
                    let selfClosing = bytes[close - 1] == UInt8(ascii: "/")
                    let inner = (index + 1)..<(selfClosing ? close - 1 : close)
                    var nameEnd = inner.lowerBound
                    while nameEnd < inner.upperBound, !Self.isSpace(bytes[nameEnd]) { nameEnd += 1 }
                    let name = Self.localName(bytes[inner.lowerBound..<nameEnd])
                    guard !name.isEmpty else { throw Failure.malformed("a tag without a name") }
                    try handler.start(name, attributes: XMLAttributes(bytes: bytes[nameEnd..<inner.upperBound]))
                    if selfClosing { try handler.end(name) }
                }
                index = close + 1
            }
            used = index
        }
        return used
    }

    /// The index of the next `<` at or after `start`, or `bytes.count`.
    private static func nextTag(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = buffer.baseAddress, start < buffer.count,
              let hit = memchr(base + start, Int32(UInt8(ascii: "<")), buffer.count - start) else { return buffer.count }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// `x:c` → `c`.
    static func localName(_ name: XMLBytes) -> XMLBytes {
        if let colon = name.lastIndex(of: UInt8(ascii: ":")) { return name[(colon + 1)...] }
        return name
    }

    private static func starts(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString, at index: Int) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != prefix.utf8Start[offset] { return false }
        return true
    }

    private static func find(_ bytes: UnsafeBufferPointer<UInt8>, _ needle: StaticString, from start: Int) -> Int? {
        let first = needle.utf8Start[0]
        var index = start
        while index < bytes.count {
            if bytes[index] == first, starts(bytes, needle, at: index) { return index }
            index += 1
        }
        return nil
    }

    /// Text with `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` `&#N;` `&#xH;` replaced.
    static func unescape(_ bytes: XMLBytes) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "&") else { out.append(byte); index += 1; continue }
            guard let semicolon = bytes[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                throw Failure.malformed("an & that starts no entity")
            }
            let entity = bytes[(index + 1)..<semicolon]
            if entity.first == UInt8(ascii: "#") {
                guard let scalar = characterReference(entity.dropFirst()) else {
                    throw Failure.malformed("a character reference that is no character (&\(String(decoding: entity, as: UTF8.self));)")
                }
                appendUTF8(scalar, to: &out)
            } else if entity.elementsEqual("amp".utf8) { out.append(UInt8(ascii: "&"))
            } else if entity.elementsEqual("lt".utf8) { out.append(UInt8(ascii: "<"))
            } else if entity.elementsEqual("gt".utf8) { out.append(UInt8(ascii: ">"))
            } else if entity.elementsEqual("quot".utf8) { out.append(UInt8(ascii: "\""))
            } else if entity.elementsEqual("apos".utf8) { out.append(UInt8(ascii: "'"))
            } else {
                throw Failure.malformed("an entity that XML does not define (&\(String(decoding: entity, as: UTF8.self));)")
            }
            index = semicolon + 1
        }
        return out
    }

    /// `49345` or `xC0C1` (after `&#`) as a Unicode scalar.
    private static func characterReference(_ digits: XMLBytes) -> Unicode.Scalar? {
        var value: UInt32 = 0
        var rest = digits
        let hex = rest.first == UInt8(ascii: "x")
        if hex { rest = rest.dropFirst() }
        guard !rest.isEmpty, rest.count <= 8 else { return nil }
        for byte in rest {
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value * (hex ? 16 : 10) + digit
        }
        return Unicode.Scalar(value)
    }

    private static func appendUTF8(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
        let value = scalar.value
        switch value {
        case ..<0x80: out.append(UInt8(value))
        case ..<0x800:
            out.append(UInt8(0xC0 | (value >> 6)))
            out.append(UInt8(0x80 | (value & 0x3F)))
        case ..<0x10000:
            out.append(UInt8(0xE0 | (value >> 12)))
            out.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (value & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (value >> 18)))
            out.append(UInt8(0x80 | ((value >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (value & 0x3F)))
        }
    }
}
