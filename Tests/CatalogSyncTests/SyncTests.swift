import CatalogSync
import CatalogExport
import Foundation
import Manifest
import OpenMarketAPI
import ShopState
import Support
import Testing
import TestSupport

@Suite("The shop is the truth: one product per merchant key")
struct SyncTests {
    @Test("the same sheet under a new name creates nothing and sends no write; a 200-row sync of equal rows is reads only")
    func renamedSheet() async throws {
        let shop = try await Shop.open()
        let first = try await shop.run(try shop.sheet("products.csv", Shop.sheetText(rows: 200)))
        #expect(first.summary.counts == ["created": 200], "\(first.summary.counts)")
        let writesAfterFirst = shop.writes
        #expect(writesAfterFirst == 200)

        let copy = try shop.sheet("products-november.csv", Shop.sheetText(rows: 200))
        let second = try await shop.run(copy)
        #expect(second.summary.counts == ["unchanged": 200], "\(second.summary.counts)")
        #expect(shop.writes == writesAfterFirst, "an equal sheet must send no POST, PATCH or DELETE")
        let products = try await shop.products()
        #expect(products.count == 200 && products.values.allSatisfy { $0.count == 1 })
        await shop.close()
    }

    @Test("an edited price is one PATCH of that field, reported old → new; prices compare as decimals")
    func editedPrice() async throws {
        let shop = try await Shop.open()
        _ = try await shop.run(try shop.sheet("products.csv", "key,name,price,currency,stock,images\nA1,Green tea,32000,KRW,8,p.jpg\nA2,Celadon cup,24.5,USD,3,p.jpg\nA3,Tea pot,12.99,USD,1,p.jpg\n"))
        let before = shop.writes
        let edited = try await shop.run(try shop.sheet("products.csv", "key,name,price,currency,stock,images\nA1,Green tea,31000,KRW,0,p.jpg\nA2,Celadon cup,24.50,USD,3,p.jpg\nA3,Tea pot,12.99,USD,1,p.jpg\n"))
        #expect(edited.summary.counts == ["updated": 1, "unchanged": 2], "\(edited.summary.counts)")
        #expect(edited.row(2)?.changes == "price 32000 → 31000 (-3.1 %); stock 8 → 0")
        #expect(edited.summary.fieldsChanged == ["price": 1, "stock": 1] && edited.summary.stockToZero == 1)
        #expect(shop.writes == before + 1)
        let tea = try #require(try await shop.products()["Green tea"]?.first)
        #expect(tea.price == 31000 && tea.stock == 0)
        await shop.close()
    }

    @Test("a stock file (key,stock / id,stock) changes only stock: 0 is a value, +5/-3 are changes, never below 0")
    func stockFile() async throws {
        let shop = try await Shop.open()
        _ = try await shop.run(try shop.sheet("products.csv", Shop.sheetText(rows: 4)))   // stock 1, 2, 3, 4
        let stock = try await shop.run(try shop.sheet("stock.csv", "key,stock\nK1,0\nK2,+5\nK3,-3\nK4,-5\nK9,7\n"))
        #expect(stock.row(2)?.status == .updated && stock.row(2)?.changes == "stock 1 → 0")
        #expect(stock.row(3)?.changes == "stock 2 → 7")
        #expect(stock.row(4)?.changes == "stock 3 → 0")
        #expect(stock.row(5)?.status == .failed && stock.row(5)?.error?.contains("cannot go below 0") == true)
        // K9 is not in the shop: creating it would need a name, a price and photos.
        let unknown = try #require(stock.row(6))
        #expect(unknown.status == .failed && unknown.error?.contains("would create a product") == true
                && unknown.error?.contains("a new product needs a name") == true, "\(unknown.error ?? "")")
        let products = try await shop.products()
        #expect(products["Item 1"]?.first?.stock == 0 && products["Item 2"]?.first?.stock == 7)
        #expect(products["Item 3"]?.first?.stock == 0 && products["Item 4"]?.first?.stock == 4)
        #expect(products["Item 2"]?.first?.price == 1002 && products.count == 4, "other fields and products untouched")

