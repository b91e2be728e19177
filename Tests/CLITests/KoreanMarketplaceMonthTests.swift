import Foundation
import OpenMarketAPI
import Sandbox
import Testing
import TestSupport

/// A Korean merchant's second month: SmartStore's weekly product-list download, Coupang's
/// workbook, Cafe24's file with a product gone 품절 and back; each imported as it is into the
/// sandbox over HTTP, week after week, and a week taken back.
@Suite("Korean marketplaces, month two: downloads week after week, options, products that stop selling", .serialized)
struct KoreanMarketplaceMonthTests {
    typealias Download = KoreanPlatformFiles.DownloadRow

    /// import with a report folder of the run's own (undo takes it).
    static func run(_ sheet: URL, _ sandbox: TestSandbox, _ report: String, _ extra: [String] = [],
                    environment: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await CLIProcess.run(["import", sheet.path, "--server", sandbox.url, "--identifier", sandbox.demo.identifier,
                                  "--secret", sandbox.demo.secret, "--no-cache",
                                  "--report", sheet.deletingLastPathComponent().appendingPathComponent(report).path] + extra,
                                 environment: environment)
    }

    static func product(_ sandbox: TestSandbox, _ name: String) async throws -> ProductSummary {
        try #require(try await allProducts(sandbox).first { $0.name == name }, "no product named \(name)")
    }

