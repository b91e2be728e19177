@testable import CatalogSync
import Foundation
import Manifest
import OpenMarketAPI
import Testing
import TestSupport

/// Sheets from elsewhere (another platform's export, a sheet Excel or LibreOffice saved),
/// imported into the sandbox over HTTP: nothing overwritten, doubled or changed silently.
@Suite("Sheets from elsewhere, imported")
struct ForeignSheetTests {
    @Test("another platform's ID that is a product of this shop touches nothing; the account's own id still works")
    func foreignID() async throws {
        try await withShop { shop in
            let first = try await shop.run(try shop.sheet("mine.csv", "key,name,price,currency,stock,images\nTEA-1,보성 우전 녹차 50g,12000,KRW,5,p.jpg\nTEA-2,제주 말차 30g,9000,KRW,3,p.jpg\n"))
            let tea = try #require(first.row(2)?.productID)
            // WooCommerce's own number happens to be the tea's id.
            let foreign = try await shop.run(try shop.sheet("woo.csv", "ID,SKU,Name,Price,Currency,Stock,Images\n\(tea),MUG-1,Brand new mug,11000,KRW,4,p.jpg\n"))
            let row = try #require(foreign.row(2))
            #expect(row.status == .failed && row.error?.contains("[id-untrusted]") == true, "\(row)")
            #expect(row.error?.contains("보성 우전 녹차 50g") == true && row.error?.contains("--ignore-id") == true)
            let products = try await shop.products()
            #expect(products["보성 우전 녹차 50g"]?.count == 1 && products["Brand new mug"] == nil)
            // The same sheet with --ignore-id: a new product of its own; the tea is untouched.
            let ignored = try await shop.run(try shop.sheet("woo.csv", "ID,SKU,Name,Price,Currency,Stock,Images\n\(tea),MUG-1,Brand new mug,11000,KRW,4,p.jpg\n")) {
                $0.validation.ignoreID = true
            }
            #expect(ignored.row(2)?.status == .created && ignored.row(2)?.productID != tea)
            #expect(try await shop.products()["보성 우전 녹차 50g"]?.first?.id == tea)
            // The account's own id (linked to the row's key) still names its product.
            let own = try await shop.run(try shop.sheet("own.csv", "id,key,name,price,currency,stock,images\n\(tea),TEA-1,보성 우전 녹차 50g,12500,KRW,5,p.jpg\n"))
            #expect(own.row(2)?.status == .updated && own.row(2)?.productID == tea, "\(String(describing: own.row(2)))")
        }
    }

    @Test("keys that lost their leading zeros in Excel are the products they were, never second ones")
    func leadingZeros() async throws {
        try await withShop { shop in
            var sheet = "key,name,price,currency,stock,images\n"
            for i in 0..<5 { sheet += "0012\(i),Tea \(i),\(1000 + i),KRW,\(i + 1),p.jpg\n" }
            let first = try await shop.run(try shop.sheet("teas.csv", sheet))
            #expect(first.summary.count(.created) == 5)
            var excel = "key,name,price,currency,stock,images\n"
            for i in 0..<5 { excel += "12\(i),Tea \(i),\(1000 + i),KRW,\(i == 2 ? 9 : i + 1),p.jpg\n" }
            let again = try await shop.run(try shop.sheet("teas-excel.csv", excel))
            #expect(again.summary.count(.created) == 0 && again.summary.count(.updated) == 1 && again.summary.count(.unchanged) == 4, "\(again.rows)")
            #expect(again.row(4)?.productID == first.row(4)?.productID)
            #expect(again.row(4)?.note?.contains("00122 without its leading zeros") == true, "\(String(describing: again.row(4)))")
            let products = try await shop.products()
            #expect((0..<5).allSatisfy { products["Tea \($0)"]?.count == 1 })
            #expect(products["Tea 2"]?.first?.stock == 9)
        }
    }