        let id = try #require(products["Item 4"]?.first?.id)
        let byID = try await shop.run(try shop.sheet("warehouse.csv", "id,stock\n\(id),11\n")) { $0.mode = .update }
        #expect(byID.summary.counts == ["updated": 1] && byID.row(2)?.changes == "stock 4 → 11")
        await shop.close()
    }

    @Test("an unlinked key adopts the one product of this vendor with its exact name; two such products fail naming both")
    func adoption() async throws {
        let shop = try await Shop.open()
        // Made by hand in the shop, before openmarket knew the account.
        _ = try await seed(shop.sandbox, shop.sandbox.demo, count: 3, prefix: "Seeded")   // Seeded 0, 1, 2
        _ = try await seed(shop.sandbox, shop.sandbox.other, count: 1, prefix: "Seeded")  // another vendor's Seeded 0
        _ = try await seed(shop.sandbox, shop.sandbox.demo, count: 1, prefix: "Seeded")   // a second demo "Seeded 0"
        let seeded = try await shop.products()
        let ids = try (0..<3).map { i in try #require(seeded["Seeded \(i)"]?.filter { $0.vendorId == shop.sandbox.demo.id }.map(\.id).min()) }
        let result = try await shop.run(try shop.sheet("products.csv",
            "key,name,price,currency,stock,images\nS1,Seeded 1,1001,KRW,1,p.jpg\nS2,Seeded 2,1500,KRW,2,p.jpg\nS0,Seeded 0,1000,KRW,0,p.jpg\n"))
        #expect(result.row(2)?.status == .linked && result.row(2)?.productID == ids[1])
        #expect(result.row(3)?.status == .updated && result.row(3)?.productID == ids[2] && result.row(3)?.changes == "price 1002 → 1500 (+49.7 %)",
                "\(result.rows)")
        let ambiguous = try #require(result.row(4))
        #expect(ambiguous.status == .failed && ambiguous.error?.contains("2 products of this vendor are named \"Seeded 0\"") == true,
                "\(ambiguous.error ?? "")")
        #expect(ambiguous.error?.contains("\(ids[0])") == true)
        #expect(try await shop.products()["Seeded 0"]?.count == 3, "nothing created for the ambiguous row")
        // The links hold: the next run finds them by key, even under another name.
        let links = try LinkStore.open(shop.links)
        let (s1, s2) = (try links.link("S1"), try links.link("S2"))
        #expect(s1?.productID == ids[1] && s2?.productID == ids[2])
        let again = try await shop.run(try shop.sheet("copy.csv",
            "key,name,price,currency,stock,images\nS1,Seeded 1 renamed,1001,KRW,1,p.jpg\n"))
        #expect(again.row(2)?.status == .updated && again.row(2)?.changes == "name Seeded 1 → Seeded 1 renamed")
        // A blank description keeps the shop's; [clear] empties it.
        let kept = try await shop.run(try shop.sheet("descriptions.csv", "key,description\nS1,\n"))
        #expect(kept.row(2)?.status == .unchanged)
        let cleared = try await shop.run(try shop.sheet("descriptions.csv", "key,description\nS1,[clear]\n"))
        #expect(cleared.row(2)?.changes == "description seeded 1 → (empty)", "\(cleared.rows)")
        #expect(try await shop.products()["Seeded 1 renamed"]?.first?.description == "")
        await shop.close()
    }

    @Test("guardrails: a large price change fails its row unless forced; --max-creates caps creates")
    func guardrails() async throws {
        let shop = try await Shop.open()
        _ = try await shop.run(try shop.sheet("products.csv", Shop.sheetText(rows: 2)))
        let wrong = try shop.sheet("products.csv", Shop.sheetText(rows: 5, priceOf: { $0 == 1 ? 25 : 1000 + $0 }))
        let guarded = try await shop.run(wrong) { $0.maxCreates = 2 }
        #expect(guarded.row(2)?.status == .failed && guarded.row(2)?.error?.contains("the buyer's price 1001 → 25 is a change of -98 %") == true,
                "\(guarded.row(2)?.error ?? "")")
        #expect(guarded.summary.counts["created"] == 2 && guarded.row(6)?.error?.contains("--max-creates 2") == true)
        #expect(try await shop.products()["Item 1"]?.first?.price == 1001)
        let forced = try await shop.run(wrong) { $0.force = true }
        #expect(forced.row(2)?.status == .updated && forced.summary.counts["created"] == 1)
        await shop.close()
    }

    @Test("dry run reads the shop and says what would change; it writes nothing, not even a link")
    func dryRun() async throws {
        let shop = try await Shop.open()
        _ = try await shop.run(try shop.sheet("products.csv", Shop.sheetText(rows: 3)))
        let before = shop.writes
        let linksBefore = try LinkStore.open(shop.links).all()
        let plan = try await shop.run(try shop.sheet("plan.csv", Shop.sheetText(rows: 4, priceOf: { $0 == 2 ? 990 : 1000 + $0 }))) {
            $0.dryRun = true
        }
        #expect(plan.summary.counts == ["would-update": 1, "would-create": 1, "unchanged": 2], "\(plan.summary.counts)")
        #expect(plan.row(3)?.changes == "price 1002 → 990 (-1.2 %)")
        #expect(shop.writes == before)
        #expect(try LinkStore.open(shop.links).all() == linksBefore)
        await shop.close()
    }

    @Test("a shop that cannot be read stops the run before anything is sent; it is never \"no products\"")
    func unreadableShop() async throws {
        let shop = try await Shop.open()
        _ = try await shop.run(try shop.sheet("products.csv", Shop.sheetText(rows: 3)))
        let sheet = try shop.sheet("products.csv", Shop.sheetText(rows: 3))
        // An address where nothing answers and that no other test's server can take (a stopped
        // sandbox's port was taken by another test's, whose empty shop was then read).
        let gone = try RefusingAddress()
        await #expect(throws: SyncStop.self) { try await shop.run(sheet, server: gone.url) }
        let client = try client(shop.sandbox, shop.sandbox.demo)
        #expect(try await blocking { try client.allProducts().products.count } == 3, "nothing sent")
        await shop.close()
    }
}

