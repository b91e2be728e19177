import Foundation
import Manifest
import ZIPFoundation

/// zlib's deflate for the snapshots' product lists (JSON Lines compress about 5 to 1).
enum Deflate {
    static func compress(_ data: Data) throws -> Data {
        var output = Data()
        _ = try Data.compress(size: Int64(data.count), bufferSize: 64 * 1024, provider: { position, size in
            data.subdata(in: Int(position)..<min(data.count, Int(position) + size))
        }, consumer: { output.append($0) })
        return output
    }

    /// A snapshot's bytes must end their stream: a damaged or cut-off one is an error, never a wait.
    static func inflate(_ data: Data) throws -> Data { try RawInflate.inflate(data) }
}
