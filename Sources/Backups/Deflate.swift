import Foundation
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

    static func inflate(_ data: Data) throws -> Data {
        var output = Data()
        _ = try Data.decompress(size: Int64(data.count), bufferSize: 64 * 1024, skipCRC32: true, provider: { position, size in
            data.subdata(in: Int(position)..<min(data.count, Int(position) + size))
        }, consumer: { output.append($0) })
        return output
    }
}
