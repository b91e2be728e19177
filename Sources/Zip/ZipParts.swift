import Foundation

/// The parts of a zip (a workbook, or the photos and sheets a merchant uploads), read from its
/// central directory in their order, and each part inflated in chunks from exactly its own
/// packed bytes: the end of a part is the end, never a wait for more. (ZIPFoundation's reader
/// on Linux handed zlib the rest of the file past a part and at the end waited forever: a
/// damaged part hung `validate`.) Sizes and offsets are checked against the file before use.
public struct ZipParts: Sendable {
    public struct Part: Sendable {
        /// The name's own bytes, as the zip's maker wrote them (UTF-8 or a code page).
        public var nameBytes: [UInt8]
        /// General purpose flags: bit 11 says the name is UTF-8.
        public var flags: UInt16
        public var method: UInt16
        public var packedSize: Int
        public var size: Int
        public var checksum: UInt32
        public var headerOffset: Int
        /// The system that made the entry (the high byte of "version made by": 3 is Unix, 19 macOS).
        public var madeBy: UInt8
        public var externalAttributes: UInt32
        /// Info-ZIP's Unicode Path field (0x7075): the name in UTF-8, given only when its CRC-32
        /// is of the name's own bytes (a field left from before a rename is not believed).
        public var unicodePath: String?

        /// The name as UTF-8 (bytes that are not, replaced): how a workbook's parts are named.
        public var name: String { String(decoding: nameBytes, as: UTF8.self) }
        public var isUTF8: Bool { flags & 0x800 != 0 }
        public var isDirectory: Bool {
            nameBytes.last == UInt8(ascii: "/") || nameBytes.last == UInt8(ascii: "\\") || externalAttributes & 0x10 != 0
        }
        /// A symbolic link, as a Unix or Mac zip says one: its mode's file type in the high half.
        public var isSymlink: Bool { (madeBy == 3 || madeBy == 19) && (externalAttributes >> 16) & 0o170000 == 0o120000 }
    }

    public typealias Damaged = RawInflate.Damaged

    private let bytes: Data
    /// The file's mapping, when the bytes are one: unmapped when the last copy of this goes.
    private let mapping: Mapping?
    /// Every part, in the central directory's order.
    public private(set) var parts: [Part] = []
    /// The first part of each name.
    private var byName: [String: Int] = [:]

    public init(url: URL) throws {
        let mapping = try Mapping(url)
        self.mapping = mapping
        // The bytes are the mapping's, never freed by the Data: the mapping outlives them here.
        bytes = mapping.size == 0 ? Data() : Data(bytesNoCopy: mapping.base, count: mapping.size, deallocator: .none)
        try readDirectory()
    }

    /// A zip held in memory.
    public init(data: Data) throws {
        bytes = data
        mapping = nil
        try readDirectory()
    }

    /// A file mapped into memory, unmapped with its last reference. Neither Foundation's
    /// `Data(contentsOf:options: .alwaysMapped)` nor `Data(bytesNoCopy:deallocator: .custom)`:
    /// on Linux each leaked a small block per file (found by `scripts/fuzz xlsx-xml` and `ods-xml`).
    private final class Mapping: @unchecked Sendable {
        let base: UnsafeMutableRawPointer
        let size: Int

