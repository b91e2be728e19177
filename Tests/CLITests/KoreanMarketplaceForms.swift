import Foundation
import Manifest

/// 11번가's and ESM's bulk-registration forms, built from their headers and row layout
/// (docs/11st.md and docs/esm.md say where each comes from), saved as .xlsx the way a merchant
/// saves the .xls 11번가 hands out.
extension KoreanPlatformFiles {
    /// 11번가's 대량등록 양식 (ExcelUnitProductList Ver2.50): a part of its columns, in its order.
    static let elevenstHeaders = [
        "카테고리코드", "모델명", "모델코드", "상품명", "상품홍보문구", "대표 이미지", "추가이미지 1", "추가이미지 2", "추가이미지 3", "상세설명",
        "상품리뷰/구매후기", "서비스상품", "판매방식", "상품상태", "판매기간", "판매가", "판매옵션", "판매옵션값", "판매옵션가격", "옵션재고수량",
        "재고수량", "권장소비자가(정가)", "닉네임", "판매자 상품코드", "원산지",
    ]

    struct ElevenstRow {
        var code: String
        var name: String
        var price: String
        var list = ""
        var stock: String
        var photos: [String]
        var html: String
        /// 판매옵션 (a code per line), 판매옵션값 (a line per name, `|` between values), 판매옵션가격, 옵션재고수량.
        var options: (codes: String, values: String, prices: String, stocks: String)?
    }

    /// The form filled: a group row, the header, the row of 필수/선택, the guide row and the
    /// example row left in, then a product a row.
    static func elevenst(_ rows: [ElevenstRow], to url: URL) throws {
        let writer = try SpreadsheetWriter(url: url, sheetName: "대량등록 양식")
        try writer.write(groupRow(width: elevenstHeaders.count, [0: "상품 기본정보", 15: "가격/옵션/재고"]))
        try writer.write(elevenstHeaders.map { .text($0) })
        try writer.write(elevenstHeaders.map { ["모델명", "모델코드", "상품홍보문구", "추가이미지 1", "추가이미지 2", "추가이미지 3", "판매옵션", "판매옵션값",
                                                "판매옵션가격", "옵션재고수량", "권장소비자가(정가)"].contains($0) ? .text("선택") : .text("필수") })
        try writer.write(elevenstHeaders.map { .text("\($0): 코드표를 보고 입력하세요") })
        try writer.write(elevenstHeaders.map { header in
            switch header {
            case "상품명": .text("[예시] 상품명")
            case "판매가": .number("10000")
            case "재고수량": .number("100")
            case "판매자 상품코드": .text("예시코드")
            default: .text("예시")
            }
        })
        try writeProducts(rows.map { row in
            var cells = [String: SpreadsheetWriter.Cell]()
            cells["카테고리코드"] = .text("1001234")
            cells["상품명"] = .text(row.name)
            for (index, photo) in row.photos.enumerated() {
                cells[index == 0 ? "대표 이미지" : "추가이미지 \(index)"] = .text(photo)
            }
            cells["상세설명"] = .text(row.html)
            cells["상품리뷰/구매후기"] = .text("Y")
            cells["서비스상품"] = .text("01")
            cells["판매방식"] = .text("01")
            cells["상품상태"] = .text("01")
            cells["판매기간"] = .text("108")
            cells["판매가"] = .number(row.price)
            if let options = row.options {
                cells["판매옵션"] = .text(options.codes)
                cells["판매옵션값"] = .text(options.values)
                cells["판매옵션가격"] = .text(options.prices)
                cells["옵션재고수량"] = .text(options.stocks)
            }
            cells["재고수량"] = .number(row.stock)
            if !row.list.isEmpty { cells["권장소비자가(정가)"] = .number(row.list) }
            cells["닉네임"] = .text("제주다원")
            cells["판매자 상품코드"] = .text(row.code)
            cells["원산지"] = .text("01")
            return cells
        }, headers: elevenstHeaders, to: writer)
        try writer.close()
    }

    /// ESM 2.0's NEW 일반상품 sheet: a part of its columns, in its order, and 판매자 관리코드 the
    /// merchant adds (the form has no column of the merchant's own code).
    static let esmHeaders = [
        "노출 사이트", "A ID", "G ID", "상품명", "A프로모션 문구", "G프로모션 문구", "카테고리 코드", "A 노출코드", "G 노출코드", "판매기간",
        "A 판매가", "G 판매가", "A 재고", "G 재고", "옵션 타입", "옵션명", "옵션 입력값", "기본이미지", "추가이미지", "상품상세설명", "배송방법",
    ]

    struct EsmRow {
        var code: String
        var name: String
        var sites = "옥션/G마켓"
        var price: String
        var stock: String
        var photo: String
        var more = ""
        var html: String
        /// 옵션 타입, 옵션명 (names split on a comma), 옵션 입력값 (a line per option).
        var options: (type: String, names: String, lines: String)?
    }

    /// The sheet filled: three rows of title and notes, the header on row 4, rows 5 to 7 the
    /// form's (필수/선택, a guide, an example), products from row 8.
    static func esm(_ rows: [EsmRow], keyColumn: Bool = true, to url: URL) throws {
        let headers = esmHeaders + (keyColumn ? ["판매자 관리코드"] : [])
        let writer = try SpreadsheetWriter(url: url, sheetName: "NEW 일반상품")
        try writer.write([.text("ESM 2.0 상품 일괄등록 (문서버전 NEW 2.0)")])
        try writer.write([.text("※ 8행부터 입력하세요. 한 파일에 500개까지 등록할 수 있습니다.")])
        try writer.write([.empty])
        try writer.write(headers.map { .text($0) })
        try writer.write(headers.map { ["A프로모션 문구", "G프로모션 문구", "옵션명", "옵션 입력값", "추가이미지"].contains($0) ? .text("선택") : .text("필수") })
        try writer.write(headers.map { .text("\($0)을(를) 입력하세요") })
        try writer.write(headers.map { header in header == "상품명" ? .text("예시) 상품명") : .text("예시") })
        try writeProducts(rows.map { row in
            var cells = [String: SpreadsheetWriter.Cell]()
            cells["노출 사이트"] = .text(row.sites)
            let auction = row.sites.contains("옥션"), gmarket = row.sites.contains("G마켓")
            if auction { cells["A ID"] = .text("jejudawon") }
            if gmarket { cells["G ID"] = .text("jejudawon") }
            cells["상품명"] = .text(row.name)
            cells["카테고리 코드"] = .text("300012345")
            cells["판매기간"] = .text("무제한")
            if auction { cells["A 판매가"] = .number(row.price); cells["A 재고"] = .number(row.stock) }
            if gmarket { cells["G 판매가"] = .number(row.price); cells["G 재고"] = .number(row.stock) }
            cells["옵션 타입"] = .text(row.options?.type ?? "미사용")
            if let options = row.options {
                cells["옵션명"] = .text(options.names)
                cells["옵션 입력값"] = .text(options.lines)
            }
            cells["기본이미지"] = .text(row.photo)
            cells["추가이미지"] = .text(row.more)
            cells["상품상세설명"] = .text(row.html)
            cells["배송방법"] = .text("일반택배")
            cells["판매자 관리코드"] = .text(row.code)
            return cells
        }, headers: headers, to: writer)
        try writer.close()
    }
}
