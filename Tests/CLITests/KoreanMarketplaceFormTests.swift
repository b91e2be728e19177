import Foundation
import OpenMarketAPI
import Sandbox
import Testing
import TestSupport

/// 11번가's and ESM's (G마켓·옥션) bulk-registration forms, read as they are: recognised from
/// their headers, their form rows passed over, each option a product of its own, imported into
/// the sandbox over HTTP; a second run changes nothing.
@Suite("11번가 and ESM (G마켓·옥션) bulk forms", .serialized)
struct KoreanMarketplaceFormTests {
    typealias Month = KoreanMarketplaceMonthTests

    static func photos(_ names: [String], in files: Scratch, seed: UInt64) throws {
        for (n, name) in names.enumerated() {
            _ = try files.write(try Fixtures.jpeg(width: 48, height: 36, seed: seed + UInt64(n)), named: name)
        }
    }

    @Test("11번가's form: group, 필수, guide and example rows passed over; 판매가 under 권장소비자가(정가); options a product each, 판매옵션가격 and 옵션재고수량 per first value; again: nothing")
    func elevenst() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        try Self.photos(["green.jpg", "green-b.jpg", "sock.jpg", "tee.jpg"], in: files, seed: 500)
        let book = files.directory.appendingPathComponent("ExcelUnitProductList.xlsx")
        try KoreanPlatformFiles.elevenst([
            .init(code: "G-1", name: "제주 녹차 50g", price: "12900", list: "15000", stock: "30", photos: ["green.jpg", "green-b.jpg"], html: "<p>녹차 <b>50g</b></p>"),
            .init(code: "S-1", name: "면 양말", price: "5000", stock: "12", photos: ["sock.jpg"], html: "양말",
                  options: ("01", "흰색|검정", "0|500", "5|7")),
            .init(code: "T-1", name: "코튼 티셔츠", price: "19000", stock: "99", photos: ["tee.jpg"], html: "티셔츠",
                  options: ("01\n02", "빨강|파랑\nS|M", "0|1000", "")),
        ], to: book)

        // Two option names: 옵션재고수량 per first value is no combination's count; 재고수량 is all of them.
        let checked = try await CLIProcess.run(["validate", book.path])
        #expect(checked.stdout.contains("an 11번가 workbook: read with the 11번가 (11st) map"), "\(checked.stdout)")
        #expect(checked.stdout.contains("the row's stock counts its 4 options together") && checked.stdout.contains("[options-stock]"), "\(checked.stdout)")
        #expect(checked.stdout.contains("7 rows, 3 valid") && checked.stdout.contains("4 only as updates"), "\(checked.stdout)")
        #expect(!checked.stdout.contains("[예시]") && !checked.stdout.contains("예시코드"), "\(checked.stdout)")