@Suite("Export and links")
struct ExportLinkTests {
    @Test("export fills the key column from the link store; importing the export restores lost links, sending nothing")
    func exportRestoresLinks() async throws {
        let shop = try await Shop.open()
        _ = try await shop.run(try shop.sheet("products.csv", Shop.sheetText(rows: 5)))
        var options = ExportOptions(directory: shop.files.directory.appendingPathComponent("backup"))
        options.filter.vendor = .me
        options.keys = try LinkStore.open(shop.links).keysByProductID()
        let reader = try client(shop.sandbox, shop.sandbox.demo)
        let settings = options
        let exported = try await blocking { try CatalogExporter(options: settings, client: reader).run() }
        #expect(exported.exported == 5)
        let manifest = options.directory.appendingPathComponent(options.manifestName)
        let text = try String(contentsOf: manifest, encoding: .utf8)
        for i in 1...5 { #expect(text.contains("K\(i),Item \(i)"), "key K\(i) in the export") }

        // The state folder is lost (a new machine): importing the backup links every key again.
        try FileManager.default.removeItem(at: shop.state)
        let before = shop.writes
        let restored = try await shop.run(manifest)
        #expect(restored.summary.counts == ["unchanged": 5], "\(restored.summary.counts) \(restored.rows.map { $0.error ?? $0.note ?? "" })")
        #expect(shop.writes == before)
        let links = try LinkStore.open(shop.links).all()
        #expect(Set(links.keys) == Set((1...5).map { "K\($0)" }) && links.values.allSatisfy { $0.state == .linked })
        // And a sheet under yet another name finds them by key.
        let renamed = try await shop.run(try shop.sheet("renamed.csv", Shop.sheetText(rows: 5, priceOf: { 1100 + $0 })))
        let afterRename = try await shop.products()
        #expect(renamed.summary.counts == ["updated": 5] && afterRename.count == 5)
        await shop.close()
    }
}

@Suite("Photos that differ")
struct ReplacePhotosTests {
    @Test("photos differ: reported and left; --replace-photos makes the product again exactly once, also after a crash")
    func replacePhotos() async throws {
        let shop = try await Shop.open()
        let header = "key,name,description,price,currency,stock,images\n"
        _ = try await shop.run(try shop.sheet("products.csv", header + "R1,Round vase,clay,5000,KRW,2,p.jpg\nR2,Square vase,clay,6000,KRW,3,p.jpg\n"))
        let old = try #require(try await shop.products()["Round vase"]?.first?.id)
        let newPhotos = try shop.sheet("products.csv", header + "R1,Round vase,clay,5000,KRW,2,q.jpg\nR2,Square vase,clay,6000,KRW,3,q.jpg\n")
        let reported = try await shop.run(newPhotos)
        #expect(reported.summary.photosDiffer == 2 && reported.row(2)?.note?.contains("the API cannot replace photos") == true)
        #expect(reported.summary.counts == ["unchanged": 2])

        // A crash in the middle of R2's replacement: the new product was made, the old one not
        // yet deleted, the link still pending on the old one.
        let square = try #require(try await shop.products()["Square vase"]?.first?.id)
        let links = try LinkStore.open(shop.links)
        var pending = try #require(try links.link("R2"))
        pending.state = .pending
        try links.save(pending)
        let writer = try client(shop.sandbox, shop.sandbox.demo)
        let madeBeforeCrash = try await blocking {
            try writer.register(Product(name: "Square vase", description: "clay", price: 6000, currency: "KRW", discountedPrice: 0, stock: 3),
                                images: [UploadImage(data: Data(try Fixtures.jpeg(width: 48, height: 36, seed: 2)), filename: "q.jpg", mimeType: "image/jpeg")]).id
        }
        let postsBefore = shop.sandbox.server.requests.byMethod["POST"] ?? 0
        let replaced = try await shop.run(newPhotos) { $0.replacePhotos = true }
        #expect(replaced.summary.counts == ["replaced": 2], "\(replaced.rows.map { $0.error ?? $0.note ?? "" })")
        #expect(shop.sandbox.server.requests.byMethod["POST"] == postsBefore + 1, "only R1's new product is registered")
        let round = try #require(replaced.row(2))
        #expect(round.productID != old && round.note?.contains("replaced product \(old) with") == true)
        #expect(replaced.row(3)?.productID == madeBeforeCrash)
        let after = try await shop.products()
        #expect(after["Round vase"]?.map(\.id) == [round.productID!] && after["Square vase"]?.map(\.id) == [madeBeforeCrash])
        #expect(after.values.allSatisfy { !$0.contains { $0.id == old || $0.id == square } }, "the old products are deleted")
        let again = try await shop.run(newPhotos) { $0.replacePhotos = true }
        #expect(again.summary.counts == ["unchanged": 2] && again.summary.photosDiffer == 0)
        await shop.close()
    }
}
