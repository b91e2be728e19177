import Foundation
import OpenMarketContract
import ShopState

/// The account's links by key, as a run holds them (`RecordTable`): a link with what was
/// pushed and its photos' digests is a record of a few hundred bytes on disk, not a dictionary
/// entry with a dozen strings of its own in memory.
typealias LinkTable = RecordTable<String, ProductLink>

extension RecordTable where Key == String, Value == ProductLink {
    init(_ links: some Sequence<ProductLink>) {
        self.init()
        for link in links { self[link.key] = link }
    }

    /// Each link's key, product and state, without decoding what was pushed.
    func eachProduct(_ body: (_ key: String, _ productID: Int, _ state: ProductLink.State) -> Void) {
        each(peek: { reader -> (Int?, ProductLink.State) in
            _ = reader.text()
            _ = reader.byte()
            let id = reader.int()
            return (id < 0 ? nil : id, reader.byte() == 1 ? .linked : .pending)
        }) { key, found in
            if let id = found.0 { body(key, id, found.1) }
        }
    }
}

extension ProductLink: CompactRecord {
    func write(to writer: inout ByteWriter) {
        writer.text(key)
        writer.byte(byName ? 1 : 0)
        writer.int(productID ?? -1)
        writer.byte(state == .linked ? 1 : 0)
        if let pushed {
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
        writer.int(photos?.count ?? -1)
        for photo in photos ?? [] { writer.text(photo) }
        writer.double(updatedAt.timeIntervalSinceReferenceDate)
    }

    static func read(_ reader: inout ByteReader) -> ProductLink {
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
