import CZlib
import Foundation

/// zlib's raw inflate (no zlib or gzip header) on exactly the bytes given: a stream that does
/// not end inside them is damaged, never waited on. (ZIPFoundation's `Data.decompress` on
/// Linux tells zlib a whole buffer is there when the last chunk is shorter, and loops forever
/// on a stream that does not end.) Used for the workbooks' parts, the zips merchants upload and
/// the backups' snapshots.
public enum RawInflate {
    /// Packed bytes that cannot be read: a damaged stream, or (`ZipParts`) a damaged zip.
    public struct Damaged: Error, CustomStringConvertible {
        public var reason: String
        public init(reason: String) { self.reason = reason }
        public var description: String { reason }
    }

    /// zlib on exactly `packed`: the stream must end inside it.
    public static func inflate(_ packed: Data, chunk: Int = 256 << 10, _ consumer: (Data) throws -> Void) throws {
        var stream = z_stream()
        guard openmarket_inflate_init_raw(&stream) == Z_OK else { throw Damaged(reason: "zlib cannot start") }
        defer { inflateEnd(&stream) }
        var output = Data(count: chunk)
        try packed.withUnsafeBytes { (input: UnsafeRawBufferPointer) in
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                var result: Int32 = Z_OK
                let produced = output.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Int in
                    stream.next_out = out.bindMemory(to: Bytef.self).baseAddress
                    stream.avail_out = uInt(out.count)
                    result = zlibInflate(&stream, Z_NO_FLUSH)
                    return out.count - Int(stream.avail_out)
                }
                if produced > 0 { try consumer(output.prefix(produced)) }
                switch result {
                case Z_STREAM_END: return
                case Z_OK: continue
                case Z_BUF_ERROR where stream.avail_in == 0: throw Damaged(reason: "the packed data ends before the stream does (is the file cut off?)")
                default: throw Damaged(reason: "the packed data is damaged (zlib: \(result))")
                }
            }
        }
    }

    /// The whole of `packed`, inflated (for parts known to be small).
    public static func inflate(_ packed: Data) throws -> Data {
        var output = Data()
        try inflate(packed) { output.append($0) }
        return output
    }
}

/// zlib's `inflate`, named apart from `RawInflate.inflate`.
private func zlibInflate(_ stream: UnsafeMutablePointer<z_stream>, _ flush: Int32) -> Int32 { inflate(stream, flush) }
