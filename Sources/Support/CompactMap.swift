/// A map held as two arrays sorted by key, of exactly their size, found by binary search; what
/// was set since the last `compact()` sits in a small dictionary beside them, merged in when it
/// grows to an eighth of the arrays (and by `compact()` once a bulk load is over): filled one
/// entry at a time, each entry is copied about nine times in all.
///
/// What a run keeps a value of per product or key (the listing's and the links' record offsets,
/// the key of each linked product, the journal's states). A Swift dictionary keeps at most 3/4 of
/// its buckets full and doubles: 50,000 entries take 131,072 buckets, up to 2.6 times their
/// size; these arrays take the entries' size (a `String` key and an `Int` 24 bytes an entry).
///
/// Keys are ordered by `<`, which for `String` agrees with its `==` (canonical equivalence),
/// as a dictionary's hashing does.
public struct CompactMap<Key: Hashable & Comparable, Value> {
    @usableFromInline var keys: [Key] = []
    @usableFromInline var values: [Value] = []
    /// Set since the last merge; `nil` removes the key.
    @usableFromInline var recent: [Key: Value?] = [:]
    @usableFromInline var entries = 0

    @inlinable
    public var count: Int { entries }

    @inlinable
    public init() {}

    @inlinable
    public var isEmpty: Bool { count == 0 }

    @inlinable
    public subscript(key: Key) -> Value? {
        get {
            if let set = recent[key] { return set }
            return position(of: key).map { values[$0] }
        }
        set {
            // One hash and at most one search a set: what was set since is looked at first.
            if let index = recent.index(forKey: key) {
                let had: Bool
                if case .some = recent.values[index] { had = true } else { had = false }
                switch (had, newValue) {
                case (_, .some(let value)):
                    if !had { entries += 1 }
                    recent.values[index] = .some(value)
                case (true, .none):
                    entries -= 1
                    if position(of: key) != nil { recent.values[index] = Value?.none } else { recent.remove(at: index) }
                case (false, .none):
                    break
                }
                return
            }
            let at = position(of: key)
            guard let newValue else {
                if at != nil {
                    recent[key] = .some(nil)
                    entries -= 1
                }
                return
            }
            if let at {
                values[at] = newValue
                return
            }
            recent[key] = .some(newValue)
            entries += 1
            if recent.count >= Swift.max(256, keys.count / 8) { compact() }
        }
    }

    @inlinable
    public func contains(_ key: Key) -> Bool { self[key] != nil }

    /// The keys, in order.
    @inlinable
    public var allKeys: [Key] {
        var all: [Key] = []
        all.reserveCapacity(count)
        for (key, _) in self { all.append(key) }
        return all
    }

    /// Merges what was set since into the sorted arrays, each of exactly its size.
    @inlinable
    public mutating func compact() {
        guard !recent.isEmpty else { return }
        var mergedKeys: [Key] = [], mergedValues: [Value] = []
        mergedKeys.reserveCapacity(count)
        mergedValues.reserveCapacity(count)
        for (key, value) in self {
            mergedKeys.append(key)
            mergedValues.append(value)
        }
        keys = mergedKeys
        values = mergedValues
        recent = [:]
    }

    /// Where `key` is in the sorted arrays.
    @inlinable
    func position(of key: Key) -> Int? {
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key ? low : nil
    }
}

extension CompactMap: Sendable where Key: Sendable, Value: Sendable {}

extension CompactMap: Sequence {
    /// Each key and value, in order of the keys: the sorted arrays and what was set since, merged.
    public struct Iterator: IteratorProtocol {
        @usableFromInline let keys: [Key]
        @usableFromInline let values: [Value]
        @usableFromInline let added: [(key: Key, value: Value?)]
        @usableFromInline var i = 0, j = 0

        @inlinable
        init(keys: [Key], values: [Value], added: [(key: Key, value: Value?)]) {
            self.keys = keys
            self.values = values
            self.added = added
        }

        @inlinable
        public mutating func next() -> (key: Key, value: Value)? {
            while j < added.count {
                let (key, value) = added[j]
                if i < keys.count && keys[i] < key {
                    defer { i += 1 }
                    return (keys[i], values[i])
                }
                if i < keys.count && keys[i] == key { i += 1 }
                j += 1
                if let value { return (key, value) }
            }
            guard i < keys.count else { return nil }
            defer { i += 1 }
            return (keys[i], values[i])
        }
    }

    @inlinable
    public func makeIterator() -> Iterator {
        Iterator(keys: keys, values: values, added: recent.sorted { $0.key < $1.key })
    }

    @inlinable
    public var underestimatedCount: Int { count }
}