    @Test("SmartStore's product-list CSV: the buyer pays 할인가(PC); 품절 and 판매중지 take products off sale (stock 0) and make none; undo gives the stock back; 판매중 again: the sheet's stock")
    func smartStoreWeeks() async throws {
        let sandbox = try await TestSandbox.start()
        let cdn = try await FeedSourceServer.start()
        let files = try Scratch()
        defer { files.cleanup() }
        var photo: [String: String] = [:]
        for (n, name) in ["k1.jpg", "k1-b.jpg", "k2.jpg", "k3.jpg", "k4.jpg"].enumerated() {
            photo[name] = cdn.servePhoto(name, try Fixtures.jpeg(width: 48, height: 36, seed: UInt64(200 + n)))
        }
        let sheet = files.directory.appendingPathComponent("Product_20261105.csv")
        func week(_ k1: (String, String), _ k2: (String, String), k3Sale: Int) throws {
            try KoreanPlatformFiles.smartStoreDownload([
                Download(number: "9100000001", key: "K-1", name: "제주 녹차 50g", status: k1.0, price: 15000, sale: 12900, stock: k1.1,
                         photo: photo["k1.jpg"]!, more: [photo["k1-b.jpg"]!]),
                Download(number: "9100000002", key: "K-2", name: "제주 홍차 50g", status: k2.0, price: 15000, sale: 12900, stock: k2.1, photo: photo["k2.jpg"]!),
                Download(number: "9100000003", key: "K-3", name: "보리차 티백", price: 8000, sale: k3Sale, stock: "5", photo: photo["k3.jpg"]!),
                Download(number: "9100000004", key: "K-4", name: "결명자차", status: "품절", price: 9000, sale: 9000, stock: "0", photo: photo["k4.jpg"]!),
            ]).write(to: sheet)
        }

        // Week 1: three on sale, one 품절 that the shop never had.
        try week(("판매중", "25"), ("판매중", "40"), k3Sale: 8000)
        let first = try await Self.run(sheet, sandbox, "week1")
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("a Naver SmartStore product list: read with the Naver SmartStore (product list) map"), "\(first.stdout)")
        #expect(first.stdout.contains("4 rows: 3 created, 1 skipped"), "\(first.stdout)")
        #expect(first.stdout.contains("not on sale (판매상태 is 품절) and not in the shop: nothing is made for it"), "\(first.stdout)")
        let green = try await Self.product(sandbox, "제주 녹차 50g")
        // 판매가 is the list price, 할인가(PC) what the buyer pays.
        #expect(green.price == 15000 && green.discountedPrice == 2100 && green.stock == 25 && green.currency == "KRW",
                "\(green.price) − \(green.discountedPrice), \(green.stock)")
        let greenDetail = try await curl(["\(sandbox.url)/api/products/\(green.id)"]).decode(ProductDetail.self)
        #expect(greenDetail.images?.count == 2)
        let barley = try await Self.product(sandbox, "보리차 티백")
        #expect(barley.price == 8000 && barley.discountedPrice == 0 && barley.stock == 5)
        #expect(try await allProducts(sandbox).count == 3, "결명자차 (품절) is never made")
        let again = try await Self.run(sheet, sandbox, "week1-again")
        #expect(again.status == 0 && again.stdout.contains("4 rows: 3 unchanged, 1 skipped"), "\(again.stdout)\(again.stderr)")

        // Week 2: 녹차 품절 (its stock cell still says 25), 홍차 판매중지, 보리차 on sale for less.
        try week(("품절", "25"), ("판매중지", "40"), k3Sale: 7500)
        let korean = try await Self.run(sheet, sandbox, "week2-plan", ["--dry-run"], environment: ["LANG": "ko_KR.UTF-8"])
        #expect(korean.status == 0, "\(korean.stdout)\(korean.stderr)")
        #expect(korean.stdout.contains("재고 25 → 0 (판매상태: 품절)") && korean.stdout.contains("재고 40 → 0 (판매상태: 판매중지)"), "\(korean.stdout)")
        #expect(korean.stdout.contains("판매하지 않음 (판매상태: 품절), 쇼핑몰에도 없음: 상품을 만들지 않습니다"), "\(korean.stdout)")
        #expect(korean.stdout.contains("판매가 8000 → 7500 (-6.2 %)"), "\(korean.stdout)")
        #expect(korean.stdout.contains("네이버 스마트스토어 상품 목록: Naver SmartStore (product list) 변환 규칙으로 읽었습니다")
                && !korean.stdout.contains("read with the"), "\(korean.stdout)")
        #expect(!korean.stdout.contains("할인 0 → 500"), "the discount's own change is not the news: \(korean.stdout)")
        let second = try await Self.run(sheet, sandbox, "week2")
        #expect(second.status == 0 && second.stdout.contains("4 rows: 3 updated, 1 skipped"), "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains("stock 25 → 0 (판매상태: 품절)") && second.stdout.contains("stock 40 → 0 (판매상태: 판매중지)"), "\(second.stdout)")
        // The report says it per row, and how it is undone.
        let rows = try String(contentsOf: files.directory.appendingPathComponent("week2/report.csv"), encoding: .utf8)
        #expect(rows.contains("not on sale (판매상태 is 품절): taken off sale, stock 0"), "\(rows)")
        #expect(second.stdout.contains("sale_price 8000 → 7500 (-6.2 %)"), "\(second.stdout)")
        let offGreen = try await Self.product(sandbox, "제주 녹차 50g")
        // Off sale is the stock alone: the prices and the rest stay as they were.
        #expect(offGreen.stock == 0 && offGreen.price == 15000 && offGreen.discountedPrice == 2100)
        #expect(try await Self.product(sandbox, "제주 홍차 50g").stock == 0)
        #expect(try await Self.product(sandbox, "보리차 티백").discountedPrice == 500)
        #expect(try await allProducts(sandbox).count == 3)
        let steady = try await Self.run(sheet, sandbox, "week2-again")
        #expect(steady.status == 0 && steady.stdout.contains("4 rows: 3 unchanged, 1 skipped"), "\(steady.stdout)\(steady.stderr)")

        // Taken back: the stock each had.
        let undo = try await CLIProcess.run(["undo", files.directory.appendingPathComponent("week2").path, "--server", sandbox.url,
                                             "--identifier", sandbox.demo.identifier, "--secret", sandbox.demo.secret])
        #expect(undo.status == 0, "\(undo.stdout)\(undo.stderr)")
        #expect(try await Self.product(sandbox, "제주 녹차 50g").stock == 25)
        #expect(try await Self.product(sandbox, "제주 홍차 50g").stock == 40)
        #expect(try await Self.product(sandbox, "보리차 티백").discountedPrice == 0)

        // Week 3: 녹차 on sale again with 30 in stock; 홍차 still 판매중지.
        try week(("판매중", "30"), ("판매중지", "40"), k3Sale: 8000)
        let third = try await Self.run(sheet, sandbox, "week3")
        #expect(third.status == 0 && third.stdout.contains("4 rows: 2 updated, 1 unchanged, 1 skipped"), "\(third.stdout)\(third.stderr)")
        #expect(try await Self.product(sandbox, "제주 녹차 50g").stock == 30)
        #expect(try await Self.product(sandbox, "제주 홍차 50g").stock == 0)
        // Week 4: 홍차 판매중 again: the sheet's stock returns.
        try week(("판매중", "30"), ("판매중", "40"), k3Sale: 8000)
        let fourth = try await Self.run(sheet, sandbox, "week4")
        #expect(fourth.status == 0 && fourth.stdout.contains("4 rows: 1 updated, 2 unchanged, 1 skipped"), "\(fourth.stdout)\(fourth.stderr)")
        #expect(try await Self.product(sandbox, "제주 홍차 50g").stock == 40)
    }

    @Test("Coupang WING's workbook: section, 필수 and guide rows passed over; each option a product (code/option, name and option); 판매가격 under 할인율기준가; a past 판매종료일 takes a product off sale; again: nothing")
    func coupang() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        for (n, name) in ["tee-red.jpg", "tee-blue.jpg", "tee-back.jpg", "tee-side.jpg", "mug.jpg", "old.jpg"].enumerated() {
            _ = try files.write(try Fixtures.jpeg(width: 48, height: 36, seed: UInt64(300 + n)), named: name)
        }
        let book = files.directory.appendingPathComponent("coupang_upload.xlsx")
        func write(mugEnds: String) throws {
            try KoreanPlatformFiles.coupang([
                .init(code: "T-100", name: "코튼 티셔츠", option: ("색상", "빨강"), price: "19900", list: "25000", stock: "7",
                      photo: "tee-red.jpg", more: "tee-back.jpg,tee-side.jpg", html: "<p>면 100%</p>"),
                .init(code: "T-100", name: "코튼 티셔츠", option: ("색상", "파랑"), price: "19900", list: "25000", stock: "3",
                      photo: "tee-blue.jpg", more: "tee-back.jpg", html: "<p>면 100%</p>"),
                .init(code: "M-200", name: "제주 머그컵", price: "12000", stock: "20", ends: mugEnds, photo: "mug.jpg", html: "머그컵"),
                .init(code: "E-300", name: "단종 텀블러", price: "9000", stock: "4", ends: "2020-01-31", photo: "old.jpg", html: "텀블러"),
            ], to: book)
        }
        try write(mugEnds: "2099-12-31")
        let checked = try await CLIProcess.run(["validate", book.path])
        #expect(checked.stdout.contains("4 rows, 3 valid, 0 with errors") && checked.stdout.contains("1 not on sale"), "\(checked.stdout)\(checked.stderr)")
        let first = try await Self.run(book, sandbox, "first")
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("a Coupang WING workbook: read with the Coupang map") && first.stdout.contains("4 rows: 3 created, 1 skipped"),
                "\(first.stdout)")
        #expect(first.stdout.contains("not on sale (판매종료일 is 2020-01-31)"), "\(first.stdout)")
        let products = try await allProducts(sandbox)
        #expect(Set(products.map(\.name)) == ["코튼 티셔츠 빨강", "코튼 티셔츠 파랑", "제주 머그컵"], "\(products.map(\.name))")
        let red = try await Self.product(sandbox, "코튼 티셔츠 빨강")
        #expect(red.price == 25000 && red.discountedPrice == 5100 && red.stock == 7 && red.currency == "KRW")
        let blue = try await Self.product(sandbox, "코튼 티셔츠 파랑")
        #expect(blue.stock == 3 && blue.price - blue.discountedPrice == 19900)
        let mug = try await Self.product(sandbox, "제주 머그컵")
        #expect(mug.price == 12000 && mug.discountedPrice == 0 && mug.stock == 20)
        for (product, count, text) in [(red, 3, "면 100%"), (blue, 2, "면 100%"), (mug, 1, "머그컵")] {
            let detail = try await curl(["\(sandbox.url)/api/products/\(product.id)"]).decode(ProductDetail.self)
            #expect(detail.images?.count == count && detail.summary.description == text, "\(product.name): \(detail.images?.count ?? 0) photos")
        }
        // The keys are the merchant's code and the option.
        #expect(first.stdout.contains("T-100/빨강") && first.stdout.contains("T-100/파랑") && first.stdout.contains("M-200"), "\(first.stdout)")
        let again = try await Self.run(book, sandbox, "again")
        #expect(again.status == 0 && again.stdout.contains("4 rows: 3 unchanged, 1 skipped"), "\(again.stdout)\(again.stderr)")
        // The mug's sale ended: off sale, stock 0.
        try write(mugEnds: "2026-01-31")
        let ended = try await Self.run(book, sandbox, "ended")
        #expect(ended.status == 0 && ended.stdout.contains("4 rows: 1 updated, 2 unchanged, 1 skipped"), "\(ended.stdout)\(ended.stderr)")
        #expect(ended.stdout.contains("stock 20 → 0 (판매종료일: 2026-01-31)"), "\(ended.stdout)")
        #expect(try await Self.product(sandbox, "제주 머그컵").stock == 0)
    }

    @Test("Cafe24: 판매상태 N takes a product the shop holds off sale; Y again without a stock column says how to give it back, --default-stock gives it")
    func cafe24OffAndOn() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        for n in 1...6 { for suffix in ["", "-b", "-c"] { _ = try files.write(try Fixtures.jpeg(width: 40, height: 30, seed: UInt64(400 + n)), named: "tea\(n)\(suffix).jpg") } }
        let sheet = files.directory.appendingPathComponent("cafe24.csv")
        func write(onSale: (Int) -> Bool) throws {
            let rows = KoreanPlatformImportTests.cafe24Rows { $0 }.enumerated().map { index, row in
                var row = row
                row.onSale = onSale(index + 1)
                return row
            }
            try KoreanPlatformFiles.cafe24(rows).write(to: sheet, atomically: true, encoding: .utf8)
        }
        try write { $0 != 6 }
        // No stock: every new product fails; the rows to fix come back as Cafe24's file has them
        // (its own columns and cells, the errors after them), and that sheet imports as it is.
        let unstocked = try await Self.run(sheet, sandbox, "unstocked")
        #expect(unstocked.stdout.contains("6 rows: 1 skipped, 5 failed"), "\(unstocked.stdout)\(unstocked.stderr)")
        let fix = files.directory.appendingPathComponent("unstocked/report.xlsx")
        let fixSheet = try await CLIProcess.run(["validate", fix.path, "--default-stock", "10", "--images", files.directory.path])
        #expect(fixSheet.stdout.contains("a Cafe24 product file: read with the Cafe24 map") && fixSheet.stdout.contains("5 rows, 5 valid"),
                "\(fixSheet.stdout)\(fixSheet.stderr)")
        let fixCells = try KoreanReportTests.workbookText(fix)
        #expect(fixCells.contains("자체 상품코드") && fixCells.contains("이미지등록(상세)") && fixCells.contains("stock-missing"), "\(fixCells.prefix(2000))")
        let fixed = try await Self.run(fix, sandbox, "fixed", ["--default-stock", "10", "--images", files.directory.path])
        #expect(fixed.status == 0 && fixed.stdout.contains("5 rows: 5 created"), "\(fixed.stdout)\(fixed.stderr)")
        let made = try await Self.product(sandbox, "제주 녹차 세트 1")
        #expect(made.price == 15000 && made.discountedPrice == 2100 && made.stock == 10)
        let first = try await Self.run(sheet, sandbox, "first", ["--default-stock", "10"])
        #expect(first.status == 0 && first.stdout.contains("6 rows: 5 unchanged, 1 skipped"), "\(first.stdout)\(first.stderr)")
        try write { $0 != 6 && $0 != 2 }
        let off = try await Self.run(sheet, sandbox, "off")
        #expect(off.status == 0 && off.stdout.contains("6 rows: 1 updated, 4 unchanged, 1 skipped"), "\(off.stdout)\(off.stderr)")
        #expect(off.stdout.contains("stock 10 → 0 (판매상태: N)"), "\(off.stdout)")
        #expect(try await Self.product(sandbox, "제주 녹차 세트 2").stock == 0)
        try write { $0 != 6 }
        let unsaid = try await Self.run(sheet, sandbox, "on-unsaid")
        #expect(unsaid.status == 1 && unsaid.stdout.contains("6 rows: 4 unchanged, 1 skipped, 1 failed")
                && unsaid.stdout.contains("row 3 failed: on sale again after an earlier row took it off sale (stock 0), and the sheet has no stock column")
                && unsaid.stdout.contains("--default-stock N"), "\(unsaid.stdout)\(unsaid.stderr)")
        #expect(try await Self.product(sandbox, "제주 녹차 세트 2").stock == 0)
        let back = try await Self.run(sheet, sandbox, "on", ["--default-stock", "10"])
        #expect(back.status == 0 && back.stdout.contains("6 rows: 1 updated, 4 unchanged, 1 skipped") && back.stdout.contains("stock 0 → 10"),
                "\(back.stdout)\(back.stderr)")
        let rows = try String(contentsOf: files.directory.appendingPathComponent("on/report.csv"), encoding: .utf8)
        #expect(rows.contains("on sale again: stock 10 (--default-stock)"), "\(rows)")
        #expect(try await Self.product(sandbox, "제주 녹차 세트 2").stock == 10)
        // Only that product: the others keep the stock they have (no sheet stock, never a guess).
        let still = try await Self.run(sheet, sandbox, "still", ["--default-stock", "10"])
        #expect(still.status == 0 && still.stdout.contains("6 rows: 5 unchanged, 1 skipped"), "\(still.stdout)\(still.stderr)")
    }

    @Test("SmartStore's form with options: each option a product of its own (code/value, name value, 판매가 + 옵션가, its own count); 조합형 makes every combination; options that do not line up fail the row naming them")
    func smartStoreOptions() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        for n in 1...3 { _ = try files.write(try Fixtures.jpeg(width: 40, height: 30, seed: UInt64(600 + n)), named: "o\(n).jpg") }
        let form = files.directory.appendingPathComponent("smartstore_options.xlsx")
        try KoreanPlatformFiles.smartStoreForm([
            .init(key: "S-9", name: "유기농 잡곡", price: "10000", stock: "14", photo: "o1.jpg", more: "", html: "잡곡",
                  options: ("용량", "1kg,2kg", "0,8000", "10,4")),
            .init(key: "T-5", name: "면 양말", price: "5000", stock: "10", photo: "o2.jpg", more: "", html: "양말",
                  options: ("색상\n사이즈", "흰색,검정\nM,L", "0,0,500,500", "1,2,3,4")),
            .init(key: "B-1", name: "깨진 옵션", price: "3000", stock: "1", photo: "o3.jpg", more: "", html: "옵션",
                  options: ("색상", "빨강,파랑", "0", "1,2,3")),
        ], to: form)
        let first = try await Self.run(form, sandbox, "first")
        // Three rows of the form, seven of the run: one per option (and the row that failed).
        #expect(first.stdout.contains("7 rows: 6 created, 1 failed"), "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("the options do not line up (2 option(s) and 1 extra amount(s))") && first.stdout.contains("[options-mismatch]"),
                "\(first.stdout)")
        let products = try await allProducts(sandbox)
        #expect(Set(products.map(\.name)) == ["유기농 잡곡 1kg", "유기농 잡곡 2kg", "면 양말 흰색 M", "면 양말 흰색 L", "면 양말 검정 M", "면 양말 검정 L"],
                "\(products.map(\.name))")
        let big = try await Self.product(sandbox, "유기농 잡곡 2kg")
        #expect(big.price == 18000 && big.stock == 4)
        #expect(try await Self.product(sandbox, "유기농 잡곡 1kg").price == 10000)
        let blackL = try await Self.product(sandbox, "면 양말 검정 L")
        #expect(blackL.price == 5500 && blackL.stock == 4)
        #expect(first.stdout.contains("S-9/2kg") && first.stdout.contains("T-5/검정/L"), "\(first.stdout)")
        let again = try await Self.run(form, sandbox, "again")
        #expect(again.stdout.contains("6 unchanged, 1 failed"), "\(again.stdout)\(again.stderr)")
    }

    @Test("Cafe24's file with a 재고수량 column the merchant added: each row's count is sent, no --default-stock asked; 옵션입력's options a product each, the row's count no option's")
    func cafe24WithStock() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        for n in 1...6 { for suffix in ["", "-b", "-c"] { _ = try files.write(try Fixtures.jpeg(width: 40, height: 30, seed: UInt64(500 + n)), named: "tea\(n)\(suffix).jpg") } }
        // Product 2 has options, as 옵션입력 writes them: a product per combination.
        var rows = KoreanPlatformImportTests.cafe24Rows { $0 }
        rows[1].options = "색상{녹색|갈색}//용량{50g|100g}"
        let lines = KoreanPlatformFiles.cafe24(rows).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let sheet = files.directory.appendingPathComponent("cafe24_with_stock.csv")
        let stocked = [lines[0] + ",재고수량"] + lines.dropFirst().enumerated().map { "\($1),\(($0 + 1) * 3)" }
        try (stocked.joined(separator: "\r\n") + "\r\n").write(to: sheet, atomically: true, encoding: .utf8)
        // The row's 6 counts its four options together: no option's own count, never 6 each.
        let first = try await Self.run(sheet, sandbox, "first")
        #expect(first.status != 0 && first.stdout.contains("9 rows: 4 created, 1 skipped, 4 failed"), "\(first.stdout)\(first.stderr)")
        for n in [1, 3, 4, 5] { #expect(try await Self.product(sandbox, "제주 녹차 세트 \(n)").stock == n * 3) }
        let checked = try await CLIProcess.run(["validate", sheet.path])
        #expect(checked.stdout.contains("the row's stock counts its 4 options together") && checked.stdout.contains("[options-stock]"), "\(checked.stdout)")
        // A count each option starts with, given: the four are made.
        let given = try await Self.run(sheet, sandbox, "given", ["--default-stock", "2"])
        #expect(given.status == 0 && given.stdout.contains("9 rows: 4 created, 4 unchanged, 1 skipped"), "\(given.stdout)\(given.stderr)")
        for option in ["녹색 50g", "녹색 100g", "갈색 50g", "갈색 100g"] {
            let product = try await Self.product(sandbox, "제주 녹차 세트 2 \(option)")
            #expect(product.stock == 2 && product.price - product.discountedPrice == 12900)
        }
        #expect(given.stdout.contains("C-002/갈색/100g"), "\(given.stdout)")
        let again = try await Self.run(sheet, sandbox, "again", ["--default-stock", "2"])
        #expect(again.status == 0 && again.stdout.contains("9 rows: 8 unchanged, 1 skipped"), "\(again.stdout)\(again.stderr)")
    }

    @Test("a marketplace's file no map knows says how to read it: a map of one's own, started from a shipped one")
    func unknownMarketplace() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let sheet = files.directory.appendingPathComponent("market.csv")
        try "상품이름,판매단가,재고량,대표사진,배송비\n녹차,3000,4,a.jpg,2500\n".write(to: sheet, atomically: true, encoding: .utf8)
        let checked = try await CLIProcess.run(["validate", sheet.path])
        #expect(checked.status != 0 && checked.stdout.contains("[column-missing]") && checked.stdout.contains("openmarket template --map NAME")
                && checked.stdout.contains("--map mine.toml"), "\(checked.stdout)\(checked.stderr)")
        let help = try await CLIProcess.run(["template", "--help"])
        #expect(help.stdout.contains("coupang") && help.stdout.contains("smartstore-list") && help.stdout.contains("docs/maps.md"), "\(help.stdout)")
        let map = try await CLIProcess.run(["template", "--map", "coupang"])
        #expect(map.status == 0 && map.stdout.contains("[filter]") && map.stdout.contains("ends = \"판매종료일\""), "\(map.stdout)")
    }

    @Test("a sheet of our columns with a key column: a row with an empty key fails naming the column (validate and import agree); --key-by name matches it by its name")
    func emptyKey() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        _ = try files.write(try Fixtures.jpeg(width: 40, height: 30, seed: 7), named: "p.jpg")
        let sheet = files.directory.appendingPathComponent("keys.csv")
        try "key,name,price,stock,images\nA-1,Barley tea,3000,5,p.jpg\n,Corn tea,3500,4,p.jpg\n".write(to: sheet, atomically: true, encoding: .utf8)
        let checked = try await CLIProcess.run(["validate", sheet.path])
        #expect(checked.status == 1 && checked.stdout.contains("2 rows, 1 valid, 1 with errors") && checked.stdout.contains("[key-empty]"),
                "\(checked.stdout)\(checked.stderr)")
        #expect(checked.stdout.contains("--key-by name"), "\(checked.stdout)")
        let refused = try await Self.run(sheet, sandbox, "first")
        #expect(refused.stdout.contains("2 rows: 1 created, 1 failed") && refused.stdout.contains("[key-empty]"), "\(refused.stdout)\(refused.stderr)")
        #expect(try await allProducts(sandbox).map(\.name) == ["Barley tea"])
        let byName = try await Self.run(sheet, sandbox, "by-name", ["--key-by", "name"])
        #expect(byName.status == 0 && byName.stdout.contains("2 rows: 1 created, 1 unchanged"), "\(byName.stdout)\(byName.stderr)")
    }
}
