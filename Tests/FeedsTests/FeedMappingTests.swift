import Feeds
import Foundation
import Manifest
import Testing
import TestSupport

/// A supplier's file in a folder of its own, read through a feed as validate and import read it.
struct SupplierFile {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("feed-map-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func cleanup() { try? FileManager.default.removeItem(at: folder) }

    func write(_ text: String, named name: String) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    struct Read {
        var summary: ValidationSummary
        var fileIssues: [RowIssue]
        var rows: [(raw: RawRow, draft: ProductDraft?, issues: [RowIssue])]
        func row(_ number: Int) -> (raw: RawRow, draft: ProductDraft?, issues: [RowIssue])? { rows.first { $0.raw.number == number } }
    }

    func read(_ url: URL, _ feedText: String) throws -> Read {
        var options = ValidationOptions()
        options.checkImageFiles = false
        options.mapping = FeedMapping(feed: try feed(feedText))
        var read = Read(summary: ValidationSummary(), fileIssues: [], rows: [])
        read.summary = try ManifestCheck.run(url, options: options, onFileIssue: { read.fileIssues.append($0) }) {
            read.rows.append(($0, $1, $2))
        }
        return read
    }
}

let acmeFeed = """
    [columns]
    key = "상품코드"
    name = "상품명"
    cost = "공급가"
    stock = "재고수량"
    images = "이미지"
    description = "상세설명"
    [constants]
    currency = "KRW"
    [maps.stock]
    "품절" = 0
    [prices]
    markup_percent = 30
    round_to = 100
    round = "up"
    [[prices.rules]]
    when = { "카테고리" = "가전" }
    markup_percent = 15
    [filter]
    skip = { "카테고리" = ["샘플", "단종"] }
    [protect]
    fields = ["description"]
    """

let acmeSheet = """
    상품코드,상품명,공급가,재고수량,카테고리,이미지,상세설명,비고
    A-1,녹차 티백 50개입,"8,200",40,식품,https://supplier.example/a1.jpg,제주 녹차.,
    A-2,전기 주전자,"₩31,000",품절,가전,https://supplier.example/a2.jpg,1.7L,
    A-3,견본 머그,1000,3,샘플,https://supplier.example/a3.jpg,,
    A-4,보리차,문의,5,식품,https://supplier.example/a4.jpg,,
    A-5,구형 찻잔,7000,0,단종,https://supplier.example/a5.jpg,,재고 정리

    """

@Suite("A supplier's file through a feed: their columns, our products")
struct FeedMappingTests {
    @Test("a Korean supplier's CSV: fields mapped, words mapped, prices from costs, rows filtered, protected fields marked")
    func koreanCSV() throws {
        let files = try SupplierFile()
        defer { files.cleanup() }
        let read = try files.read(try files.write(acmeSheet, named: "acme.csv"), acmeFeed)
        #expect(read.summary.rows == 5 && read.summary.skipped == 2 && read.summary.valid == 2 && read.summary.withErrors == 1,
                "\(read.summary)")
        #expect(read.fileIssues.isEmpty, "\(read.fileIssues)")
        let tea = try #require(read.row(2)?.draft)
        #expect(tea.key == "A-1" && tea.fields.name == "녹차 티백 50개입" && tea.fields.price == 10700 && tea.fields.currency == "KRW" && tea.fields.stock == 40)
        #expect(tea.images == [.url("https://supplier.example/a1.jpg")] && tea.fields.description == "제주 녹차.")
        #expect(tea.explanations[.price] == "cost 8,200, markup 30 %, up to 100" && tea.protected == [.description])
        let kettle = try #require(read.row(3)?.draft)
        #expect(kettle.fields.stock == 0 && kettle.fields.price == 35700, "품절 is 0; 31,000 × 1.15 = 35,650 → 35,700")
        #expect(read.row(4)?.raw.origin?.skipped == "[filter] skip: 카테고리 is 샘플" && read.row(4)?.draft == nil)
        #expect(read.row(6)?.raw.origin?.skipped == "[filter] skip: 카테고리 is 단종")
        // A row left out keeps its key (so that --delete-missing never takes it for gone).
        #expect(read.row(4)?.raw.values[.key] == "A-3")
        // A cost that is no amount: the row's error, named by the supplier's header.
        let inquiry = try #require(read.row(5))
        #expect(inquiry.draft == nil)
        let error = try #require(inquiry.issues.first { $0.severity == .error })
        #expect(error.column == "공급가 (cost)" && error.rule == "cost-format", "\(error)")
        #expect(error.value == "문의" && error.file == "acme.csv" && error.row == 5)
    }

