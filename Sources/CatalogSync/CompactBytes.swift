import Foundation
import OpenMarketContract
import Support

/// Records that only grow, each found by the offset `append` gave it: what a run keeps of a big
/// shop (its listing, the account's links), no object and no string of its own per product.
/// They live in a file of their own under the user's cache folder, written in blocks and read
/// back a record at a time, so the shop's size costs disk (and the system's page cache), not
/// the process's memory. The file is removed as soon as it is open: nothing is left behind,
/// even by a crash. Where no such file can be made or written (no cache folder, a full disk),
/// the records stay in memory: never lost, only larger.
struct ByteChunks: Sendable {
    private let file = RecordFile()

    /// Stores `record`; its offset for `read`.
    func append(_ record: [UInt8]) -> Int { file.append(record) }

    func read<T>(at offset: Int, _ body: (inout ByteReader) -> T) -> T { file.read(at: offset, body) }
}

/// The records of a `ByteChunks`: `[length: UInt32][bytes]` each, in order; the newest in
/// `tail` until a block of them is written.
final class RecordFile: @unchecked Sendable {
    private let lock = NSLock()
    /// The file, or -1: every record in `tail` (none made yet, or none could be).
    private var fd: Int32 = -1
    private var tail: [UInt8] = []
    /// The file offset of `tail[0]` (everything before it is in the file).
    private var tailStart = 0
    static let block = 256 << 10

    init() {}

    /// The file, made when the first block is written (a small shop's tables never need one):
    /// removed from its folder as soon as it is open. Nil where none can be made.
    private func open() -> Int32? {
        let folder = UserFolders.cache.appendingPathComponent("tables")
        guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil else { return nil }
        var template = Array(folder.appendingPathComponent("run-XXXXXX").path.utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard made >= 0 else { return nil }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return made
    }

    deinit { if fd >= 0 { close(fd) } }

    func append(_ record: [UInt8]) -> Int {
        lock.withLock {
            let offset = tailStart + tail.count
            withUnsafeBytes(of: UInt32(record.count).littleEndian) { tail.append(contentsOf: $0) }
            tail.append(contentsOf: record)
            if writable, tail.count >= Self.block {
                if fd < 0 { fd = open() ?? -1 }
                if fd >= 0 { flush() } else { writable = false }
            }
            return offset
        }
    }

    /// Writes the tail; a file that cannot take it is given up (its records so far stay
    /// readable; the rest stay in memory).
    private func flush() {
        let written = tail.withUnsafeBytes { bytes -> Bool in
            var done = 0
            while done < bytes.count {
                let count = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(tailStart + done))
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                done += count
            }
            return true
        }
        if written {
            tailStart += tail.count
            tail.removeAll(keepingCapacity: true)
        } else {
            // What is in the file stays there; from now on nothing more is written to it.
            writable = false
        }
    }

    /// Whether blocks still go to the file (a write failed: no more).
    private var writable = true

    func read<T>(at offset: Int, _ body: (inout ByteReader) -> T) -> T {
        // The newest records are in memory until their block is written.
        if let inTail = lock.withLock({ () -> T? in
            guard offset >= tailStart else { return nil }
            return tail.withUnsafeBytes { buffer in
                var reader = ByteReader(buffer: buffer, at: offset - tailStart + 4)
                return body(&reader)
            }
        }) { return inTail }
        // One read for most records (a few hundred bytes); a longer one is read again whole.
        var buffer = [UInt8](repeating: 0, count: 512)
        var got = readFully(&buffer, at: offset)
        let length = Int(UInt32(littleEndian: buffer.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }))
        if length + 4 > got {
            buffer = [UInt8](repeating: 0, count: length + 4)
            got = readFully(&buffer, at: offset)
        }
        precondition(got >= length + 4, "a record of the run's tables could not be read back")
        return buffer.withUnsafeBytes { raw in
            var reader = ByteReader(buffer: raw, at: 4)
            return body(&reader)
        }
    }

    private func readFully(_ buffer: inout [UInt8], at offset: Int) -> Int {
        buffer.withUnsafeMutableBytes { raw in
            var done = 0
            while done < raw.count {
                let count = pread(fd, raw.baseAddress! + done, raw.count - done, off_t(offset + done))
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                done += count
            }
            return done
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
