import Support
import Foundation
import OpenMarketContract

/// A value a `RecordTable` keeps: written as one record, read back from it.
protocol CompactRecord: Sendable {
    func write(to writer: inout ByteWriter)
    static func read(_ reader: inout ByteReader) -> Self
}

/// Values held compactly, found by key: each encoded once as a record in `ByteChunks` (a file
/// of the run's own), decoded when asked for. What a run keeps of a big shop: its listing
/// (`ProductTable`) and the account's links (`LinkTable`). A value set again is written again
/// (its old record stays until the table goes); a run sets few.
struct RecordTable<Key: Hashable & Comparable & Sendable, Value: CompactRecord>: Sendable {
    private var bytes = ByteChunks()
    /// Where each key's record starts.
    private var offsets = CompactMap<Key, Int>()

    init() {}

    var count: Int { offsets.count }
    var isEmpty: Bool { offsets.isEmpty }
    /// The keys, in order.
    var keys: [Key] { offsets.allKeys }

    /// Every value, in order of the keys, decoded one at a time as it is read.
    var values: LazyMapSequence<CompactMap<Key, Int>, Value> {
        offsets.lazy.map { [bytes] entry in bytes.read(at: entry.value, Value.read) }
    }

    func contains(_ key: Key) -> Bool { offsets.contains(key) }

    subscript(key: Key) -> Value? {
        get { offsets[key].map { bytes.read(at: $0, Value.read) } }
        set {
            guard let value = newValue else { offsets[key] = nil; return }
            var writer = ByteWriter()
            value.write(to: &writer)
            offsets[key] = bytes.append(writer.bytes)
        }
    }

    /// Once a bulk load is over: the offsets in arrays of exactly their size.
    mutating func compact() { offsets.compact() }

    /// Each key with a part of its record read by `peek` (the first fields, without decoding the rest).
    func each<T>(peek: (inout ByteReader) -> T, _ body: (Key, T) -> Void) {
        for (key, offset) in offsets { body(key, bytes.read(at: offset, peek)) }
    }
}

/// This vendor's products by id, as the listing read them (about 230 bytes each on disk, where
/// a dictionary of `ProductSummary` held over a kilobyte in memory).
typealias ProductTable = RecordTable<Int, ProductSummary>

extension ProductSummary: CompactRecord {
    func write(to writer: inout ByteWriter) {
        writer.int(id)
        writer.int(vendorId)
        writer.text(vendorName)
        writer.text(name)
        writer.text(description)
        writer.text(thumbnail)
        writer.text(currency)
        writer.money(price)
        writer.money(bargainPrice)
        writer.money(discountedPrice)
        writer.int(stock)
        writer.double(createdAt.timeIntervalSinceReferenceDate)
        writer.double(issuedAt.timeIntervalSinceReferenceDate)
    }

    static func read(_ reader: inout ByteReader) -> ProductSummary {
        let id = reader.int(), vendorId = reader.int(), vendorName = reader.text(), name = reader.text() ?? ""
        let description = reader.text(), thumbnail = reader.text() ?? "", currency = reader.text() ?? ""
        let price = reader.money(), bargainPrice = reader.money(), discountedPrice = reader.money()
        let stock = reader.int()
        let created = Date(timeIntervalSinceReferenceDate: reader.double()), issued = Date(timeIntervalSinceReferenceDate: reader.double())
        return ProductSummary(id: id, vendorId: vendorId, vendorName: vendorName, name: name, description: description,
                              thumbnail: thumbnail, currency: currency, price: price, bargainPrice: bargainPrice,
                              discountedPrice: discountedPrice, stock: stock, createdAt: created, issuedAt: issued)
    }
}

/// Ids by exact name, held as a hash of the name (no string kept per product): the ids a name
/// may have, to be checked against the products' own names (`ids(named:in:)`). Ascending.
struct NameIndex: Sendable {
    private var first = CompactMap<Int, Int>()
    private var more: [Int: [Int]] = [:]

    mutating func add(_ name: String, _ id: Int) {
        let hash = name.hashValue
        guard let one = first[hash] else { first[hash] = id; return }
        guard one != id, !(more[hash]?.contains(id) ?? false) else { return }
        more[hash, default: []].append(id)
    }

    /// Once every product is added: the index in arrays of exactly its size.
    mutating func compact() { first.compact() }

    /// Whether more than one product may have this name (no string compared: a cheap first look).
    func mayHoldSeveral(_ name: String) -> Bool { more[name.hashValue] != nil }

    /// The ids of products named exactly `name` in `table`, ascending.
    func ids(named name: String, in table: ProductTable) -> [Int] {
        let hash = name.hashValue
        guard let one = first[hash] else { return [] }
        return ([one] + (more[hash] ?? [])).filter { table[$0]?.name == name }.sorted()
    }
}
