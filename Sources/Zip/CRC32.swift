/// CRC-32 (the zip one: IEEE 802.3, reflected), eight bytes a step ("slicing by 8").
public struct CRC32: Sendable {
    public private(set) var value: UInt32 = 0

    public init() {}

    /// The CRC-32 of `bytes` at once.
    public static func of(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        let array = Array(bytes)
        array.withUnsafeBytes { crc.update($0) }
        return crc.value
    }

    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            tables[byte] = crc
        }
        for byte in 0..<256 {
            for slice in 1..<8 {
                let previous = tables[(slice - 1) * 256 + byte]
                tables[slice * 256 + byte] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = ~value
        Self.tables.withUnsafeBufferPointer { table in
            var index = 0
            let count = bytes.count
            while index + 8 <= count {
                let low = crc ^ bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self).littleEndian
                let high = bytes.loadUnaligned(fromByteOffset: index + 4, as: UInt32.self).littleEndian
                crc = table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                index += 8
            }
            while index < count {
                crc = (crc >> 8) ^ table[Int((crc ^ UInt32(bytes[index])) & 0xFF)]
                index += 1
            }
        }
        value = ~crc
    }
}