    @Test("rows that would be one product fail naming the row they collide with: one name twice without keys, keys apart only by zeros or case")
    func collisions() async throws {
        try await withShop { shop in
            let names = try await shop.run(try shop.sheet("names.csv", "name,price,currency,stock,images\nGreen tea,1000,KRW,1,p.jpg\nBlack tea,1100,KRW,1,p.jpg\nGreen tea,1200,KRW,1,p.jpg\nOolong,1300,KRW,1,p.jpg\n"))
            #expect(names.summary.count(.created) == 3 && names.summary.count(.failed) == 1)
            #expect(names.row(4)?.status == .failed && names.row(4)?.error?.contains("the same name as row 2") == true, "\(String(describing: names.row(4)))")
            #expect(try await shop.products()["Green tea"]?.count == 1)
            let keys = try await shop.run(try shop.sheet("keys.csv", "key,name,price,currency,stock,images\n00120,Alpha,1000,KRW,1,p.jpg\n120,Bravo,1000,KRW,1,p.jpg\nAb-1,Charlie,1000,KRW,1,p.jpg\naB-1,Delta,1000,KRW,1,p.jpg\n"))
            #expect(keys.summary.count(.created) == 2 && keys.summary.count(.failed) == 2)
            #expect(keys.row(3)?.error?.contains("the same key as row 2") == true && keys.row(5)?.error?.contains("the same key as row 4") == true)
        }
    }

    @Test("an empty stock cell never puts a new product on sale sold out; --default-stock says what it means; an update keeps the stock")
    func emptyStock() async throws {
        try await withShop { shop in
            let text = "key,name,price,currency,stock,images\nW1,Wool scarf,30000,KRW,,p.jpg\nW2,Wool hat,20000,KRW,7,p.jpg\n"
            let plain = try await shop.run(try shop.sheet("woo.csv", text))
            #expect(plain.row(2)?.status == .failed && plain.row(2)?.error?.contains("stock-empty") == true, "\(String(describing: plain.row(2)))")
            #expect(plain.row(3)?.status == .created)
            let defaulted = try await shop.run(try shop.sheet("woo.csv", text)) { $0.validation.defaultStock = 4 }
            #expect(defaulted.row(2)?.status == .created)
            #expect(try await shop.products()["Wool scarf"]?.first?.stock == 4)
            // An update with an empty cell keeps the shop's stock (7), whatever --default-stock says.
            let update = try await shop.run(try shop.sheet("woo.csv", "key,name,price,currency,stock,images\nW2,Wool hat,21000,KRW,,p.jpg\n")) {
                $0.validation.defaultStock = 4
            }
            #expect(update.row(2)?.status == .updated)
            #expect(try await shop.products()["Wool hat"]?.first?.stock == 7)
        }
    }

    @Test("photos listed in one cell with commas, bars or line breaks are each a photo; HTML descriptions arrive as text")
    func listsAndHTML() async throws {
        try await withShop { shop in
            let text = "key,name,price,currency,stock,images,description\n"
            + "A,Comma,1000,KRW,1,\"p.jpg, q.jpg\",\"<p>Soft &amp; warm</p><p>Wash cold<br>Dry flat</p>\"\n"
            + "B,Bar,1000,KRW,1,p.jpg | q.jpg,plain\n"
            + "C,Lines,1000,KRW,1,\"p.jpg\nq.jpg\",plain\n"
            let result = try await shop.run(try shop.sheet("list.csv", text))
            #expect(result.summary.count(.created) == 3, "\(result.rows)")
            let client = try shop.vendor
            for row in 2...4 {
                let id = try #require(result.row(row)?.productID)
                // Off the cooperative threads: the in-process sandbox answers on them.
                let product = try await blocking { try client.product(id: id) }
                #expect(product.images?.count == 2, "row \(row): \(product.images)")
                if row == 2 { #expect(product.summary.description == "Soft & warm\n\nWash cold\nDry flat") }
            }
            let kept = try await shop.run(try shop.sheet("html.csv", "key,name,price,currency,stock,images,description\nH,Markup,1000,KRW,1,p.jpg,<b>Bold</b>\n")) {
                $0.validation.keepHTML = true
            }
            let keptID = try #require(kept.row(2)?.productID)
            #expect(try await blocking { try client.product(id: keptID) }.summary.description == "<b>Bold</b>")
        }
    }

    @Test("a photo host that does not resolve fails its rows at once, naming the host")
    func unresolvableHost() async throws {
        try await withShop { shop in
            var text = "key,name,price,currency,stock,images\n"
            for i in 1...4 { text += "U\(i),Remote \(i),1000,KRW,1,http://photos.no-such-host.invalid/\(i).jpg\n" }
            let result = try await shop.run(try shop.sheet("remote.csv", text))
            #expect(result.summary.count(.failed) == 4)
            for row in 2...5 {
                let message = result.row(row)?.error ?? ""
                #expect(message.contains("photos.no-such-host.invalid") && !message.contains("attempts"), "\(message)")
            }
        }
    }

    private func withShop(_ body: (Shop) async throws -> Void) async throws {
        let shop = try await Shop.open()
        do { try await body(shop) } catch {
            await shop.close()
            throw error
        }
        await shop.close()
    }
}
