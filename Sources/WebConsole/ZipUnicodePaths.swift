import Foundation

/// Info-ZIP's Unicode Path extra field (0x7075): a zip made where names are not UTF-8 (an old
/// Windows code page, Info-ZIP `zip` under a non-UTF-8 locale) can carry each name in UTF-8
/// beside its own bytes, with the CRC-32 of those bytes so that a renamed entry's stale field is
/// not believed. ZIPFoundation does not read it: the central directory is read here, the
/// Unicode name kept by the name's own bytes.
enum ZipUnicodePaths {
    /// The UTF-8 names the zip's central directory gives, by the names' own bytes; none when it
    /// has none (or is not a zip this reads: ZIP64's directory is left to the archive's reader).
    static func read(_ zip: URL) -> [[UInt8]: String] {
        guard let handle = try? FileHandle(forReadingFrom: zip) else { return [:] }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size >= 22 else { return [:] }
        let tailLength = min(size, 22 + 65_535)
        guard (try? handle.seek(toOffset: size - tailLength)) != nil, let tail = try? handle.read(upToCount: Int(tailLength)) else { return [:] }
        let bytes = [UInt8](tail)
        // The end of central directory record, the last one in the file.
        guard let end = stride(from: bytes.count - 22, through: 0, by: -1).first(where: { le32(bytes, $0) == 0x0605_4B50 }) else { return [:] }
        let directorySize = UInt64(le32(bytes, end + 12)), directoryOffset = UInt64(le32(bytes, end + 16))
        guard directoryOffset != 0xFFFF_FFFF, directoryOffset + directorySize <= size, directorySize <= 64 << 20,
              (try? handle.seek(toOffset: directoryOffset)) != nil, let data = try? handle.read(upToCount: Int(directorySize)) else { return [:] }
        return names(inDirectory: [UInt8](data))
    }

    static func names(inDirectory directory: [UInt8]) -> [[UInt8]: String] {
        var found: [[UInt8]: String] = [:]
        var at = 0
        while at + 46 <= directory.count, le32(directory, at) == 0x0201_4B50 {
            let nameLength = Int(le16(directory, at + 28)), extraLength = Int(le16(directory, at + 30)), commentLength = Int(le16(directory, at + 32))
            let nameStart = at + 46, extraStart = nameStart + nameLength, next = extraStart + extraLength + commentLength
            guard next <= directory.count else { break }
            let name = Array(directory[nameStart..<extraStart])
            var field = extraStart
            while field + 4 <= extraStart + extraLength {
                let id = le16(directory, field), length = Int(le16(directory, field + 2)), data = field + 4
                guard data + length <= extraStart + extraLength else { break }
                // Version 1, the CRC-32 of the name's own bytes, then the name in UTF-8.
                if id == 0x7075, length > 5, directory[data] == 1, le32(directory, data + 1) == CRC32.of(name),
                   let unicode = String(validating: directory[(data + 5)..<(data + length)], as: UTF8.self) {
                    found[name] = unicode
                }
                field = data + length
            }
            at = next
        }
        return found
    }

    private static func le16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
    private static func le32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
}

/// The zip format's CRC-32 (IEEE 802.3, reflected).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { crc, _ in crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }

    static func of(_ bytes: some Sequence<UInt8>) -> UInt32 {
        ~bytes.reduce(~UInt32(0)) { crc, byte in table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }
}
