/// A row's cells by column: one slot per `Column`, found by the column's place, never hashed.
///
/// Every row of every file is read into one of these and looked up a dozen times by the rules
/// (`RowRules.text`): as a `[Column: String]` that was a dictionary made, hashed into and freed
/// per row (about a tenth of `validate`'s time at a million rows). Reads as a dictionary does:
/// a subscript, iteration in the columns' order, `keys`, a literal.
public struct RowValues: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// `Column.slot` → the cell; empty until the first cell is set (a row of none allocates nothing).
    private var slots: [String?] = []
    public private(set) var count = 0

    public init() {}

    public init(dictionaryLiteral elements: (Column, String)...) {
        for (column, value) in elements { self[column] = value }
    }

    public init(_ dictionary: [Column: String]) {
        for (column, value) in dictionary { self[column] = value }
    }

    /// The cells of a record by the columns their places are (a later place of a column wins),
    /// each moved out of `fields` (left empty there), not copied: every row of a CSV file is made so.
    init(moving fields: inout [String], columns: [(Int, Column)]) {
        guard !columns.isEmpty else { return }
        var slots = [String?](repeating: nil, count: Column.slotCount)
        var count = 0
        fields.withUnsafeMutableBufferPointer { cells in
            guard let base = cells.baseAddress else { return }
            for (index, column) in columns where index < cells.count {
                let cell = (base + index).move()
                (base + index).initialize(to: "")
                if slots[column.slot] == nil { count += 1 }
                slots[column.slot] = cell
            }
        }
        guard count > 0 else { return }
        self.slots = slots
        self.count = count
    }

    public subscript(column: Column) -> String? {
        get {
            let slot = column.slot
            return slot < slots.count ? slots[slot] : nil
        }
        set {
            let slot = column.slot
            if slots.isEmpty {
                guard newValue != nil else { return }
                slots = Array(repeating: nil, count: Column.slotCount)
            }
            switch (slots[slot] == nil, newValue == nil) {
            case (true, false): count += 1
            case (false, true): count -= 1
            default: break
            }
            slots[slot] = newValue
        }
    }

    public subscript(column: Column, default value: @autoclosure () -> String) -> String {
        self[column] ?? value()
    }

    public var isEmpty: Bool { count == 0 }

    /// The columns with a cell, in the columns' order.
    public var keys: [Column] { map(\.key) }

    @discardableResult
    public mutating func removeValue(forKey column: Column) -> String? {
        let old = self[column]
        self[column] = nil
        return old
    }

    public var dictionary: [Column: String] {
        Dictionary(uniqueKeysWithValues: map { ($0.key, $0.value) })
    }

    public var description: String { dictionary.description }

    public static func == (lhs: RowValues, rhs: RowValues) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.allSatisfy { rhs[$0.key] == $0.value }
    }

    public struct Iterator: IteratorProtocol {
        fileprivate let slots: [String?]
        fileprivate var position = 0

        public mutating func next() -> (key: Column, value: String)? {
            while position < slots.count {
                defer { position += 1 }
                if let value = slots[position] { return (Column.bySlot[position], value) }
            }
            return nil
        }
    }

    public func makeIterator() -> Iterator { Iterator(slots: slots) }

    public var underestimatedCount: Int { count }
}

extension Column {
    static let slotCount = allCases.count
    static let bySlot = Array(allCases)
}
