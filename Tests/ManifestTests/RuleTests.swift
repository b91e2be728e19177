import Foundation
import Manifest
import OpenMarketContract
import Testing
import TestSupport

@Suite("Validation rules")
struct RuleTests {
    /// One row with the given cells (defaults filled in), checked; returns its issues' rules and the draft.
    func check(_ cells: [String: String], extraHeader: String = "") throws -> (rules: [String], draft: ProductDraft?, issues: [RowIssue]) {
        let space = try Workspace()
        defer { space.cleanup() }
        var row = ["name": "Green tea", "price": "4500", "currency": "", "discounted_price": "", "stock": "3", "images": "a.jpg", "key": "GT-1"]
        for (k, v) in cells { row[k] = v }
        let columns = ["name", "price", "currency", "discounted_price", "stock", "images", "key", "description"]
        func quote(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        let csv = columns.joined(separator: ",") + "\n" + columns.map { quote(row[$0] ?? "") }.joined(separator: ",") + "\n"
        let result = try space.check(space.write(csv))
        return (result.issues.map(\.rule), result.drafts.first, result.issues)
    }

    @Test("prices as merchants write them", arguments: [
        ("12000", "12000", "KRW"), ("12,000", "12000", "KRW"), ("₩12,000", "12000", "KRW"), ("12000원", "12000", "KRW"),
        ("$12.50", "12.5", "USD"), ("12.50", "12.5", "KRW?"), ("1,234,567", "1234567", "KRW"), ("¥500", "500", "JPY"),
        ("USD 3.99", "3.99", "USD"), ("0", "0", "KRW"),
    ])
    func prices(_ input: String, _ expected: String, _ currency: String) throws {
        let result = try check(["price": input])
        if currency == "KRW?" {
            // 12.50 with the default KRW has a fraction: refused for KRW.
            #expect(result.rules == ["price-fraction"])
            let usd = try check(["price": input, "currency": "USD"])
            #expect(usd.draft?.fields.price == Money(exactly: expected))
            return
        }
        #expect(result.rules.isEmpty, "\(input): \(result.issues)")
        #expect(result.draft?.fields.price == Money(exactly: expected), "\(input)")
        #expect(result.draft?.fields.currency == currency)
    }

    @Test("ambiguous or wrong prices are refused with an explanation", arguments: [
        ("12.000,50", "price-format", "European"), ("12,5", "price-format", "thousands"), ("12.000", "price-format", "ambiguous"),
        ("1.000.000", "price-format", "several dots"), ("abc", "price-format", "not a number"), ("-5", "price-negative", "0 or more"),
        ("$1.999", "price-format", "ambiguous"),
    ])
    func badPrices(_ input: String, _ rule: String, _ words: String) throws {
        let result = try check(["price": input])
        #expect(result.rules == [rule], "\(input): \(result.issues)")
        #expect(result.issues.first?.message.contains(words) == true, "\(result.issues.first?.message ?? "")")
        #expect(result.issues.first?.column == "price" && result.issues.first?.row == 2)
        #expect(result.draft == nil)
    }

    @Test("currency: case-insensitive, ₩ and 원 mean KRW, unknown refused, symbol must agree")
    func currency() throws {
        #expect(try check(["currency": "usd", "price": "3.50"]).draft?.fields.currency == "USD")
        #expect(try check(["currency": "원"]).draft?.fields.currency == "KRW")
        #expect(try check(["currency": "₩"]).draft?.fields.currency == "KRW")
        #expect(try check(["currency": "EUR"]).rules == ["currency-unknown"])
        #expect(try check(["currency": "KRW", "price": "$3.50"]).rules == ["price-currency"])
        #expect(try check(["currency": "JPY", "price": "500.5"]).rules == ["price-fraction"])
        #expect(try check(["currency": "USD", "price": "1.5"]).draft?.fields.price == Money(exactly: "1.5"))
    }

    @Test("discounted_price defaults to 0 and is at most the price")
    func discount() throws {
        #expect(try check([:]).draft?.fields.discountedPrice == 0)
        #expect(try check(["discounted_price": "500"]).draft?.fields.discountedPrice == 500)
        #expect(try check(["discounted_price": "5000"]).rules == ["discount-over-price"])
        #expect(try check(["discounted_price": "-1"]).rules == ["discount-negative"])
        #expect(try check(["discounted_price": "lots"]).rules == ["discount-format"])
        // 10000 with 8500 off reads more like a sale price: a warning that says so; the row stays valid.
        let large = try check(["price": "10000", "discounted_price": "8500"])
        #expect(large.rules == ["discount-looks-like-sale-price"] && large.issues[0].severity == .warning && large.draft?.fields.discountedPrice == 8500)
        #expect(large.issues[0].message.contains("85 % off") && large.issues[0].message.contains("sale_price (할인가)"), "\(large.issues)")
        #expect(try check(["price": "10000", "discounted_price": "5000"]).rules.isEmpty, "half off is a real discount")
    }

    @Test("a blank price is not an error of the row: only a row that creates needs one")
    func blankPrice() throws {
        let result = try check(["price": ""])
        #expect(result.rules == ["price-missing"] && result.issues.first?.severity == .warning, "\(result.issues)")
        let draft = try #require(result.draft)
        #expect(!draft.given.contains(.price))
        #expect(draft.createProblems.map(\.rule) == ["price-missing"] && draft.createProblems[0].column == "price")
        #expect(draft.createProblems[0].message.contains("a new product needs a price"))
    }

    @Test("a sale-price column (할인가, sale_price) states the price after the discount: 8,500 on 10,000 is a discount of 1,500")
    func salePrice() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let korean = try space.check(space.write("상품명,판매가,할인가,재고,이미지\n녹차 라떼,10000,8500,3,a.jpg\n"))
        #expect(korean.issues.isEmpty, "\(korean.issues)")
        #expect(korean.drafts.first?.fields.discountedPrice == 1500 && korean.drafts.first?.fields.price == 10000)
        #expect(korean.drafts.first?.given.contains(.discountedPrice) == true)
        let english = try space.check(space.write("name,price,currency,sale_price,images\nGreen tea,24.50,USD,19.99,a.jpg\n"))
        #expect(english.drafts.first?.fields.discountedPrice == Money(exactly: "4.51"), "\(english.issues)")
        let over = try space.check(space.write("name,price,sale_price,stock,images\nGreen tea,1000,1200,1,a.jpg\n"))
        #expect(over.issues.map(\.rule) == ["sale-price-over-price"] && over.drafts.isEmpty)
        let alone = try space.check(space.write("key,sale_price\nK1,900\n"))
        #expect(alone.issues.filter { $0.severity == .error }.map(\.rule) == ["sale-price-without-price"], "\(alone.issues)")
        let both = try space.check(space.write("name,price,discounted_price,sale_price,stock,images\nGreen tea,1000,300,800,1,a.jpg\n"))
        #expect(both.issues.map(\.rule) == ["sale-price-disagrees"], "\(both.issues)")
        // The merchant's own header is named in messages beside ours.
        #expect(over.issues.first?.columnLabel == "sale_price")
        let named = try space.check(space.write("상품명,판매가,할인가,이미지\n녹차 라떼,1000,1200,a.jpg\n"))
        #expect(named.issues.first?.columnLabel == "할인가 (sale_price)", "\(named.issues)")
        #expect(named.issues.first?.description.contains("column 할인가 (sale_price)") == true)
    }

