import Foundation
import OpenMarketAPI
import Sandbox
import Testing
import TestSupport

/// A merchant arriving from Cafe24 or Naver SmartStore: the platform's own file, imported as it
/// is into the sandbox over HTTP, photos from a local server and beside the sheet.
@Suite("Cafe24 and SmartStore files, imported", .serialized)
struct KoreanPlatformImportTests {
    typealias Row = KoreanPlatformFiles.Cafe24Row

    /// Six products (the last not on sale): three with their photos at an address, three beside
    /// the sheet; list prices above the price on the odd ones; money with two decimals.
    static func cafe24Rows(photo: (String) -> String, price: (Int) -> String = { _ in "12900.00" }) -> [Row] {
        (1...6).map { n in
            Row(code: "P0000BA\(Character(UnicodeScalar(64 + n)!))", own: "C-00\(n)", onSale: n != 6, name: "제주 녹차 세트 \(n)",
                html: "<p>제주 <b>녹차</b> &amp; 다기 \(n)</p>", list: n % 2 == 1 ? "15000.00" : "",
                price: price(n), photo: photo("tea\(n).jpg"), more: [photo("tea\(n)-b.jpg"), photo("tea\(n)-c.jpg")])
        }
    }

    @Test("Cafe24's product CSV as it is: keys, list and buyer prices, photos in order, text; a row not on sale left out; again, and in CP949: nothing; 판매가 lowered: the buyer pays less")
    func cafe24() async throws {
        let sandbox = try await TestSandbox.start()
        let cdn = try await FeedSourceServer.start()
        let files = try Scratch()
        defer { files.cleanup() }
        var photo: [String: String] = [:]
        for n in 1...6 {
            for (index, suffix) in ["", "-b", "-c"].enumerated() {
                let name = "tea\(n)\(suffix).jpg"
                let bytes = try Fixtures.jpeg(width: 48, height: 36, seed: UInt64(n * 10 + index))
                // The first three products' photos at an address, the others beside the sheet.
                if n <= 3 { photo[name] = cdn.servePhoto(name, bytes) } else { photo[name] = try files.write(bytes, named: name).components(separatedBy: "/").last! }
            }
        }
        let sheet = files.directory.appendingPathComponent("cafe24_product.csv")
        try Data(([0xEF, 0xBB, 0xBF] as [UInt8]) + Array(KoreanPlatformFiles.cafe24(Self.cafe24Rows { photo[$0]! }).utf8)).write(to: sheet)

        // No stock column: a new product's stock is never 0 by default.
        let unstocked = try await CLIProcess.run(importArguments(sheet, sandbox, ["--dry-run"]))
        #expect(unstocked.stdout.contains("6 rows: 1 skipped, 5 failed"), "\(unstocked.stdout)\(unstocked.stderr)")
        #expect(unstocked.stdout.contains("the sheet has no stock column") && unstocked.stdout.contains("--default-stock N"), "\(unstocked.stdout)")
        // validate agrees: not one of those rows is counted valid.
        let checked = try await CLIProcess.run(["validate", sheet.path])
        #expect(checked.stdout.contains("6 rows, 0 valid, 0 with errors") && checked.stdout.contains("5 only as updates") && checked.stdout.contains("stock-missing 5"),
                "\(checked.stdout)")

