import CatalogSync
import Foundation
import OpenMarketAPI
import ShopState
import Testing
import TestSupport

@Suite("See the change before it happens, take a run back, delete only within a cap")
struct UndoTests {
    @Test("the plan: a dry run lists would-update (old → new, in percent), would-create and would-delete, and writes nothing")
    func plan() async throws {
        let shop = try await Shop.open()
        let first = try await shop.run(try shop.sheet("products.csv", Shop.sheetText(rows: 4)))
        let links = try LinkStore.open(shop.links).all()
        let writes = shop.writes
        // K2's price edited, K4 left out, K9 new.
        let text = Shop.sheetText(rows: 3, priceOf: { $0 == 2 ? 990 : 1000 + $0 }) + "K9,New item,5000,KRW,0,1,p.jpg\n"
        let plan = try await shop.run(try shop.sheet("november.csv", text)) { $0.dryRun = true; $0.deleteMissing = true }
        #expect(plan.summary.counts == ["would-update": 1, "unchanged": 2, "would-create": 1, "would-delete": 1], "\(plan.summary.counts)")
        #expect(plan.row(3)?.status == .wouldUpdate && plan.row(3)?.changes == "price 1002 → 990 (-1.2 %)")
        let gone = try #require(plan.rows.first { $0.status == .wouldDelete })
        #expect(gone.key == "K4" && gone.productID == first.row(5)?.productID && gone.note?.contains("K4 is not in the file") == true)
        #expect(plan.summary.deletesRefused?.contains("more than --max-deletes 0") == true, "a real run would be refused")

        #expect(shop.writes == writes, "a plan sends no POST, PATCH or DELETE")
        #expect(try LinkStore.open(shop.links).all() == links, "a plan does not touch the link store")
        #expect(try LinkStore.open(shop.links).runs().count == 1, "a plan is not a run to undo")
        #expect(!FileManager.default.fileExists(atPath: plan.folder.appendingPathComponent("run.jsonl").path))
        let products = try await shop.products()
        #expect(products["Item 2"]?.first?.price == 1002 && products["Item 4"]?.count == 1 && products["New item"] == nil)

        let html = try String(contentsOf: plan.folder.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("the plan") && html.contains("Would update (1)") && html.contains("price 1002 → 990 (-1.2 %)")
                && html.contains("Would create (1)") && html.contains("Would delete: keys no longer in the file (1)"))
        let csv = try String(contentsOf: plan.folder.appendingPathComponent("report.csv"), encoding: .utf8)
        #expect(csv.contains("3,K2,Item 2,would-update,\(first.row(3)?.productID ?? 0),price 1002 → 990 (-1.2 %)"), "\(csv)")
        await shop.close()
    }

    @Test("undo of an update run puts the fields back, in the shop and the link store; a second undo is refused")
    func undoUpdates() async throws {
        let shop = try await Shop.open()
        let sheet = try shop.sheet("products.csv", Shop.sheetText(rows: 5))
        _ = try await shop.run(sheet)
        let edit = try await shop.run(try shop.sheet("prices.csv", "key,price,stock\nK1,1500,9\nK2,900,\nK3,1003,3\n"))
        #expect(edit.summary.counts == ["updated": 2, "unchanged": 1], "\(edit.summary.counts)")
        let writes = shop.writes

        let undo = try await shop.undo(edit.folder)
        #expect(undo.summary.counts == ["restored": 2], "\(undo.summary.counts) \(undo.rows)")
        #expect(undo.summary.written == 2 && undo.summary.productsPerSecond > 0, "a restore is a write, counted in the rate")
        #expect(undo.summary.countsText == "2 restored")
        #expect(undo.rows.first { $0.key == "K1" }?.changes == "price 1500 → 1001 (-33.3 %); stock 9 → 1")
        #expect(shop.writes == writes + 2, "one PATCH per product")
        let products = try await shop.products()
        #expect(products["Item 1"]?.first?.price == 1001 && products["Item 1"]?.first?.stock == 1)
        #expect(products["Item 2"]?.first?.price == 1002)
        let link = try #require(try LinkStore.open(shop.links).link("K1"))
        #expect(link.pushed?.price == 1001 && link.pushed?.stock == 1)

        // The shop is as the first sheet says again.
        #expect(try await shop.run(sheet).summary.counts == ["unchanged": 5])
        // Already undone: a summary that says so (success is a return value), no rows.
        let again = try await shop.undo(edit.folder)
        #expect(again.summary.alreadyDone?.contains("already undone") == true && again.rows.isEmpty, "\(again.summary)")
        await shop.close()
    }