    @Test("a CP949 file (Korean Excel's CSV) reads the same")
    func cp949() throws {
        let files = try SupplierFile()
        defer { files.cleanup() }
        // Korean Excel writes the won sign as ￦ (U+FFE6): ₩ (U+20A9) is not in CP949.
        let utf8 = try files.write(acmeSheet.replacingOccurrences(of: "₩", with: "￦"), named: "utf8.csv")
        let converted = files.folder.appendingPathComponent("acme-cp949.csv")
        try #require(try runTool("/usr/bin/iconv", ["-f", "UTF-8", "-t", "CP949", utf8.path, "-o", converted.path]) == 0)
        #expect(String(data: try Data(contentsOf: converted), encoding: .utf8) == nil, "the fixture must not be UTF-8")
        let read = try files.read(converted, acmeFeed)
        #expect(read.summary.valid == 2 && read.summary.skipped == 2)
        #expect(read.row(3)?.draft?.fields.name == "전기 주전자" && read.row(3)?.draft?.fields.price == 35700)
    }

    @Test("an Excel sheet with notes above the header: the header is found by the feed's columns")
    func workbook() throws {
        let files = try SupplierFile()
        defer { files.cleanup() }
        let url = files.folder.appendingPathComponent("acme.xlsx")
        let book = try SpreadsheetWriter(url: url, sheetName: "상품목록")
        try book.write([.text("ACME 상품 목록 2026-11")])
        try book.write([.empty])
        book.header(["상품코드", "상품명", "공급가", "재고수량", "카테고리", "이미지", "상세설명"])
        try book.write([.text("A-1"), .text("녹차 티백 50개입"), .number("8200"), .number("40"), .text("식품"), .text("https://s.example/1.jpg"), .text("녹차")])
        try book.write([.text("A-2"), .text("전기 주전자"), .number("31000"), .text("품절"), .text("가전"), .text("https://s.example/2.jpg"), .empty])
        try book.close()
        let read = try files.read(url, acmeFeed)
        #expect(read.summary.rows == 2 && read.summary.valid == 2, "\(read.summary) \(read.rows.map(\.issues))")
        #expect(read.rows.first?.raw.number == 4, "rows numbered as Excel shows them")
        #expect(read.row(4)?.draft?.fields.price == 10700 && read.row(5)?.draft?.fields.price == 35700 && read.row(5)?.draft?.fields.stock == 0)
    }

    @Test("a JSON Lines feed with the supplier's keys")
    func jsonLines() throws {
        let files = try SupplierFile()
        defer { files.cleanup() }
        let url = try files.write("""
            {"상품코드": "A-1", "상품명": "녹차 티백", "공급가": 8200, "재고수량": "품절", "카테고리": "식품", "이미지": ["https://s.example/1.jpg", "https://s.example/2.jpg"]}
            {"상품코드": "A-2", "상품명": "견본", "공급가": 1000, "재고수량": 1, "카테고리": "샘플", "이미지": []}

            """, named: "acme.jsonl")
        let read = try files.read(url, acmeFeed)
        #expect(read.summary.valid == 1 && read.summary.skipped == 1, "\(read.summary)")
        let tea = try #require(read.row(1)?.draft)
        #expect(tea.fields.price == 10700 && tea.fields.stock == 0 && tea.images.count == 2)
    }

