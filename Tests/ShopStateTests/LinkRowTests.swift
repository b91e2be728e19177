import Foundation
import OpenMarketContract
@testable import ShopState
import Testing

@Suite("A link's stored product read without the decoder")
struct LinkRowTests {
    @Test("a link written and read back is the same link: whole and fractional prices, escapes, Korean, no photos, no product")
    func roundTrip() throws {
        let awkward = "녹차 \"quoted\" back\\slash / a/b\ttab\nline \u{01} 🍵"
        let products = [
            Product(name: "Green tea", description: "", price: 1_001, currency: "KRW", discountedPrice: 0, stock: 1),
            Product(name: awkward, description: awkward, price: 12_000, currency: "KRW", discountedPrice: 11_500, stock: -3),
            Product(name: "Fraction", description: "d", price: 9.99, currency: "USD", discountedPrice: 0.5, stock: 0),
        ]
        for (index, product) in products.enumerated() {
            for photos in [nil, [], ["f57f8ff7", "url:\(awkward)"]] as [[String]?] {
                let link = ProductLink(key: "K\(index)", byName: false, productID: index, state: .linked, pushed: product, photos: photos,
                                       updatedAt: Date(timeIntervalSince1970: 1_795_890_487))
                #expect(try ProductLink(row: link.row) == link, "\(product.name) \(String(describing: photos))")
            }
        }
        let bare = ProductLink(key: "name:x", byName: true, productID: nil, state: .pending, pushed: nil, photos: nil,
                               updatedAt: Date(timeIntervalSince1970: 0))
        #expect(try ProductLink(row: bare.row) == bare)
    }

    @Test("the quick read is the decoder's for whole amounts, and leaves fractions, unknown fields and damage to it")
    func quickOrDecoder() throws {
        let whole = #"{"currency":"KRW","description":"é \"q\" \u00e9","discountedPrice":0,"name":"N","price":1001,"stock":1}"#
        #expect(ProductLink.product(whole) == (try JSONDecoder().decode(Product.self, from: Data(whole.utf8))))
        for other in [#"{"currency":"USD","description":"","discountedPrice":0,"name":"N","price":9.99,"stock":1}"#,
                      #"{"currency":"KRW","description":"","discountedPrice":0,"name":"N","price":1,"stock":1,"color":"red"}"#,
                      #"{"currency":"KRW","description":"","name":"N","price":1,"stock":1}"#,
                      #"{"currency":"KRW","description":"","discountedPrice":0,"name":"N","price":1,"stock":1"#] {
            #expect(ProductLink.product(other) == nil, "\(other)")
        }
    }
}