    @Test("stock: a whole number ≥ 0, or a change (+5, -3); 0 is a value, blank keeps the shop's")
    func stock() throws {
        let blank = try #require(try check(["stock": ""]).draft)
        #expect(!blank.given.contains(.stock))
        // An empty cell is not 0: the row cannot create a product (an update keeps the shop's stock).
        #expect(blank.createProblems.map(\.rule) == ["stock-empty"] && blank.createProblems[0].column == "stock")
        let zero = try #require(try check(["stock": "0"]).draft)
        #expect(zero.fields.stock == 0 && zero.given.contains(.stock) && zero.stockDelta == nil)
        #expect(try check(["stock": "12"]).draft?.fields.stock == 12)
        #expect(try check(["stock": "1,200"]).draft?.fields.stock == 1200)
        // A sheet that states products (a name column) states counts: -3 (often a number typed
        // into an Excel cell) fails the row, saying how to subtract; nothing is guessed.
        let minus = try check(["stock": "-3"])
        #expect(minus.draft == nil && minus.rules == ["stock-negative"], "\(minus.issues)")
        #expect(minus.issues.first?.message.contains("to take 3 off the shop's stock, import a sheet of key and stock with -3") == true)
        // A sheet of keys and stock: -3 subtracts; validate warns that a row that would create fails.
        let space = try Workspace()
        defer { space.cleanup() }
        let stockOnly = try space.check(space.write("key,stock\nK1,-3\nK2,+5\n"))
        #expect(stockOnly.drafts.map(\.stockDelta) == [-3, 5])
        #expect(stockOnly.drafts.first?.createProblems.map(\.rule).contains("stock-change-new") == true)
        #expect(stockOnly.issues.first { $0.rule == "stock-change-new" }?.message == "a new product needs a stock count (0 or more), not -3")
        #expect(try check(["stock": "+5"]).draft?.createProblems.isEmpty == true)
        #expect(try check(["stock": "+5"]).draft?.stockDelta == 5)
        #expect(try check(["stock": "+5"]).draft?.given.contains(.stock) == true)
        #expect(try check(["stock": "--1"]).rules == ["stock-integer"])
        #expect(try check(["stock": "+"]).rules == ["stock-integer"])
        #expect(try check(["stock": "1.5"]).rules == ["stock-integer"])
        #expect(try check(["stock": "many"]).rules == ["stock-integer"])
    }

