import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The text encodings merchants' spreadsheets come in.
public enum TextEncoding: String, Sendable, CaseIterable {
    case utf8 = "utf-8"
    /// UTF-16 with a byte-order mark (Excel's "Unicode text"), or `--encoding utf-16` on a
    /// file without one (its byte order is then read from where its NUL bytes are).
    case utf16 = "utf-16"
    /// UTF-16 without a byte-order mark, little-endian (Windows) or big-endian.
    case utf16le = "utf-16le"
    case utf16be = "utf-16be"
    /// What Korean Excel writes by default (a superset of EUC-KR).
    case cp949

    public init?(name: String) {
        switch name.lowercased().replacingOccurrences(of: "_", with: "-") {
        case "utf-8", "utf8": self = .utf8
        case "utf-16", "utf16", "unicode": self = .utf16
        case "utf-16le", "utf16le": self = .utf16le
        case "utf-16be", "utf16be": self = .utf16be
        case "cp949", "euc-kr", "euckr", "ms949", "uhc": self = .cp949
        default: return nil
        }
    }

    /// Decides the encoding of a file by reading it once: a UTF-16 byte-order
    /// mark, else valid UTF-8, else CP949 if it converts cleanly. A NUL byte
    /// means a binary file. Errors name the byte offset.
    static func detect(_ url: URL, file: String) throws -> TextEncoding {
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            throw ManifestError(file: file, message: "cannot open the file")
        }
        defer { try? handle.close() }
        var validator = UTF8Validator()
        var offset = 0
        var first = true
        // One buffer read into again and again (a `Data` a megabyte was allocated, faulted in
        // and freed each time: this pass runs before any row is checked).
        var buffer = Data(count: 1 << 20)
        while true {
            let got = buffer.withUnsafeMutableBytes { FileBytes.read(handle.fileDescriptor, into: $0) }
            if got == 0 { break }
            let chunk = got == buffer.count ? buffer : buffer.prefix(got)
            if first {
                first = false
                if chunk.starts(with: [0xFF, 0xFE]) || chunk.starts(with: [0xFE, 0xFF]) { return .utf16 }
                if let order = utf16Order(chunk) { return order }
            }
            let nul: Int? = chunk.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress, let found = memchr(base, 0, bytes.count) else { return nil }
                return base.distance(to: UnsafeRawPointer(found))
            }
            if let nul {
                throw ManifestError(file: file, message: "a binary file, not a text manifest (NUL byte at offset \(offset + nul)); if it is UTF-16 text, pass --encoding utf-16le or utf-16be", encodingUnknown: true)
            }
            if validator.firstInvalid == nil { validator.feed(chunk, at: offset) }
            offset += chunk.count
        }
        guard let invalid = validator.firstInvalid ?? validator.finish(at: offset) else { return .utf8 }
        if Transcoder.converts(url, from: .cp949) { return .cp949 }
        throw ManifestError(
            file: file,
            message: "not UTF-8, UTF-16 or CP949 text (first byte that is not UTF-8 at offset \(invalid)); save it from your spreadsheet as \"CSV UTF-8\" or pass --encoding", encodingUnknown: true)
    }
}

extension TextEncoding {
    /// How much of a file `sniff` reads.
    static let sniffBytes = 1 << 20