    @Test("undo of a create run deletes exactly its products and unlinks their keys; undoing the undo makes them again")
    func undoCreates() async throws {
        let shop = try await Shop.open()
        let first = try await shop.run(try shop.sheet("a.csv", Shop.sheetText(rows: 3)))
        let text = Shop.sheetText(rows: 3, priceOf: { $0 == 1 ? 1100 : 1000 + $0 })
            + "K4,Item 4,1004,KRW,0,4,p.jpg\nK5,Item 5,1005,KRW,0,5,p.jpg\n"
        let b = try shop.sheet("b.csv", text)
        let second = try await shop.run(b)
        #expect(second.summary.counts == ["created": 2, "updated": 1, "unchanged": 2])

        let undo = try await shop.undo(second.folder)
        #expect(undo.summary.counts == ["deleted": 2, "restored": 1], "\(undo.summary.counts)")
        var products = try await shop.products()
        #expect(products.keys.sorted() == ["Item 1", "Item 2", "Item 3"])
        #expect(products["Item 1"]?.first?.price == 1001 && products["Item 1"]?.first?.id == first.row(2)?.productID)
        let store = try LinkStore.open(shop.links)
        #expect(try store.link("K4") == nil && store.link("K5") == nil && store.link("K1")?.productID == first.row(2)?.productID)

        // The undo is a run too: taken back, the two products are made again (with their photos) and linked.
        let redo = try await shop.undo(undo.folder)
        #expect(redo.summary.counts == ["created": 2, "restored": 1], "\(redo.summary.counts) \(redo.rows)")
        products = try await shop.products()
        #expect(products["Item 4"]?.count == 1 && products["Item 5"]?.count == 1 && products["Item 1"]?.first?.price == 1100)
        #expect(try store.link("K4")?.productID == products["Item 4"]?.first?.id)
        #expect(try await shop.run(try shop.sheet("b-again.csv", text)).summary.counts == ["unchanged": 5])
        await shop.close()
    }

    @Test("--delete-missing, then undo: the products come back with the same fields and photo bytes, keys linked to them")
    func undoDeletes() async throws {
        let shop = try await Shop.open()
        var full = "key,name,description,price,currency,discounted_price,stock,images\n"
        for i in 1...4 { full += "K\(i),Item \(i),about item \(i),\(1000 + i),KRW,\(i * 10),\(i),p.jpg;q.jpg\n" }
        let sheet = try shop.sheet("full.csv", full)
        let first = try await shop.run(sheet)
        #expect(first.summary.counts == ["created": 4])
        let reader = try shop.vendor
        let originals = try await blocking {
            try (4...5).map { row -> (ProductSummary, [Data]) in
                let detail = try reader.product(id: first.row(row)?.productID ?? 0)
                return (detail.summary, try (detail.images ?? []).map { try reader.download($0.url, maxBytes: 1 << 20) })
            }
        }

        let two = try shop.sheet("two.csv", full.split(separator: "\n").prefix(3).joined(separator: "\n") + "\n")
        let deleting = try await shop.run(two) { $0.deleteMissing = true; $0.maxDeletes = 2 }
        #expect(deleting.summary.counts == ["unchanged": 2, "deleted": 2], "\(deleting.summary.counts)")
        #expect(try await shop.products().count == 2)
        for (product, photos) in originals {
            for index in photos.indices {
                #expect(FileManager.default.fileExists(atPath: deleting.folder.appendingPathComponent("deleted/\(product.id)/\(index + 1).jpg").path),
                        "the run keeps the photos it deletes")
            }
        }

