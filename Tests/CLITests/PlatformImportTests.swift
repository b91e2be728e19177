import Foundation
import OpenMarketAPI
import Sandbox
import Testing
import TestSupport

/// A merchant arriving from Shopify or WooCommerce: the platform's export, imported as it is
/// into the sandbox over HTTP, its photos fetched from where the export says (a local CDN).
@Suite("Platform exports, imported", .serialized)
struct PlatformImportTests {
    static let colours = ["Green", "Blue", "Black"]
    static let sizes = ["S", "M", "L", "XL"]

    /// A Shopify export of 2 products × 12 variants (colour × size): each product's fields on
    /// its first row, three product photos (one on a row of its own), a photo per colour.
    static func shopifyExport(photo: (String) -> String, price: (Int) -> String = { _ in "20.00" }) -> String {
        var text = "Handle,Title,Body (HTML),Vendor,Type,Tags,Published,Option1 Name,Option1 Value,Option2 Name,Option2 Value,Option3 Name,Option3 Value,"
            + "Variant SKU,Variant Grams,Variant Inventory Tracker,Variant Inventory Qty,Variant Inventory Policy,Variant Fulfillment Service,"
            + "Variant Price,Variant Compare At Price,Variant Requires Shipping,Variant Taxable,Variant Barcode,Image Src,Image Position,Image Alt Text,"
            + "Gift Card,Variant Image,Variant Weight Unit,Cost per item,Status\n"
        for (p, (handle, title)) in [("linen-shirt", "Linen Shirt"), ("wool-socks", "Wool Socks")].enumerated() {
            var n = 0
            for colour in colours {
                for size in sizes {
                    let first = n == 0
                    let image = n < 2 ? photo("\(handle)-\(n + 1).jpg") : ""
                    let position = n < 2 ? "\(n + 1)" : ""
                    let tracked = p == 0 ? "shopify" : ""
                    let qty = p == 0 ? "\(n + 1)" : ""
                    let compare = n % 2 == 0 ? "25.00" : ""
                    text += "\(handle),\(first ? title : ""),\(first ? "\"<p>Made of <b>\(title.lowercased())</b>.</p>\"" : ""),\(first ? "Acme" : ""),,,"
                        + "\(first ? "true" : ""),\(first ? "Color" : ""),\(colour),\(first ? "Size" : ""),\(size),,,"
                        + "\(handle.uppercased())-\(colour.prefix(3).uppercased())-\(size),200,\(tracked),\(qty),deny,manual,"
                        + "\(price(p * 12 + n)),\(compare),true,true,,\(image),\(position),,\(first ? "false" : ""),"
                        + "\(photo("\(handle)-\(colour.lowercased()).jpg")),kg,8.00,\(first ? "active" : "")\n"
                    n += 1
                }
            }
            text += "\(handle),,,,,,,,,,,,,,,,,,,,,,,,\(photo("\(handle)-3.jpg")),3,Detail,,,,,\n"
        }
        return text
    }

    @Test("a Shopify export of 2 products × 12 variants: 24 products with every photo in one command; again: nothing sent; a price edited: one update")
    func shopify() async throws {
        let sandbox = try await TestSandbox.start()
        let cdn = try await FeedSourceServer.start()
        let files = try Scratch()
        defer { files.cleanup() }
        var urls: [String: String] = [:]
        for (index, name) in ["linen-shirt-1", "linen-shirt-2", "linen-shirt-3", "wool-socks-1", "wool-socks-2", "wool-socks-3"]
            .map({ $0 + ".jpg" }).enumerated() {
            urls[name] = cdn.servePhoto(name, try Fixtures.jpeg(width: 64, height: 48, seed: UInt64(index + 1)))
        }
        for (index, colour) in Self.colours.enumerated() {
            for handle in ["linen-shirt", "wool-socks"] {
                let name = "\(handle)-\(colour.lowercased()).jpg"
                urls[name] = cdn.servePhoto(name, try Fixtures.jpeg(width: 64, height: 48, seed: UInt64(20 + index + (handle == "wool-socks" ? 10 : 0))))
            }
        }
        let export = files.directory.appendingPathComponent("products_export.csv")
        try Self.shopifyExport(photo: { urls[$0]! }).write(to: export, atomically: true, encoding: .utf8)
        // The issue's command, with this machine's sandbox and a report of the test's own.
        let first = try await CLIProcess.run(importArguments(export, sandbox, ["--currency", "USD", "--default-stock", "10"]))
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("a Shopify product export: read with the Shopify map"), "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("24 rows: 24 created"), "\(first.stdout)")
        let products = try await allProducts(sandbox)
        #expect(products.count == 24)
        let shirt = try #require(products.first { $0.name == "Linen Shirt - Green / S" })
        #expect(shirt.price == 25 && shirt.discountedPrice == 5 && shirt.currency == "USD" && shirt.stock == 1)
        let socks = try #require(products.first { $0.name == "Wool Socks - Black / XL" })
        // Untracked by Shopify: available with no count, --default-stock 10. No compare-at: no discount.
        #expect(socks.price == 20 && socks.discountedPrice == 0 && socks.stock == 10)
        // Every photo: the colour's own first, then the product's three.
        for product in [shirt, socks] {
            let detail = try await curl(["\(sandbox.url)/api/products/\(product.id)"]).decode(ProductDetail.self)
            #expect(detail.images?.count == 4, "\(product.name): \(detail.images?.count ?? 0) photos")
        }
        let description = try await curl(["\(sandbox.url)/api/products/\(shirt.id)"]).decode(ProductDetail.self).summary.description
        #expect(description == "Made of linen shirt.", "\(description)")
        // The same export again: nothing sent.
        let again = try await CLIProcess.run(importArguments(export, sandbox, ["--currency", "USD", "--default-stock", "10"]))
        #expect(again.status == 0 && again.stdout.contains("24 rows: 24 unchanged"), "\(again.stdout)\(again.stderr)")
        // One price edited in Shopify and exported again: one update.
        try Self.shopifyExport(photo: { urls[$0]! }, price: { $0 == 13 ? "18.50" : "20.00" }).write(to: export, atomically: true, encoding: .utf8)
        let edited = try await CLIProcess.run(importArguments(export, sandbox, ["--currency", "USD", "--default-stock", "10"]))
        #expect(edited.status == 0 && edited.stdout.contains("24 rows: 1 updated, 23 unchanged"), "\(edited.stdout)\(edited.stderr)")
        let after = try await allProducts(sandbox)
        #expect(after.count == 24 && after.first { $0.name == "Wool Socks - Green / M" }?.price == Money(Decimal(string: "18.50")!))
    }

    @Test("a WooCommerce export with its photos saved in a folder (--images-from): simple products and variations, nothing else")
    func wooCommerce() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/platforms/woocommerce-product-export.csv")
        let export = files.directory.appendingPathComponent("wc-product-export-26-11-2026.csv")
        try FileManager.default.copyItem(at: fixture, to: export)
        let saved = files.directory.appendingPathComponent("uploads")
        try FileManager.default.createDirectory(at: saved, withIntermediateDirectories: true)
        for (index, name) in ["beanie", "beanie-2", "hoodie-1", "hoodie-2", "hoodie-blue", "album", "cap", "scarf", "set", "pennant"].enumerated() {
            try Data(try Fixtures.jpeg(width: 40, height: 30, seed: UInt64(50 + index))).write(to: saved.appendingPathComponent(name + ".jpg"))
        }
        let arguments = importArguments(export, sandbox, ["--currency", "USD", "--default-stock", "7", "--images-from", saved.path])
        let first = try await CLIProcess.run(arguments)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("a WooCommerce product export"), "\(first.stdout)")
        let products = try await allProducts(sandbox)
        #expect(Set(products.map(\.name)) == ["Beanie", "Hoodie - Red", "Hoodie - Blue", "Album", "Cap"], "\(products.map(\.name))")
        let red = try #require(products.first { $0.name == "Hoodie - Red" })
        let detail = try await curl(["\(sandbox.url)/api/products/\(red.id)"]).decode(ProductDetail.self)
        #expect(detail.images?.count == 2 && detail.summary.description == "Warm hoodie with a pocket.")
        #expect(products.first { $0.name == "Album" }?.stock == 7 && products.first { $0.name == "Hoodie - Blue" }?.stock == 0)
        let again = try await CLIProcess.run(arguments)
        #expect(again.status == 0 && again.stdout.contains("5 unchanged"), "\(again.stdout)\(again.stderr)")
        #expect(try await allProducts(sandbox).count == 5)
        // A variable product's row is left out, said in the reader's language with the map's why.
        let english = try await CLIProcess.run(["validate", export.path, "--currency", "USD", "--default-stock", "7", "--images-from", saved.path])
        #expect(english.stdout.contains("left out: [filter] skip: Type is variable: a variable product is sold as its variations"), "\(english.stdout)")
        let korean = try await CLIProcess.run(["validate", export.path, "--currency", "USD", "--default-stock", "7", "--images-from", saved.path],
                                              environment: ["LANG": "ko_KR.UTF-8"])
        #expect(korean.stdout.contains("이 행은 보내지 않습니다: 변환 규칙의 필터로 제외됨: Type 값이 variable: 옵션 상품은 그 옵션들이 각각 상품으로 팔립니다")
                    && !korean.stdout.contains("is sold as its variations"), "\(korean.stdout)")
        let report = files.directory.appendingPathComponent("ko-report")
        let koreanRun = try await CLIProcess.run(arguments + ["--report", report.path], environment: ["LANG": "ko_KR.UTF-8"])
        #expect(koreanRun.status == 0)
        let html = try String(contentsOf: report.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("옵션 상품은 그 옵션들이 각각 상품으로 팔립니다") && !html.contains("is sold as its variations"))
    }
}
