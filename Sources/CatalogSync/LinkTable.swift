import Foundation
import OpenMarketContract
import ShopState

/// The account's links as a run holds them: each link encoded once into chunks of bytes
/// (`ByteChunks`), found by its key, decoded when asked for. A link with what was pushed
/// and its photos' digests costs a few hundred bytes this way, not a dictionary entry with
/// a dozen strings of its own.
struct LinkTable: Sendable {
    private var bytes = ByteChunks()
    /// Where each key's record starts.
    private var offsets: [String: Int] = [:]

    init() {}

    init(_ links: some Sequence<ProductLink>) {
        for link in links { self[link.key] = link }
    }

    var count: Int { offsets.count }
    var isEmpty: Bool { offsets.isEmpty }
    var keys: Dictionary<String, Int>.Keys { offsets.keys }

    /// Every link, decoded one at a time as it is read.
    var values: LazyMapSequence<Dictionary<String, Int>.Values, ProductLink> {
        offsets.values.lazy.map { [bytes] offset in bytes.read(at: offset, Self.decode) }
    }

    /// Each link's key, product and state, without decoding what was pushed.
    func eachProduct(_ body: (_ key: String, _ productID: Int, _ state: ProductLink.State) -> Void) {
        for (key, offset) in offsets {
            let (id, state) = bytes.read(at: offset) { reader -> (Int?, ProductLink.State) in
                _ = reader.text()
                _ = reader.byte()
                let id = reader.int()
                return (id < 0 ? nil : id, reader.byte() == 1 ? .linked : .pending)
            }
            if let id { body(key, id, state) }
        }
    }

    subscript(key: String) -> ProductLink? {
        get { offsets[key].map { bytes.read(at: $0, Self.decode) } }
        set {
            guard let link = newValue else { offsets[key] = nil; return }
            offsets[key] = bytes.append(Self.encode(link))
        }
    }

    private static func encode(_ link: ProductLink) -> [UInt8] {
        var writer = ByteWriter()
        writer.text(link.key)
        writer.byte(link.byName ? 1 : 0)
        writer.int(link.productID ?? -1)
        writer.byte(link.state == .linked ? 1 : 0)
        if let pushed = link.pushed {
            writer.byte(1)
            writer.text(pushed.name)
            writer.text(pushed.description)
            writer.money(pushed.price)
            writer.text(pushed.currency)
            writer.money(pushed.discountedPrice)
            writer.int(pushed.stock)
        } else {
            writer.byte(0)
        }
        writer.int(link.photos?.count ?? -1)
        for photo in link.photos ?? [] { writer.text(photo) }
        writer.double(link.updatedAt.timeIntervalSinceReferenceDate)
        return writer.bytes
    }

    private static func decode(_ reader: inout ByteReader) -> ProductLink {
        let key = reader.text() ?? "", byName = reader.byte() == 1
        let id = reader.int()
        let state: ProductLink.State = reader.byte() == 1 ? .linked : .pending
        var pushed: Product?
        if reader.byte() == 1 {
            let name = reader.text() ?? "", description = reader.text() ?? "", price = reader.money(), currency = reader.text() ?? ""
            pushed = Product(name: name, description: description, price: price, currency: currency, discountedPrice: reader.money(),
                             stock: reader.int())
        }
        let photoCount = reader.int()
        let photos: [String]? = photoCount < 0 ? nil : (0..<photoCount).map { _ in reader.text() ?? "" }
        return ProductLink(key: key, byName: byName, productID: id < 0 ? nil : id, state: state, pushed: pushed, photos: photos,
                           updatedAt: Date(timeIntervalSinceReferenceDate: reader.double()))
    }
}
