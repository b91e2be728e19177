import OpenMarketContract

/// A register or edit body: the fields and the vendor's secret beside them.
struct WriteBody<Fields: Encodable>: Encodable {
    var fields: Fields
    var secret: String

    func encode(to encoder: any Encoder) throws {
        try fields.encode(to: encoder)
        var c = encoder.container(keyedBy: ProductKey.self)
        try c.encode(secret, forKey: .secret)
    }
}
