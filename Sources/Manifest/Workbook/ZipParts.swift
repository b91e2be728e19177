import Foundation

/// The parts of a workbook's zip, read from its central directory, and each part inflated in
/// chunks from exactly its own packed bytes. ZIPFoundation's reader on Linux hands zlib the
/// rest of the file past a part, and at the end of the file waits for more forever: a damaged
/// part (a stored block's length changed) hung `validate`. Here the end of a part is the end.
struct ZipParts {
    struct Part {
        var method: UInt16
        var packedSize: Int
        var size: Int
        var checksum: UInt32
        var headerOffset: Int
    }

    typealias Damaged = RawInflate.Damaged

    private let bytes: Data
    private var parts: [String: Part] = [:]

    init(url: URL) throws {
        bytes = try Self.mapped(url)
        try readDirectory()
    }

    /// The file mapped into memory, unmapped when the last copy of the bytes goes. Not
    /// Foundation's `Data(contentsOf:options: .alwaysMapped)`, which leaked a small block per
    /// file on Linux (found by `scripts/fuzz xlsx-xml`).
    private static func mapped(_ url: URL) throws -> Data {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: url.path]) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
        let size = Int(info.st_size)
        guard size > 0 else { return Data() }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        return Data(bytesNoCopy: base, count: size, deallocator: .custom { pointer, count in _ = munmap(pointer, count) })
    }

    subscript(path: String) -> Part? { parts[path] }

    /// Inflates `path` into `consumer`, `chunk` bytes at most at a time.
    func inflate(_ part: Part, chunk: Int = 256 << 10, _ consumer: (Data) throws -> Void) throws {
        let start = try dataOffset(part)
        guard part.packedSize <= bytes.count - start else { throw Damaged(reason: "a part runs past the end of the file (is it cut off?)") }
        let packed = bytes[(bytes.startIndex + start)..<(bytes.startIndex + start + part.packedSize)]
        switch part.method {
        case 0:
            var offset = packed.startIndex
            while offset < packed.endIndex {
                let end = min(offset + chunk, packed.endIndex)
                try consumer(Data(packed[offset..<end]))
                offset = end
            }
        case 8:
            try RawInflate.inflate(packed, chunk: chunk, consumer)
        default:
            throw Damaged(reason: "a part is packed with method \(part.method), which Excel never uses (only stored and deflate)")
        }
    }

    // MARK: - The central directory

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
            let name = String(decoding: bytes[nameStart..<(nameStart + nameLength)], as: UTF8.self)
            var part = Part(method: UInt16(try read16(offset + 10)), packedSize: try read32(offset + 20), size: try read32(offset + 24),
                            checksum: UInt32(try read32(offset + 16)), headerOffset: try read32(offset + 42))
            try zip64(&part, extra: offset + 46 + nameLength, length: extraLength)
            parts[name] = parts[name] ?? part
            offset += 46 + nameLength + extraLength + commentLength
        }
    }

    /// Sizes and offsets that did not fit 32 bits are in the zip64 extra field, in this order.
    private func zip64(_ part: inout Part, extra start: Int, length: Int) throws {
        guard part.size == 0xFFFF_FFFF || part.packedSize == 0xFFFF_FFFF || part.headerOffset == 0xFFFF_FFFF else { return }
        var field = start
        while field + 4 <= start + length {
            let id = try read16(field), size = try read16(field + 2)
            if id == 1 {
                var at = field + 4
                if part.size == 0xFFFF_FFFF { part.size = try read64(at); at += 8 }
                if part.packedSize == 0xFFFF_FFFF { part.packedSize = try read64(at); at += 8 }
                if part.headerOffset == 0xFFFF_FFFF { part.headerOffset = try read64(at) }
                return
            }
            field += 4 + size
        }
    }

    private func dataOffset(_ part: Part) throws -> Int {
        guard try read32(part.headerOffset) == 0x0403_4B50 else { throw Damaged(reason: "a part's local header is not where the directory says") }
        return try part.headerOffset + 30 + read16(part.headerOffset + 26) + read16(part.headerOffset + 28)
    }
}