    /// The encoding as the first megabyte tells it, without reading the rest: a UTF-16
    /// byte-order mark or NUL pattern; the whole file when it is no longer (as `detect` says
    /// it); UTF-8 when the megabyte is UTF-8 holding at least 8 characters of more than one
    /// byte (Korean text, not CP949's, which is not UTF-8), `speculative`: the rest is checked
    /// as it is read (`EncodingCheck`), and the run confirms it at the end. nil when the head
    /// does not tell (ASCII only, or not UTF-8): `detect` reads the whole file first.
    static func sniff(_ url: URL, file: String) throws -> (encoding: TextEncoding, speculative: Bool)? {
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            throw ManifestError(file: file, message: "cannot open the file")
        }
        defer { try? handle.close() }
        var head = Data(count: sniffBytes)
        var got = 0
        while got < head.count {
            let read = head.withUnsafeMutableBytes { FileBytes.read(handle.fileDescriptor, into: UnsafeMutableRawBufferPointer(rebasing: $0[got...])) }
            if read == 0 { break }
            got += read
        }
        let whole = got < head.count
        head = head.prefix(got)
        if head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF]) { return (.utf16, false) }
        if let order = utf16Order(head) { return (order, false) }
        var validator = UTF8Validator()
        validator.feed(head, at: 0)
        let nul = head.withUnsafeBytes { bytes in bytes.baseAddress.flatMap { memchr($0, 0, bytes.count) } != nil }
        guard !nul, validator.firstInvalid == nil else { return nil }
        if whole { return validator.finish(at: got) == nil ? (.utf8, false) : nil }
        return validator.sequences >= 8 ? (.utf8, true) : nil
    }

    /// UTF-16 without a byte-order mark, told by where its NUL bytes are: a sheet's text is
    /// mostly ASCII (headers, keys, prices, file names), which UTF-16 writes with a NUL after
    /// each character (little-endian) or before it (big-endian). Nil when the pattern is not
    /// clear (then a NUL byte means a binary file).
    static func utf16Order(_ chunk: Data) -> TextEncoding? {
        let sample = chunk.prefix(4096)
        guard sample.count >= 4 else { return nil }
        var evenZeros = 0, oddZeros = 0, pairs = 0
        var index = sample.startIndex
        while index + 1 < sample.endIndex {
            pairs += 1
            if sample[index] == 0 { evenZeros += 1 }
            if sample[index + 1] == 0 { oddZeros += 1 }
            index += 2
        }
        // At least a third of the characters ASCII, and NULs only on one side.
        if oddZeros * 3 >= pairs && evenZeros * 20 <= oddZeros { return .utf16le }
        if evenZeros * 3 >= pairs && oddZeros * 20 <= evenZeros { return .utf16be }
        return nil
    }
}

/// A streaming UTF-8 check that remembers where the first bad sequence starts.
struct UTF8Validator {
    private(set) var firstInvalid: Int?
    /// How many characters of more than one byte were read (a sign of UTF-8 text, not ASCII).
    private(set) var sequences = 0
    private var pending = 0        // continuation bytes still expected
    private var sequenceStart = 0  // offset of the current sequence's first byte

    mutating func feed(_ data: Data, at base: Int) {
        data.withUnsafeBytes { feed($0, at: base) }
    }

    mutating func feed(_ bytes: UnsafeRawBufferPointer, at base: Int) {
        // The state lives in locals during the loop: no exclusivity check per byte.
        var pending = self.pending
        var sequenceStart = self.sequenceStart
        var sequences = self.sequences
        let invalid: Int? = { () -> Int? in
            var i = 0
            let count = bytes.count
            while i < count {
                // Eight ASCII bytes at a time between sequences (most of a sheet's bytes).
                if pending == 0, i + 8 <= count,
                   bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    i += 8
                    continue
                }
                let byte = bytes[i]
                if pending > 0 {
                    if byte & 0xC0 == 0x80 { pending -= 1; i += 1; continue }
                    return sequenceStart
                }
                if byte >= 0x80 {
                    sequenceStart = base + i
                    sequences += 1
                    switch byte {
                    case 0xC2...0xDF: pending = 1
                    case 0xE0...0xEF: pending = 2
                    case 0xF0...0xF4: pending = 3
                    default: return base + i
                    }
                }
                i += 1
            }
            return nil
        }()
        self.pending = pending
        self.sequenceStart = sequenceStart
        self.sequences = sequences
        if let invalid { firstInvalid = invalid }
    }

    /// A sequence cut off by the end of the file.
    func finish(at end: Int) -> Int? { pending > 0 ? sequenceStart : nil }
}

