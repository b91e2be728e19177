import CZlib
import Foundation

/// zlib's raw deflate (no zlib or gzip header), the stream `RawInflate` reads and a zip's
/// method 8: the backups' product lists (JSON Lines pack about 5 to 1) and zips made here.
public enum RawDeflate {
    public struct Failed: Error, CustomStringConvertible {
        public var description: String
    }

    /// The whole of `data`, deflated at zlib's default level.
    public static func compress(_ data: Data) throws -> Data {
        var stream = z_stream()
        guard openmarket_deflate_init_raw(&stream, Z_DEFAULT_COMPRESSION) == Z_OK else { throw Failed(description: "zlib cannot start") }
        defer { deflateEnd(&stream) }
        var output = Data(count: Int(deflateBound(&stream, uLong(data.count))) + 64)
        let written: Int = try data.withUnsafeBytes { (input: UnsafeRawBufferPointer) in
            try output.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) in
                stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(out.count)
                // The bound holds the whole stream: one Z_FINISH ends it.
                let result = deflate(&stream, Z_FINISH)
                guard result == Z_STREAM_END else { throw Failed(description: "zlib did not finish the stream (\(result))") }
                return out.count - Int(stream.avail_out)
            }
        }
        output.removeSubrange(written...)
        return output
    }
}