        let first = try await CLIProcess.run(importArguments(sheet, sandbox, ["--default-stock", "10"]))
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("a Cafe24 product file: read with the Cafe24 map"), "\(first.stdout)")
        #expect(first.stdout.contains("6 rows: 5 created, 1 skipped"), "\(first.stdout)")
        #expect(first.stdout.contains("판매상태 is N"), "\(first.stdout)")
        let products = try await allProducts(sandbox)
        #expect(Set(products.map(\.name)) == Set((1...5).map { "제주 녹차 세트 \($0)" }), "\(products.map(\.name))")
        for product in products {
            let n = Int(String(product.name.last!))!
            // 판매가 is what the buyer pays; a 소비자가 above it the list price.
            #expect(product.price == (n % 2 == 1 ? 15000 : 12900) && product.price - product.discountedPrice == 12900, "\(product.name): \(product.price) − \(product.discountedPrice)")
            #expect(product.currency == "KRW" && product.stock == 10)
            let detail = try await curl(["\(sandbox.url)/api/products/\(product.id)"]).decode(ProductDetail.self)
            // 상세 then 추가 (two): the thumbnails of 목록, 작은목록, 축소 are no more photos.
            #expect(detail.images?.count == 3, "\(product.name): \(detail.images?.count ?? 0) photos")
            #expect(detail.summary.description == "제주 녹차 & 다기 \(n)", "\(detail.summary.description ?? "")")
        }

        let again = try await CLIProcess.run(importArguments(sheet, sandbox, ["--default-stock", "10"]))
        #expect(again.status == 0 && again.stdout.contains("6 rows: 5 unchanged, 1 skipped"), "\(again.stdout)\(again.stderr)")
        // The same file saved in CP949, as Excel on Korean Windows writes CSV.
        let cp949 = files.directory.appendingPathComponent("cafe24_product_cp949.csv")
        let plain = files.directory.appendingPathComponent("cafe24_product_plain.csv")
        try KoreanPlatformFiles.cafe24(Self.cafe24Rows { photo[$0]! }).write(to: plain, atomically: true, encoding: .utf8)
        try #require(try runTool("/usr/bin/iconv", ["-f", "UTF-8", "-t", "CP949", plain.path, "-o", cp949.path]) == 0)
        try FileManager.default.removeItem(at: plain)
        let legacy = try await CLIProcess.run(importArguments(cp949, sandbox, ["--default-stock", "10"]))
        #expect(legacy.status == 0 && legacy.stdout.contains("6 rows: 5 unchanged, 1 skipped"), "\(legacy.stdout)\(legacy.stderr)")

        // 판매가 lowered on product 1 (list price 15,000): the buyer pays 11,900; the guard judges that.
        try Data(([0xEF, 0xBB, 0xBF] as [UInt8]) + Array(KoreanPlatformFiles.cafe24(Self.cafe24Rows(photo: { photo[$0]! }, price: { $0 == 1 ? "11,900.00" : "12900.00" })).utf8))
            .write(to: sheet)
        let lowered = try await CLIProcess.run(importArguments(sheet, sandbox, ["--default-stock", "10"]))
        #expect(lowered.status == 0 && lowered.stdout.contains("6 rows: 1 updated, 4 unchanged, 1 skipped"), "\(lowered.stdout)\(lowered.stderr)")
        let one = try #require(try await allProducts(sandbox).first { $0.name == "제주 녹차 세트 1" })
        #expect(one.price == 15000 && one.discountedPrice == 3100, "\(one.price) − \(one.discountedPrice)")

        // The raw file without its 자체 상품코드: Cafe24's 상품코드 is never the key; nothing is made twice.
        let keyless = files.directory.appendingPathComponent("cafe24_no_own_code.csv")
        try KoreanPlatformFiles.cafe24(Self.cafe24Rows { photo[$0]! }, dropping: "자체 상품코드").write(to: keyless, atomically: true, encoding: .utf8)
        let refused = try await CLIProcess.run(importArguments(keyless, sandbox, ["--default-stock", "10"]))
        // The row not on sale too: without its key it cannot say which product goes off sale.
        #expect(refused.stdout.contains("6 rows: 6 failed") && refused.stdout.contains("자체 상품코드 (your own product code) is not in the file")
                && refused.stdout.contains("[key-missing]"), "\(refused.stdout)\(refused.stderr)")
        #expect(try await allProducts(sandbox).count == 5)
        // Asked for by name, the rows are the products of those names: still nothing twice.
        let byName = try await CLIProcess.run(importArguments(keyless, sandbox, ["--default-stock", "10", "--key-by", "name"]))
        #expect(byName.status == 0, "\(byName.stdout)\(byName.stderr)")
        #expect(try await allProducts(sandbox).count == 5)
    }

    @Test("validate given the shop decides every row as import does: products already there pass, a new one without a stock fails; without the shop, none is counted valid")
    func validateAgainstTheShop() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        _ = try files.write(try Fixtures.jpeg(width: 40, height: 30, seed: 3), named: "p.jpg")
        let sheet = files.directory.appendingPathComponent("no-stock.csv")
        try "key,name,price,images\nN1,Barley tea,3000,p.jpg\nN2,Corn tea,3500,p.jpg\n".write(to: sheet, atomically: true, encoding: .utf8)
        let made = try await CLIProcess.run(importArguments(sheet, sandbox, ["--default-stock", "4"]))
        #expect(made.status == 0 && made.stdout.contains("2 rows: 2 created"), "\(made.stdout)\(made.stderr)")
        try "key,name,price,images\nN1,Barley tea,3000,p.jpg\nN2,Corn tea,3500,p.jpg\nN3,Rice tea,4000,p.jpg\n".write(to: sheet, atomically: true, encoding: .utf8)
        let alone = try await CLIProcess.run(["validate", sheet.path])
        #expect(alone.status == 0 && alone.stdout.contains("3 rows, 0 valid, 0 with errors, 0 with warnings, 3 only as updates") && alone.stdout.contains("the sheet has no stock column"),
                "\(alone.stdout)\(alone.stderr)")
        let shop = try await CLIProcess.run(["validate", sheet.path, "--server", sandbox.url, "--identifier", sandbox.demo.identifier,
                                             "--secret", sandbox.demo.secret])
        #expect(shop.status == 1 && shop.stdout.contains("3 rows: 2 unchanged, 1 failed"), "\(shop.stdout)\(shop.stderr)")
        #expect(shop.stdout.contains("the sheet has no stock column") && !shop.stdout.contains(sandbox.demo.secret), "\(shop.stdout)")
        #expect(try await allProducts(sandbox).count == 2, "nothing written")
    }

    @Test("SmartStore's bulk-registration workbook as it is: the guide sheet, the section and 필수 rows passed over; 판매가 less 즉시할인 in 원 or %; stock; 대표이미지 then 추가이미지; zeros of keys kept; again: nothing")
    func smartStoreForm() async throws {
        let sandbox = try await TestSandbox.start()
        let cdn = try await FeedSourceServer.start()
        let files = try Scratch()
        defer { files.cleanup() }
        var names: [String] = []
        for n in 1...9 { names.append(try files.write(try Fixtures.jpeg(width: 40, height: 30, seed: UInt64(70 + n)), named: "p\(n).jpg").components(separatedBy: "/").last!) }
        let remote = cdn.servePhoto("remote.jpg", try Fixtures.jpeg(width: 40, height: 30, seed: 99))
        let form = files.directory.appendingPathComponent("smartstore_bulk.xlsx")
        try KoreanPlatformFiles.smartStoreForm([
            .init(key: "00123", name: "유기농 현미 1kg", price: "20000", stock: "5", photo: "p1.jpg", more: "p2.jpg\np3.jpg", html: "<p>현미</p>",
                  discount: "10", unit: "%"),
            .init(key: "00124", name: "유기농 백미 2kg", price: "18900", stock: "0", photo: "p4.jpg", more: "p5.jpg,p6.jpg, \(remote)", html: "<div>백미</div>",
                  discount: "1900", unit: "원"),
            .init(key: "A-7", name: "찹쌀 500g", price: "7,000", stock: "12", photo: "p7.jpg", more: "", html: "찹쌀"),
        ], to: form)
        let first = try await CLIProcess.run(importArguments(form, sandbox))
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("a Naver SmartStore workbook") && first.stdout.contains("3 rows: 3 created"), "\(first.stdout)\(first.stderr)")
        let products = try await allProducts(sandbox)
        #expect(products.count == 3)
        let brown = try #require(products.first { $0.name == "유기농 현미 1kg" })
        #expect(brown.price == 20000 && brown.discountedPrice == 2000 && brown.stock == 5 && brown.currency == "KRW")
        let white = try #require(products.first { $0.name == "유기농 백미 2kg" })
        #expect(white.price == 18900 && white.discountedPrice == 1900 && white.stock == 0)
        let sticky = try #require(products.first { $0.name == "찹쌀 500g" })
        #expect(sticky.price == 7000 && sticky.discountedPrice == 0 && sticky.stock == 12)
        for (product, count) in [(brown, 3), (white, 4), (sticky, 1)] {
            let detail = try await curl(["\(sandbox.url)/api/products/\(product.id)"]).decode(ProductDetail.self)
            #expect(detail.images?.count == count, "\(product.name): \(detail.images?.count ?? 0) photos")
        }
        #expect(try await curl(["\(sandbox.url)/api/products/\(white.id)"]).decode(ProductDetail.self).summary.description == "백미")
        // The report names the key with its zeros.
        #expect(first.stdout.contains("00123"), "\(first.stdout)")
        let again = try await CLIProcess.run(importArguments(form, sandbox))
        #expect(again.status == 0 && again.stdout.contains("3 rows: 3 unchanged"), "\(again.stdout)\(again.stderr)")
    }

    @Test("SmartStore's product-list download: its numbers are never keys; 판매중지 and 품절 rows left out, each with its reason; --include-inactive keeps them")
    func smartStoreList() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        for n in 1...3 { _ = try files.write(try Fixtures.jpeg(width: 40, height: 30, seed: UInt64(80 + n)), named: "s\(n).jpg") }
        let list = files.directory.appendingPathComponent("smartstore_products.xlsx")
        try KoreanPlatformFiles.smartStoreList([
            ("8801234567", "K-1", "보리차 티백", "판매중", "5000", "30", "s1.jpg"),
            ("8801234568", "K-2", "옥수수차 티백", "판매중지", "5500", "3", "s2.jpg"),
            ("8801234569", "K-3", "결명자차", "품절", "6000", "0", "s3.jpg"),
        ], to: list)
        let first = try await CLIProcess.run(importArguments(list, sandbox))
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("3 rows: 1 created, 2 skipped"), "\(first.stdout)")
        #expect(first.stdout.contains("판매상태 is 판매중지") && first.stdout.contains("판매상태 is 품절"), "\(first.stdout)")
        #expect(try await allProducts(sandbox).map(\.name) == ["보리차 티백"])
        let all = try await CLIProcess.run(importArguments(list, sandbox, ["--include-inactive"]))
        #expect(all.status == 0 && all.stdout.contains("3 rows: 2 created, 1 unchanged"), "\(all.stdout)\(all.stderr)")
        // SmartStore's 상품번호 named no product of this shop: three products, by the merchant's codes.
        #expect(try await allProducts(sandbox).count == 3)
    }
}