extension TextEncoding {
    /// Bytes in CP949 (Korean Windows: zip entry names, old CSV files) as text; nil when they
    /// are not valid CP949.
    public static func cp949Text(_ bytes: [UInt8]) -> String? {
        guard !bytes.isEmpty else { return "" }
        let cd = iconv_open("UTF-8", "CP949")
        guard cd != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(cd) }
        var input = bytes
        var output = [CChar](repeating: 0, count: bytes.count * 2 + 4)
        var inLeft = input.count
        var outLeft = output.count
        let result = input.withUnsafeMutableBufferPointer { inPtr in
            output.withUnsafeMutableBufferPointer { outPtr in
                var inCursor: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(inPtr.baseAddress!).assumingMemoryBound(to: CChar.self)
                var outCursor: UnsafeMutablePointer<CChar>? = outPtr.baseAddress
                return iconv(cd, &inCursor, &inLeft, &outCursor, &outLeft)
            }
        }
        guard result != -1, inLeft == 0 else { return nil }
        let produced = output.count - outLeft
        return String(decoding: output.prefix(produced).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Conversion to UTF-8 with glibc's iconv, in chunks.
enum Transcoder {
    static func iconvName(_ encoding: TextEncoding) -> String {
        switch encoding {
        case .utf8: "UTF-8"
        case .utf16: "UTF-16"
        case .utf16le: "UTF-16LE"
        case .utf16be: "UTF-16BE"
        case .cp949: "CP949"
        }
    }

    /// Whether the whole file converts without an error.
    static func converts(_ url: URL, from encoding: TextEncoding) -> Bool {
        (try? transcode(url, from: encoding, to: nil)) != nil
    }

    /// Converts `url` to UTF-8, writing to `output` (nil: only check).
    static func transcode(_ url: URL, from encoding: TextEncoding, to output: URL?) throws {
        var encoding = encoding
        if encoding == .utf16 {
            // Without a byte-order mark, iconv's UTF-16 assumes big-endian: read the order
            // from the file instead (Windows writes little-endian).
            let head = (try? FileHandle(forReadingFrom: url)).flatMap { handle in
                defer { try? handle.close() }
                return try? handle.read(upToCount: 4096)
            } ?? Data()
            if !head.starts(with: [0xFF, 0xFE]) && !head.starts(with: [0xFE, 0xFF]) {
                encoding = TextEncoding.utf16Order(head) ?? .utf16le
            }
        }
        let cd = iconv_open("UTF-8", iconvName(encoding))
        guard cd != iconv_t(bitPattern: -1) else { throw ManifestError(file: url.path, message: "iconv cannot convert from \(encoding.rawValue)") }
        defer { iconv_close(cd) }
        guard let input = try? FileHandle(forReadingFrom: url) else { throw ManifestError(file: url.path, message: "cannot open") }
        defer { try? input.close() }
        var writer: FileHandle? = nil
        if let output {
            guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
                throw ManifestError(file: url.path, message: "cannot create a temporary file for the conversion")
            }
            writer = try FileHandle(forWritingTo: output)
        }
        defer { try? writer?.close() }
        var carry = [UInt8]()
        var outBuffer = [CChar](repeating: 0, count: 4 << 20)
        var consumed = 0
        while true {
            let chunk = (try? input.read(upToCount: 1 << 20)) ?? Data()
            let atEnd = chunk.isEmpty
            var inBytes = carry + [UInt8](chunk)
            if inBytes.isEmpty { break }
            var inLeft = inBytes.count
            var outLeft = outBuffer.count
            let result: Int = inBytes.withUnsafeMutableBufferPointer { inPtr in
                outBuffer.withUnsafeMutableBufferPointer { outPtr in
                    var inCursor: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(inPtr.baseAddress!).assumingMemoryBound(to: CChar.self)
                    var outCursor: UnsafeMutablePointer<CChar>? = outPtr.baseAddress
                    return iconv(cd, &inCursor, &inLeft, &outCursor, &outLeft)
                }
            }
            let produced = outBuffer.count - outLeft
            if produced > 0 {
                writer?.write(outBuffer.withUnsafeBytes { Data($0.prefix(produced)) })
            }
            if result == -1 {
                let code = errno
                // EINVAL: a sequence cut by the chunk boundary; keep it for the next round.
                if code == EINVAL && !atEnd {
                    carry = Array(inBytes.suffix(inLeft))
                    consumed += inBytes.count - inLeft
                    continue
                }
                if code == E2BIG {
                    carry = Array(inBytes.suffix(inLeft))
                    consumed += inBytes.count - inLeft
                    continue
                }
                throw ManifestError(file: url.path, message: "not valid \(encoding.rawValue) at byte offset \(consumed + inBytes.count - inLeft)")
            }
            consumed += inBytes.count
            carry = []
            if atEnd { break }
        }
    }
}