        let first = try await Month.run(book, sandbox, "first", ["--default-stock", "3"])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("7 rows: 7 created"), "\(first.stdout)")
        let products = try await allProducts(sandbox)
        #expect(Set(products.map(\.name)) == ["제주 녹차 50g", "면 양말 흰색", "면 양말 검정", "코튼 티셔츠 빨강 S", "코튼 티셔츠 빨강 M",
                                             "코튼 티셔츠 파랑 S", "코튼 티셔츠 파랑 M"], "\(products.map(\.name))")
        let green = try await Month.product(sandbox, "제주 녹차 50g")
        #expect(green.price == 15000 && green.discountedPrice == 2100 && green.stock == 30 && green.currency == "KRW",
                "\(green.price) − \(green.discountedPrice), \(green.stock)")
        let greenDetail = try await curl(["\(sandbox.url)/api/products/\(green.id)"]).decode(ProductDetail.self)
        #expect(greenDetail.images?.count == 2 && greenDetail.summary.description == "녹차 50g", "\(greenDetail.summary.description ?? "")")
        let white = try await Month.product(sandbox, "면 양말 흰색"), black = try await Month.product(sandbox, "면 양말 검정")
        #expect(white.price == 5000 && white.stock == 5 && black.price == 5500 && black.stock == 7)
        let redS = try await Month.product(sandbox, "코튼 티셔츠 빨강 S"), blueM = try await Month.product(sandbox, "코튼 티셔츠 파랑 M")
        #expect(redS.price == 19000 && blueM.price == 20000 && redS.stock == 3 && blueM.stock == 3)
        #expect(first.stdout.contains("G-1") && first.stdout.contains("S-1/검정") && first.stdout.contains("T-1/파랑/M"), "\(first.stdout)")

        let again = try await Month.run(book, sandbox, "again", ["--default-stock", "3"])
        #expect(again.status == 0 && again.stdout.contains("7 rows: 7 unchanged"), "\(again.stdout)\(again.stderr)")
    }

    @Test("the form saved as CSV by Excel (UTF-8 with a BOM): the group row above the header passed over, rows numbered as the file has them")
    func formAsCSV() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        try Self.photos(["green.jpg"], in: files, seed: 700)
        let headers = KoreanPlatformFiles.elevenstHeaders
        func line(_ cells: [String: String]) -> String { headers.map { KoreanPlatformFiles.quoted(cells[$0] ?? "") }.joined(separator: ",") }
        let lines = [line(["카테고리코드": "상품 기본정보"]), headers.joined(separator: ","), line(Dictionary(uniqueKeysWithValues: headers.map { ($0, "필수") })),
                     line(["판매자 상품코드": "G-1", "상품명": "제주 녹차 50g", "판매가": "12900", "재고수량": "30", "대표 이미지": "green.jpg", "상세설명": "녹차"]),
                     line(["판매자 상품코드": "G-2", "상품명": "제주", "판매가": "12900", "재고수량": "30", "대표 이미지": "green.jpg", "상세설명": "녹차"])]
        let sheet = files.directory.appendingPathComponent("11st.csv")
        try Data([0xEF, 0xBB, 0xBF] + Array((lines.joined(separator: "\r\n") + "\r\n").utf8)).write(to: sheet)
        let checked = try await CLIProcess.run(["validate", sheet.path])
        #expect(checked.stdout.contains("an 11번가 workbook: read with the 11번가 (11st) map") && checked.stdout.contains("2 rows, 1 valid, 1 with errors")
                    && checked.stdout.contains("row 5:") && checked.stdout.contains("'제주'"), "\(checked.stdout)\(checked.stderr)")
    }

    @Test("ESM's NEW 일반상품 sheet: header on row 4, rows 5–7 passed over; G마켓's price and count, 옥션's where only 옥션 lists it; 옵션 입력값 a product per line; no key column says how on; again: nothing")
    func esm() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        try Self.photos(["green.jpg", "green-b.jpg", "green-c.jpg", "tee.jpg", "barley.jpg"], in: files, seed: 600)
        let rows: [KoreanPlatformFiles.EsmRow] = [
            .init(code: "E-1", name: "제주 녹차 50g", price: "12900", stock: "30", photo: "green.jpg", more: "green-b.jpg,green-c.jpg", html: "<p>녹차</p>"),
            .init(code: "E-2", name: "코튼 티셔츠", sites: "G마켓", price: "19000", stock: "99", photo: "tee.jpg", html: "티셔츠",
                  options: ("2개조합형", "색상,사이즈", "빨강,S,정상,노출,3,3\n빨강,M,정상,노출,4,4\n파랑,S,정상,노출,0,5")),
            .init(code: "E-3", name: "보리차 티백", sites: "옥션", price: "8000", stock: "5", photo: "barley.jpg", html: "보리차"),
        ]
        // The form as ESM hands it out has no column of the merchant's own code.
        let bare = files.directory.appendingPathComponent("esm_bare.xlsx")
        try KoreanPlatformFiles.esm(rows, keyColumn: false, to: bare)
        let keyless = try await CLIProcess.run(["validate", bare.path])
        #expect(keyless.status != 0 && keyless.stdout.contains("판매자 관리코드") && keyless.stdout.contains("--key-by name")
                    && keyless.stdout.contains("[key-missing]"), "\(keyless.stdout)\(keyless.stderr)")
        let korean = try await CLIProcess.run(["validate", bare.path], environment: ["LANG": "ko_KR.UTF-8"])
        #expect(korean.stdout.contains("판매자 관리코드") && korean.stdout.contains("--key-by name") && korean.stdout.contains("ESM(G마켓·옥션) 일괄등록 양식"),
                "\(korean.stdout)")
        let byName = try await CLIProcess.run(["validate", bare.path, "--key-by", "name"])
        #expect(byName.status == 0 && byName.stdout.contains("5 rows, 5 valid"), "\(byName.stdout)\(byName.stderr)")

        let book = files.directory.appendingPathComponent("esm_upload.xlsx")
        try KoreanPlatformFiles.esm(rows, to: book)
        let first = try await Month.run(book, sandbox, "first")
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("an ESM (G마켓·옥션) workbook: read with the ESM (G마켓·옥션) map") && first.stdout.contains("5 rows: 5 created"),
                "\(first.stdout)")
        let green = try await Month.product(sandbox, "제주 녹차 50g")
        #expect(green.price == 12900 && green.stock == 30 && green.currency == "KRW")
        let greenDetail = try await curl(["\(sandbox.url)/api/products/\(green.id)"]).decode(ProductDetail.self)
        #expect(greenDetail.images?.count == 3 && greenDetail.summary.description == "녹차")
        for (name, stock) in [("코튼 티셔츠 빨강 S", 3), ("코튼 티셔츠 빨강 M", 4), ("코튼 티셔츠 파랑 S", 0)] {
            let tee = try await Month.product(sandbox, name)
            #expect(tee.price == 19000 && tee.stock == stock, "\(name): \(tee.price), \(tee.stock)")
        }
        let barley = try await Month.product(sandbox, "보리차 티백")
        #expect(barley.price == 8000 && barley.stock == 5)
        #expect(first.stdout.contains("E-2/빨강/M") && first.stdout.contains("E-3"), "\(first.stdout)")
        let again = try await Month.run(book, sandbox, "again")
        #expect(again.status == 0 && again.stdout.contains("5 rows: 5 unchanged"), "\(again.stdout)\(again.stderr)")
    }
}