    @Test("names: 3 to 100 characters after trimming, counted as a person counts (Korean, emoji)")
    func names() throws {
        #expect(try check(["name": "가나다"]).rules.isEmpty)
        #expect(try check(["name": "가나"]).rules == ["name-length"])
        #expect(try check(["name": "👍🏽👍🏽👍🏽"]).rules.isEmpty, "3 graphemes though 6 scalars")
        #expect(try check(["name": "  ab  "]).rules == ["name-length"])
        #expect(try check(["name": String(repeating: "한", count: 100)]).rules.isEmpty)
        #expect(try check(["name": String(repeating: "한", count: 101)]).rules == ["name-length"])
        let issue = try check(["name": "ab"]).issues[0]
        #expect(issue.value == "ab" && issue.column == "name" && issue.message.contains("has 2"))
    }

    @Test("descriptions: at most 1,000 characters")
    func descriptions() throws {
        #expect(try check(["description": String(repeating: "설", count: 1000)]).rules.isEmpty)
        #expect(try check(["description": String(repeating: "🍵", count: 1001)]).rules == ["description-length"])
    }

    @Test("images: 1 to 5, each present and JPEG or PNG by content; URLs allowed; ; or | between")
    func images() throws {
        #expect(try check(["images": "a.jpg;b.png|a.jpg"]).draft?.images.count == 3)
        #expect(try check(["images": ""]).rules == ["images-count"])
        #expect(try check(["images": "a.jpg;a.jpg;a.jpg;a.jpg;a.jpg;a.jpg"]).rules == ["images-count"])
        #expect(try check(["images": "missing.jpg"]).rules == ["image-missing"])
        #expect(try check(["images": "https://cdn.example/a.jpg"]).draft?.images == [.url("https://cdn.example/a.jpg")])
        #expect(try check(["images": "ftp://host/a.jpg"]).rules == ["image-url"])
    }

    @Test("a path that escapes the images folder is refused: ../ and a symlink out")
    func escapes() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let photos = space.directory.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: space.directory.appendingPathComponent("a.jpg"), to: photos.appendingPathComponent("in.jpg"))
        try FileManager.default.createSymbolicLink(atPath: photos.appendingPathComponent("out.jpg").path,
                                                   withDestinationPath: space.directory.appendingPathComponent("a.jpg").path)
        var options = ValidationOptions()
        options.imagesDirectory = photos
        let csv = "name,price,stock,images\nInside,1000,1,in.jpg\nParent,1000,1,../a.jpg\nLinked,1000,1,out.jpg\nSneaky,1000,1,sub/../../a.jpg\n"
        let result = try space.check(space.write(csv), options: options)
        #expect(result.drafts.map(\.fields.name) == ["Inside"])
        #expect(result.issues.map(\.rule) == ["image-path-escape", "image-path-escape", "image-path-escape"])
    }

    @Test("without an images column, the folder named after the key, files in name order")
    func keyFolders() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let folder = space.directory.appendingPathComponent("TEA-1")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["2-side.jpg", "1-front.jpg"] {
            try FileManager.default.copyItem(at: space.directory.appendingPathComponent("a.jpg"), to: folder.appendingPathComponent(name))
        }
        let result = try space.check(space.write("sku,name,price,stock\nTEA-1,Green tea,4500,1\nTEA-2,Black tea,4500,1\n"))
        #expect(result.drafts.first?.images.map { ($0.display as NSString).lastPathComponent } == ["1-front.jpg", "2-side.jpg"])
        #expect(result.issues.map(\.rule) == ["images-folder"])
    }

    @Test("duplicate keys are errors; the same name twice is a warning")
    func duplicates() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let csv = "key,name,price,stock,images\nK1,Green tea,1000,1,a.jpg\nK2,Green tea,1000,1,a.jpg\nK1,Other tea,1000,1,a.jpg\n"
        let result = try space.check(space.write(csv))
        #expect(result.issues.map(\.rule) == ["name-duplicate", "key-duplicate"])
        #expect(result.issues[0].severity == .warning && result.issues[0].message.contains("row 2"))
        #expect(result.issues[1].severity == .error && result.issues[1].row == 4)
        #expect(result.summary.rows == 3 && result.summary.valid == 2 && result.summary.withErrors == 1)
        #expect(result.summary.withWarnings == 1 && result.summary.fileErrors == 0)
    }

    @Test("cells neutralised against spreadsheet formulas read back as written")
    func neutralised() throws {
        #expect(CSVCell.neutralise("=SUM(A1)") == "'=SUM(A1)")
        #expect(CSVCell.restore(CSVCell.neutralise("-5 off")) == "-5 off")
        #expect(CSVCell.restore("'plain") == "'plain")
        #expect(try check(["name": "'=Not a formula"]).draft?.fields.name == "=Not a formula")
    }
}
