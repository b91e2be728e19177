import Foundation
import Zip

/// zlib's raw deflate for the snapshots' product lists (JSON Lines compress about 5 to 1).
enum Deflate {
    static func compress(_ data: Data) throws -> Data { try RawDeflate.compress(data) }

    /// A snapshot's bytes must end their stream: a damaged or cut-off one is an error, never a wait.
    static func inflate(_ data: Data) throws -> Data { try RawInflate.inflate(data) }
}
