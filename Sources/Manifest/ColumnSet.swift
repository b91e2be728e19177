/// A set of columns as the bits of one word: what a row gives (`ProductDraft.given`), what a
/// feed protects. A `ColumnSet` was a hashed table allocated per row and a dozen hashes
/// per row to fill it. Reads as a set does (`contains`, `insert`, `subtracting`, a literal,
/// iteration in the columns' order); encoded as a list of columns, as a set was.
public struct ColumnSet: SetAlgebra, Sequence, Hashable, Sendable, Codable, CustomStringConvertible {
    public typealias Element = Column
    private var bits: UInt16

    public init() { bits = 0 }

    public init(arrayLiteral columns: Column...) {
        bits = 0
        for column in columns { bits |= Self.bit(column) }
    }

    private init(bits: UInt16) { self.bits = bits }

    private static func bit(_ column: Column) -> UInt16 { 1 << UInt16(column.slot) }

    public var count: Int { bits.nonzeroBitCount }
    public var isEmpty: Bool { bits == 0 }

    public func contains(_ column: Column) -> Bool { bits & Self.bit(column) != 0 }

    public func union(_ other: ColumnSet) -> ColumnSet { ColumnSet(bits: bits | other.bits) }
    public func intersection(_ other: ColumnSet) -> ColumnSet { ColumnSet(bits: bits & other.bits) }
    public func symmetricDifference(_ other: ColumnSet) -> ColumnSet { ColumnSet(bits: bits ^ other.bits) }
    public func subtracting(_ other: ColumnSet) -> ColumnSet { ColumnSet(bits: bits & ~other.bits) }

    @discardableResult
    public mutating func insert(_ column: Column) -> (inserted: Bool, memberAfterInsert: Column) {
        let had = contains(column)
        bits |= Self.bit(column)
        return (!had, column)
    }

    @discardableResult
    public mutating func remove(_ column: Column) -> Column? {
        guard contains(column) else { return nil }
        bits &= ~Self.bit(column)
        return column
    }

    @discardableResult
    public mutating func update(with column: Column) -> Column? {
        let had = contains(column)
        bits |= Self.bit(column)
        return had ? column : nil
    }

    public mutating func formUnion(_ other: ColumnSet) { bits |= other.bits }
    public mutating func formIntersection(_ other: ColumnSet) { bits &= other.bits }
    public mutating func formSymmetricDifference(_ other: ColumnSet) { bits ^= other.bits }

    public struct Iterator: IteratorProtocol {
        fileprivate var bits: UInt16
        public mutating func next() -> Column? {
            guard bits != 0 else { return nil }
            let slot = bits.trailingZeroBitCount
            bits &= bits - 1
            return Column.bySlot[slot]
        }
    }

    public func makeIterator() -> Iterator { Iterator(bits: bits) }
    public var underestimatedCount: Int { count }

    public var description: String { "[" + map(\.rawValue).joined(separator: ", ") + "]" }

    public init(from decoder: any Decoder) throws {
        self.init(try [Column](from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try Array(self).encode(to: encoder)
    }
}