    @Test("a renamed header stops the file before any row, naming what was expected and the closest header")
    func renamedHeader() throws {
        let files = try SupplierFile()
        defer { files.cleanup() }
        let renamed = acmeSheet.replacingOccurrences(of: "공급가,", with: "공급 가격,")
        let error = #expect(throws: ManifestError.self) { try files.read(try files.write(renamed, named: "acme.csv"), acmeFeed) }
        #expect(error?.file == "acme.csv")
        #expect(error?.message.contains("공급가 (cost): not in the file; did you mean 공급 가격?") == true, "\(error?.message ?? "")")
        // The key's column is required whatever the file is.
        let noKey = try files.write("코드,재고수량\nA-1,5\n", named: "stock.csv")
        let keyError = #expect(throws: ManifestError.self) { try files.read(noKey, acmeFeed) }
        #expect(keyError?.message.contains("상품코드 (key): not in the file") == true, "\(keyError?.message ?? "")")
    }

    @Test("a partial file (key and stock only) changes only stock; what it lacks is said once, not per row")
    func partialFile() throws {
        let files = try SupplierFile()
        defer { files.cleanup() }
        let read = try files.read(try files.write("상품코드,재고수량\nA-1,12\nA-2,품절\n", named: "stock.csv"), acmeFeed)
        // Rows of stock alone: each can only update (a new product would lack a name, a price…), never counted valid.
        #expect(read.summary.rows == 2 && read.summary.valid == 0 && read.summary.updateOnly == 2 && read.summary.withErrors == 0, "\(read.rows.map(\.issues))")
        let rows = read.rows.compactMap(\.draft)
        #expect(rows.map(\.fields.stock) == [12, 0] && rows.allSatisfy { $0.given == [.stock, .currency] }, "\(rows.map(\.given))")
        let absent = read.fileIssues.filter { $0.rule == "feed-column-absent" }
        #expect(absent.contains { $0.message.hasPrefix("공급가 (cost) is not in the file: prices are left as the shop has them") }, "\(absent)")
        #expect(absent.allSatisfy { $0.severity == .warning })
    }

    @Test("columns by number, an only-filter, headers matched ignoring spaces and case")
    func byNumber() throws {
        let files = try SupplierFile()
        defer { files.cleanup() }
        let url = try files.write("CODE,Item Name,Cost,Qty,Status\nX1,Green tea,1000,3,ACTIVE\nX2,Old cup,500,0,discontinued\n", named: "s.csv")
        let read = try files.read(url, """
            [columns]
            key = "#1"
            name = "item name"
            cost = "#3"
            stock = "QTY"
            [prices]
            markup_percent = 50
            [filter]
            only = { "status" = "active" }
            """)
        #expect(read.row(2)?.draft?.key == "X1" && read.row(2)?.draft?.fields.price == 1500 && read.row(2)?.draft?.fields.stock == 3)
        #expect(read.row(3)?.raw.origin?.skipped?.hasPrefix("[filter] only: status = active") == true, "\(String(describing: read.row(3)?.raw.origin))")
        // A column by number past the end is absent (a partial file), said once, not an error.
        let far = try files.read(url, "[columns]\nkey = \"#1\"\nstock = \"#9\"\n")
        #expect(far.summary.withErrors == 0 && far.fileIssues.filter { $0.rule == "feed-column-absent" }.map(\.message) == ["#9 (stock) is not in the file: stock is left as the shop has it"])
    }

    @Test("feed test's trial: the supplier's cells beside ours, the columns no part of the feed reads")
    func trial() throws {
        let files = try SupplierFile()
        defer { files.cleanup() }
        var shown: [FeedTrial.Row] = []
        var options = ValidationOptions()
        options.checkImageFiles = false
        let result = try FeedTrial.run(try files.write(acmeSheet, named: "acme.csv"), feed: try feed(acmeFeed), options: options, first: 1,
                                       onFileIssue: { _ in }, onRow: { shown.append($0) })
        #expect(result.unused == ["비고"])
        #expect(shown.map(\.number) == [2, 4, 5, 6], "the first row, then the skipped and failing ones")
        let first = try #require(shown.first)
        #expect(first.isFirst && first.cells.first == SupplierCell(header: "상품코드", value: "A-1"))
        #expect(first.fields.first { $0.column == .price }?.value == "10,700")
        #expect(first.explanations[.price] == "cost 8,200, markup 30 %, up to 100")
    }
}