        let undo = try await shop.undo(deleting.folder)
        #expect(undo.summary.counts == ["created": 2], "\(undo.summary.counts) \(undo.rows)")
        let products = try await shop.products()
        #expect(products.count == 4)
        let store = try LinkStore.open(shop.links)
        for (old, photos) in originals {
            let again = try #require(products[old.name]?.first)
            #expect(products[old.name]?.count == 1 && again.id != old.id)
            #expect(again.description == old.description && again.price == old.price && again.discountedPrice == old.discountedPrice
                    && again.stock == old.stock && again.currency == old.currency)
            let bytes = try await blocking {
                try (reader.product(id: again.id).images ?? []).map { try reader.download($0.url, maxBytes: 1 << 20) }
            }
            #expect(bytes == photos, "\(old.name): the same photos, byte for byte")
            let key = "K\(old.name.dropFirst(5))"
            #expect(try store.link(key)?.productID == again.id, "\(key) is linked to the product made again")
        }
        // The full sheet again: nothing to create, the keys are linked.
        #expect(try await shop.run(sheet).summary.counts == ["unchanged": 4])
        await shop.close()
    }

    @Test("a product changed after the run is left alone and reported (the plan says so too); --force takes it back")
    func changedSinceTheRun() async throws {
        let shop = try await Shop.open()
        let first = try await shop.run(try shop.sheet("products.csv", Shop.sheetText(rows: 3)))
        let edit = try await shop.run(try shop.sheet("p.csv", "key,price\nK1,1100\nK2,1200\n"))
        #expect(edit.summary.counts == ["updated": 2])
        let vendor = try shop.vendor
        let k2 = try #require(first.row(3)?.productID)
        _ = try await blocking { try vendor.edit(id: k2, ProductPatch(price: 1250)) }

        let writes = shop.writes
        let plan = try await shop.undo(edit.folder) { $0.dryRun = true }
        #expect(plan.summary.counts == ["would-restore": 1, "skipped": 1], "\(plan.summary.counts)")
        #expect(shop.writes == writes)
        let undo = try await shop.undo(edit.folder)
        #expect(undo.summary.counts == ["restored": 1, "skipped": 1])
        #expect(undo.summary.written == 1 && undo.summary.countsText == "1 restored, 1 skipped")
        let skipped = try #require(undo.product(k2))
        #expect(skipped.status == .skipped && skipped.note?.contains("changed since the run (price 1200 → 1250 (+4.2 %))") == true, "\(skipped)")
        var products = try await shop.products()
        #expect(products["Item 2"]?.first?.price == 1250 && products["Item 1"]?.first?.price == 1001)

        // Another run, the same edit after it, and undo --force.
        let edit2 = try await shop.run(try shop.sheet("p2.csv", "key,price\nK3,1300\n"))
        let k3 = try #require(first.row(4)?.productID)
        _ = try await blocking { try vendor.edit(id: k3, ProductPatch(stock: 40)) }
        let forced = try await shop.undo(edit2.folder) { $0.force = true }
        #expect(forced.summary.counts == ["restored": 1])
        products = try await shop.products()
        #expect(products["Item 3"]?.first?.price == 1003 && products["Item 3"]?.first?.stock == 3)
        await shop.close()
    }

    @Test("--delete-missing over --max-deletes is refused as a whole (nothing sent, exit 1); within it deletes exactly what left the sheet")
    func deleteCap() async throws {
        let shop = try await Shop.open()
        _ = try await shop.run(try shop.sheet("products.csv", Shop.sheetText(rows: 5)))
        // A product of this vendor made elsewhere (never linked), and one of another vendor.
        let vendor = try shop.vendor
        let photo = try Data(contentsOf: shop.files.directory.appendingPathComponent("p.jpg"))
        let image = UploadImage(data: photo, filename: "p.jpg", mimeType: "image/jpeg")
        let byHand = try await blocking { try vendor.register(Product(name: "Made by hand", description: "", price: 10, currency: "KRW"), images: [image]) }
        let otherClient = try client(shop.sandbox, shop.sandbox.other)
        _ = try await blocking { try otherClient.register(Product(name: "Someone else's", description: "", price: 10, currency: "KRW"), images: [image]) }

        let three = try shop.sheet("three.csv", Shop.sheetText(rows: 3))
        let writes = shop.writes
        await #expect { try await shop.run(three) { $0.deleteMissing = true; $0.maxDeletes = 2 } } throws: { error in
            guard let stop = error as? SyncStop else { return false }
            return stop.cause == .refused && stop.description.contains("would delete 3 products (2 with keys no longer in the file, 1 never linked)")
                && stop.description.contains("nothing was sent")
        }
        #expect(shop.writes == writes, "refused as a whole: not a single request")
        #expect(try await shop.products().count == 7)

        let within = try await shop.run(three) { $0.deleteMissing = true; $0.maxDeletes = 3 }
        #expect(within.summary.counts == ["unchanged": 3, "deleted": 3], "\(within.summary.counts)")
        #expect(within.rows.first { $0.productID == byHand.id }?.note?.contains("not linked to any key") == true)
        let products = try await shop.products()
        #expect(products.keys.sorted() == ["Item 1", "Item 2", "Item 3", "Someone else's"])
        #expect(try LinkStore.open(shop.links).link("K4") == nil)
        await shop.close()
    }

    @Test("a row that fails validation never deletes its product; a row nothing identifies stops every delete")
    func failedRowsKeepTheirProducts() async throws {
        let shop = try await Shop.open()
        _ = try await shop.run(try shop.sheet("products.csv", Shop.sheetText(rows: 3)))
        let broken = try shop.sheet("broken.csv", "key,name,price,currency,discounted_price,stock,images\nK1,Item 1,1001,KRW,0,1,p.jpg\nK2,Item 2,abc,KRW,0,2,p.jpg\n")
        let result = try await shop.run(broken) { $0.deleteMissing = true; $0.maxDeletes = 5 }
        #expect(result.summary.counts == ["unchanged": 1, "failed": 1, "deleted": 1], "\(result.summary.counts)")
        #expect(result.row(3)?.status == .failed)
        var products = try await shop.products()
        #expect(products.keys.sorted() == ["Item 1", "Item 2"], "K2's row failed: its product stays; K3 left the sheet")

        let anonymous = try shop.sheet("anonymous.csv", "key,name,price,currency,discounted_price,stock,images\nK1,Item 1,1001,KRW,0,1,p.jpg\n,,5,KRW,0,1,p.jpg\n")
        let refused = try await shop.run(anonymous) { $0.deleteMissing = true; $0.maxDeletes = 5 }
        #expect(refused.summary.counts["deleted"] == nil && refused.summary.deletesRefused?.contains("row 3 names no key, id or name") == true,
                "\(refused.summary)")
        products = try await shop.products()
        #expect(products["Item 2"]?.count == 1)
        await shop.close()
    }
}
