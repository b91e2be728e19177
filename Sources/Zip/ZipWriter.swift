import Foundation

/// A zip made in memory, entry by entry, stored or deflated: the workbooks the fuzzer builds
/// and the zips the tests hand over (names as a Mac, Windows or Info-ZIP writes them). Not for
/// the catalog's own files: nothing of openmarket's output is a zip but libxlsxwriter's.
public struct ZipWriter: Sendable {
    public enum Method: UInt16, Sendable {
        case stored = 0
        case deflated = 8
    }

    public struct Refused: Error, CustomStringConvertible {
        public var description: String
    }

    private var local: [UInt8] = []
    private var central: [UInt8] = []
    private var count = 0

    public init() {}

    /// A file named in UTF-8 (the flag set), as today's Mac, Windows and Linux zips write one.
    public mutating func add(_ name: String, _ data: Data, method: Method = .deflated) throws {
        try add(nameBytes: Array(name.utf8), data, method: method, utf8: true)
    }

    /// An entry as any maker writes it: the name's own bytes (`utf8` says whether the flag is
    /// set), extra fields, and the maker's system and attributes (`unixMode`: a Unix zip's
    /// file type and permissions, e.g. 0o120777 for a link).
    public mutating func add(nameBytes: [UInt8], _ data: Data, method: Method = .stored, utf8: Bool = false,
                             extra: [UInt8] = [], unixMode: UInt16? = nil) throws {
        let packed = method == .stored ? data : try RawDeflate.compress(data)
        guard packed.count < 0xFFFF_FFFF, data.count < 0xFFFF_FFFF, local.count < 0xFFFF_FFFF, nameBytes.count <= 0xFFFF, extra.count <= 0xFFFF else {
            throw Refused(description: "an entry or the zip past 4 GB, or a name or extra field past 64 KB (no zip64 here)")
        }
        let checksum = CRC32.of(data)
        let offset = UInt32(local.count)
        let flags: UInt16 = utf8 ? 0x800 : 0
        // version needed, flags, method, time, date, CRC-32, sizes, name and extra lengths
        let common = le16(20) + le16(flags) + le16(method.rawValue) + le16(0) + le16(0x21) + le32(checksum)
            + le32(UInt32(packed.count)) + le32(UInt32(data.count)) + le16(UInt16(nameBytes.count)) + le16(UInt16(extra.count))
        local += [0x50, 0x4B, 0x03, 0x04] + common + nameBytes + extra
        local += packed
        let madeBy: UInt16 = unixMode == nil ? 20 : (3 << 8) | 20
        let attributes = unixMode.map { UInt32($0) << 16 } ?? (nameBytes.last == UInt8(ascii: "/") ? 0x10 : 0)
        central += [0x50, 0x4B, 0x01, 0x02] + le16(madeBy) + common + le16(0) + le16(0) + le16(0) + le32(attributes) + le32(offset)
            + nameBytes + extra
        count += 1
    }

    /// Info-ZIP's Unicode Path extra field: `name` in UTF-8 for an entry whose own name bytes
    /// have the CRC-32 `crcOf`'s (a stale field: another name's).
    public static func unicodePathField(_ name: String, crcOf bytes: [UInt8]) -> [UInt8] {
        let text = Array(name.utf8)
        return [0x75, 0x70] + le16(UInt16(5 + text.count)) + [1] + le32(CRC32.of(bytes)) + text
    }

    /// The whole zip: the entries, their directory and its end.
    public var data: Data {
        var out = local
        out += central
        out += [0x50, 0x4B, 0x05, 0x06] + le16(0) + le16(0) + le16(UInt16(truncatingIfNeeded: count)) + le16(UInt16(truncatingIfNeeded: count))
        out += le32(UInt32(central.count)) + le32(UInt32(local.count)) + le16(0)
        return Data(out)
    }
}

private func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
private func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) } }
