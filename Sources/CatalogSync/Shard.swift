import Foundation
import Support

/// One of N parts of a sheet, by merchant key: `import --shard I/N` takes the rows whose link
/// key (the merchant key, else `name:` and the name) hashes to I. The hash is FNV-1a of the key,
/// the same on every machine, so N processes given 0/N … N-1/N take every row exactly once
/// between them, and a shard run again (elsewhere) takes the same rows.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, count <= 10_000, index >= 0, index < count else { return nil }
        self.index = index
        self.count = count
    }

    /// `I/N`, as given on the command line (I from 0).
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// Whether the row of this link key is this shard's.
    public func owns(_ linkKey: String) -> Bool { Int(FNV.hash(linkKey) % UInt64(count)) == index }
}
