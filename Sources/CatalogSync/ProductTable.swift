import Foundation
import OpenMarketContract

/// Products held compactly, found by id: each product encoded once into chunks of bytes
/// (`ByteChunks`), decoded when asked for. A listing of 100,000
/// products holds about 170 bytes each this way, where a dictionary of `ProductSummary` held
/// well over a kilobyte. A product set again is written again (its old bytes stay until the
/// table goes); a run sets few.
struct ProductTable: Sendable {
    private var bytes = ByteChunks()
    /// Where each product's record starts.
    private var offsets: [Int: Int] = [:]

    init() {}

    var count: Int { offsets.count }
    var isEmpty: Bool { offsets.isEmpty }
    var keys: Dictionary<Int, Int>.Keys { offsets.keys }

    /// Every product, decoded one at a time as it is read.
    var values: LazyMapSequence<Dictionary<Int, Int>.Values, ProductSummary> {
        offsets.values.lazy.map { [bytes] offset in bytes.read(at: offset, Self.decode) }
    }

    func contains(_ id: Int) -> Bool { offsets[id] != nil }

    subscript(id: Int) -> ProductSummary? {
        get { offsets[id].map { bytes.read(at: $0, Self.decode) } }
        set {
            guard let product = newValue else { offsets[id] = nil; return }
            offsets[id] = bytes.append(Self.encode(product))
        }
    }

    private static func encode(_ product: ProductSummary) -> [UInt8] {
        var writer = ByteWriter()
        writer.int(product.id)
        writer.int(product.vendorId)
        writer.text(product.vendorName)
        writer.text(product.name)
        writer.text(product.description)
        writer.text(product.thumbnail)
        writer.text(product.currency)
        writer.money(product.price)
        writer.money(product.bargainPrice)
        writer.money(product.discountedPrice)
        writer.int(product.stock)
        writer.double(product.createdAt.timeIntervalSinceReferenceDate)
        writer.double(product.issuedAt.timeIntervalSinceReferenceDate)
        return writer.bytes
    }

    private static func decode(_ reader: inout ByteReader) -> ProductSummary {
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
    private var first: [Int: Int] = [:]
    private var more: [Int: [Int]] = [:]

    mutating func add(_ name: String, _ id: Int) {
        let hash = name.hashValue
        guard let one = first[hash] else { first[hash] = id; return }
        guard one != id, !(more[hash]?.contains(id) ?? false) else { return }
        more[hash, default: []].append(id)
    }

    /// The ids of products named exactly `name` in `table`, ascending.
    func ids(named name: String, in table: ProductTable) -> [Int] {
        let hash = name.hashValue
        guard let one = first[hash] else { return [] }
        return ([one] + (more[hash] ?? [])).filter { table[$0]?.name == name }.sorted()
    }
}
