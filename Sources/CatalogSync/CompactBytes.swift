import Foundation
import OpenMarketContract

/// Bytes that only grow, in chunks of `chunkSize` (a growing store never copies what it holds,
/// so there is no moment with the old buffer and its doubled copy both alive), each record
/// found by the offset `append` gave it. What the run keeps of a big shop lives here: no
/// object and no string of its own per product.
struct ByteChunks: Sendable {
    private var chunks: [[UInt8]] = []
    static let chunkSize = 1 << 20

    /// Stores `record`; its offset for `read`.
    mutating func append(_ record: [UInt8]) -> Int {
        precondition(record.count <= Self.chunkSize, "a record larger than a chunk")
        if chunks.isEmpty || chunks[chunks.count - 1].count + record.count > Self.chunkSize {
            var chunk: [UInt8] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        let last = chunks.count - 1
        let offset = last * Self.chunkSize + chunks[last].count
        chunks[last].append(contentsOf: record)
        return offset
    }

    func read<T>(at offset: Int, _ body: (inout ByteReader) -> T) -> T {
        chunks[offset / Self.chunkSize].withUnsafeBytes { buffer in
            var reader = ByteReader(buffer: buffer, at: offset % Self.chunkSize)
            return body(&reader)
        }
    }
}

/// A record's fields written in order: integers little-endian, texts length-prefixed UTF-8,
/// an absent one as length -1.
struct ByteWriter {
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(160) }

    mutating func int(_ value: Int) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func byte(_ value: UInt8) { bytes.append(value) }
    mutating func double(_ value: Double) { int(Int(bitPattern: UInt(value.bitPattern))) }
    mutating func money(_ value: Money) { withUnsafeBytes(of: value.amount) { bytes.append(contentsOf: $0) } }

    mutating func text(_ value: String?) {
        guard let value else { int(-1); return }
        int(value.utf8.count)
        bytes.append(contentsOf: value.utf8)
    }
}

/// Reads what a `ByteWriter` wrote, in the same order.
struct ByteReader {
    let buffer: UnsafeRawBufferPointer
    var at: Int

    mutating func int() -> Int {
        let value = buffer.loadUnaligned(fromByteOffset: at, as: Int.self)
        at += MemoryLayout<Int>.size
        return Int(littleEndian: value)
    }

    mutating func byte() -> UInt8 {
        defer { at += 1 }
        return buffer[at]
    }

    mutating func double() -> Double { Double(bitPattern: UInt64(UInt(bitPattern: int()))) }

    mutating func money() -> Money {
        let amount = buffer.loadUnaligned(fromByteOffset: at, as: Decimal.self)
        at += MemoryLayout<Decimal>.size
        return Money(amount)
    }

    mutating func text() -> String? {
        let count = int()
        guard count >= 0 else { return nil }
        defer { at += count }
        return String(decoding: UnsafeRawBufferPointer(rebasing: buffer[at..<at + count]), as: UTF8.self)
    }
}