        init(_ url: URL) throws {
            let fd = open(url.path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: url.path]) }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
            size = Int(info.st_size)
            guard size > 0 else {
                base = UnsafeMutableRawPointer(bitPattern: 1)!
                return
            }
            guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
                throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: url.path])
            }
            base = mapped
        }

        deinit { if size > 0 { munmap(base, size) } }
    }

    public subscript(path: String) -> Part? { byName[path].map { parts[$0] } }

    /// Inflates `part` into `consumer`, `chunk` bytes at most at a time (not checked against
    /// its CRC-32: the caller counts and checks what it takes).
    public func inflate(_ part: Part, chunk: Int = 256 << 10, _ consumer: (Data) throws -> Void) throws {
        let start = try dataOffset(part)
        guard part.packedSize <= bytes.count - start else { throw Damaged(reason: "a part runs past the end of the file (is it cut off?)") }
        let packed = bytes[(bytes.startIndex + start)..<(bytes.startIndex + start + part.packedSize)]
        switch part.method {
        case 0:
            var offset = packed.startIndex
            while offset < packed.endIndex {
                let end = min(offset + chunk, packed.endIndex)
                // A copy: the bytes may be the mapping's, which a chunk kept by the consumer must not outlive.
                try consumer(packed[offset..<end].withUnsafeBytes { Data($0) })
                offset = end
            }
        case 8:
            try RawInflate.inflate(packed, chunk: chunk, consumer)
        default:
            throw Damaged(reason: "a part is packed with method \(part.method), which is not read here (only stored and deflate)")
        }
    }

    /// The whole of `part`, inflated (for parts known to be small).
    public func data(_ part: Part) throws -> Data {
        var output = Data()
        try inflate(part) { output.append($0) }
        return output
    }

    // MARK: - The central directory

    private func read8(_ offset: Int) throws -> Int {
        guard offset >= 0, offset < bytes.count else { throw Damaged(reason: "a record runs past the end of the file") }
        return Int(bytes[bytes.startIndex + offset])
    }

    private func read16(_ offset: Int) throws -> Int {
        guard offset >= 0, offset + 2 <= bytes.count else { throw Damaged(reason: "a record runs past the end of the file") }
        let i = bytes.startIndex + offset
        return Int(bytes[i]) | Int(bytes[i + 1]) << 8
    }

    private func read32(_ offset: Int) throws -> Int { try read16(offset) | (read16(offset + 2) << 16) }

    private func read64(_ offset: Int) throws -> Int {
        let high = try read32(offset + 4)
        guard high < 1 << 30 else { throw Damaged(reason: "a size or offset past any file") }
        return try read32(offset) | (high << 32)
    }

    private mutating func readDirectory() throws {
        // The end record: within the last 22 + 65,535 bytes (its comment).
        let floor = max(0, bytes.count - 22 - 65_535)
        var end = bytes.count - 22
        while end >= floor, try read32(end) != 0x0605_4B50 { end -= 1 }
        guard end >= floor else { throw Damaged(reason: "no end of central directory (is the file cut off?)") }
        var count = try read16(end + 10)
        var offset = try read32(end + 16)
        if count == 0xFFFF || offset == 0xFFFF_FFFF, end >= 20, try read32(end - 20) == 0x0706_4B50 {
            let record = try read64(end - 20 + 8)
            guard try read32(record) == 0x0606_4B50 else { throw Damaged(reason: "a zip64 end record that is not one") }
            count = try read64(record + 32)
            offset = try read64(record + 48)
        }
        guard count <= bytes.count / 46 else { throw Damaged(reason: "the directory names more parts than the file can hold") }
        for _ in 0..<count {
            guard try read32(offset) == 0x0201_4B50 else { throw Damaged(reason: "the central directory is damaged") }
            let nameLength = try read16(offset + 28), extraLength = try read16(offset + 30), commentLength = try read16(offset + 32)
            guard offset + 46 + nameLength <= bytes.count else { throw Damaged(reason: "a part's name runs past the end of the file") }
            let nameStart = bytes.startIndex + offset + 46
            var part = Part(nameBytes: [UInt8](bytes[nameStart..<(nameStart + nameLength)]), flags: UInt16(try read16(offset + 8)),
                            method: UInt16(try read16(offset + 10)), packedSize: try read32(offset + 20), size: try read32(offset + 24),
                            checksum: UInt32(try read32(offset + 16)), headerOffset: try read32(offset + 42),
                            madeBy: UInt8(try read16(offset + 4) >> 8), externalAttributes: UInt32(try read32(offset + 38)))
            try extraFields(&part, extra: offset + 46 + nameLength, length: extraLength)
            if byName[part.name] == nil { byName[part.name] = parts.count }
            parts.append(part)
            offset += 46 + nameLength + extraLength + commentLength
        }
    }

    /// The extra fields a part's directory record carries that are read here: zip64's sizes and
    /// offset (those that did not fit 32 bits, in this order) and Info-ZIP's Unicode Path.
    private func extraFields(_ part: inout Part, extra start: Int, length: Int) throws {
        var field = start
        var zip64Read = false
        while field + 4 <= start + length {
            let id = try read16(field), size = try read16(field + 2), data = field + 4
            guard data + size <= start + length else { break }
            if id == 1, !zip64Read {
                zip64Read = true
                var at = data
                if part.size == 0xFFFF_FFFF { part.size = try read64(at); at += 8 }
                if part.packedSize == 0xFFFF_FFFF { part.packedSize = try read64(at); at += 8 }
                if part.headerOffset == 0xFFFF_FFFF { part.headerOffset = try read64(at) }
            } else if id == 0x7075, size > 5, try read8(data) == 1, UInt32(try read32(data + 1)) == CRC32.of(part.nameBytes) {
                // Version 1, the CRC-32 of the name's own bytes, then the name in UTF-8.
                let text = bytes[(bytes.startIndex + data + 5)..<(bytes.startIndex + data + size)]
                part.unicodePath = String(validating: text, as: UTF8.self)
            }
            field = data + size
        }
    }

    private func dataOffset(_ part: Part) throws -> Int {
        guard try read32(part.headerOffset) == 0x0403_4B50 else { throw Damaged(reason: "a part's local header is not where the directory says") }
        return try part.headerOffset + 30 + read16(part.headerOffset + 26) + read16(part.headerOffset + 28)
    }
}
