import Foundation
import Manifest

/// Files as a merchant arriving from Cafe24 or Naver SmartStore brings them, built from the
/// platforms' documented headers (Cafe24's product download, 90 columns; SmartStore's
/// bulk-registration form and its product-list download).
enum KoreanPlatformFiles {
    /// Cafe24's product CSV, in the order its download writes the columns.
    static let cafe24Headers = """
        상품코드,자체 상품코드,진열상태,판매상태,상품분류 번호,상품분류 신상품영역,상품분류 추천상품영역,상품명,영문 상품명,상품명(관리용),\
        공급사 상품명,모델명,상품 요약설명,상품 간략설명,상품 상세설명,모바일 상품 상세설명 설정,모바일 상품 상세설명,검색어설정,과세구분,소비자가,\
        공급가,상품가,판매가,판매가 대체문구 사용,판매가 대체문구,주문수량 제한 기준,최소 주문수량(이상),최대 주문수량(이하),적립금,적립금 구분,\
        공통이벤트 정보,성인인증,옵션사용,품목 구성방식,옵션 표시방식,옵션세트명,옵션입력,옵션 스타일,버튼이미지 설정,색상 설정,\
        필수여부,품절표시 문구,추가입력옵션,추가입력옵션 명칭,추가입력옵션 선택/필수여부,입력글자수(자),이미지등록(상세),이미지등록(목록),이미지등록(작은목록),이미지등록(축소),\
        이미지등록(추가),제조사,공급사,브랜드,트렌드,자체분류 코드,제조일자,출시일자,유효기간 사용여부,유효기간,\
        원산지,상품부피(cm),상품결제안내,상품배송안내,교환/반품안내,서비스문의/안내,배송정보,배송방법,국내/해외배송,배송지역,\
        배송비 선결제 설정,배송기간,배송비 구분,배송비입력,스토어픽업 설정,상품 전체중량(kg),HS코드,상품 구분(해외통관),상품소재,영문 상품소재(해외통관),\
        옷감(해외통관),검색엔진최적화(SEO) 검색엔진 노출 설정,검색엔진최적화(SEO) Title,검색엔진최적화(SEO) Author,검색엔진최적화(SEO) Description,검색엔진최적화(SEO) Keywords,검색엔진최적화(SEO) 상품 이미지 Alt 텍스트,개별결제수단설정,상품배송유형 코드,메모
        """.split(separator: ",").map(String.init)

    struct Cafe24Row {
        var code: String
        var own: String
        var onSale = true
        var name: String
        var html: String
        var list: String
        var price: String
        var photo: String
        var more: [String]
        /// 옵션입력 as Cafe24 writes it (`색상{빨강|파랑}//사이즈{S|M}`), empty for none.
        var options = ""
    }

    /// The CSV text (without its byte-order mark); `dropping` leaves a column out.
    static func cafe24(_ rows: [Cafe24Row], dropping: String? = nil) -> String {
        var headers = cafe24Headers
        var lines: [[String]] = []
        for row in rows {
            var cells = [String: String]()
            cells["상품코드"] = row.code
            cells["자체 상품코드"] = row.own
            cells["진열상태"] = "Y"
            cells["판매상태"] = row.onSale ? "Y" : "N"
            cells["상품명"] = row.name
            cells["상품 상세설명"] = row.html
            cells["상품 요약설명"] = "요약"
            cells["과세구분"] = "A|10"
            cells["소비자가"] = row.list
            cells["공급가"] = "5000.00"
            cells["상품가"] = row.price
            cells["판매가"] = row.price
            cells["옵션사용"] = row.options.isEmpty ? "F" : "T"
            cells["옵션입력"] = row.options
            cells["이미지등록(상세)"] = row.photo
            // Thumbnails of the same photo: never more photos.
            cells["이미지등록(목록)"] = "list_" + row.photo
            cells["이미지등록(작은목록)"] = "small_" + row.photo
            cells["이미지등록(축소)"] = "tiny_" + row.photo
            cells["이미지등록(추가)"] = row.more.joined(separator: "|")
            lines.append(headers.map { cells[$0] ?? "" })
        }
        if let dropping, let index = headers.firstIndex(of: dropping) {
            headers.remove(at: index)
            for line in lines.indices { lines[line].remove(at: index) }
        }
        return ([headers] + lines).map { $0.map(quoted).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    static func quoted(_ cell: String) -> String {
        cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            ? "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : cell
    }

    /// SmartStore's bulk-registration form: its first columns as the form names them (the rest
    /// of its 90 are delivery, notice and certification fields, left blank here as a merchant does).
    static let smartStoreHeaders = ["판매자 상품코드", "카테고리코드", "상품명", "상품상태", "판매가", "부가세", "재고수량", "옵션형태", "옵션명", "옵션값",
                                    "옵션가", "옵션 재고수량", "대표이미지", "추가이미지", "상세설명", "브랜드", "제조사", "원산지코드", "배송방법",
                                    "즉시할인 값", "즉시할인 단위", "판매자특이사항"]
    static let smartStoreNeeds = ["필수", "필수", "필수", "필수", "필수", "필수", "필수", "비필수", "조건부필수", "조건부필수",
                                  "비필수", "조건부필수", "필수", "비필수", "필수", "비필수", "비필수", "필수", "필수",
                                  "비필수", "조건부필수", "비필수"]

    struct SmartStoreRow {
        var key: String
        var name: String
        var price: String
        var stock: String
        var photo: String
        var more: String
        var html: String
        var discount = ""
        var unit = ""
        var options: (names: String, values: String, prices: String, stocks: String)?
    }

    /// The form as SmartStore hands it out, filled: a guide sheet first, then the sheet of
    /// products with a section row, the header, and the row of 필수/비필수 under it.
    static func smartStoreForm(_ rows: [SmartStoreRow], to url: URL) throws {
        let writer = try SpreadsheetWriter(url: url, sheetName: "작성 가이드")
        try writer.write([.text("상품 일괄등록 양식 작성 가이드")])
        try writer.write([.text("3행의 필수 항목을 모두 입력해 주세요. 대표이미지는 파일명 또는 URL을 입력합니다.")])
        try writer.write([.text("즉시할인 단위는 원 또는 %입니다.")])
        try writer.addSheet("일괄등록")
        var section = [SpreadsheetWriter.Cell](repeating: .empty, count: smartStoreHeaders.count)
        section[0] = .text("기본정보")
        section[12] = .text("이미지")
        section[19] = .text("할인")
        try writer.write(section)
        try writer.write(smartStoreHeaders.map { .text($0) })
        try writer.write(smartStoreNeeds.map { .text($0) })
        for row in rows {
            var cells = [String: SpreadsheetWriter.Cell]()
            cells["판매자 상품코드"] = .text(row.key)
            cells["카테고리코드"] = .text("50000803")
            cells["상품명"] = .text(row.name)
            cells["상품상태"] = .text("신상품")
            cells["판매가"] = .number(row.price)
            cells["부가세"] = .text("과세상품")
            cells["재고수량"] = .number(row.stock)
            cells["대표이미지"] = .text(row.photo)
            cells["추가이미지"] = .text(row.more)
            cells["상세설명"] = .text(row.html)
            cells["원산지코드"] = .text("00")
            cells["배송방법"] = .text("택배, 소포, 등기")
            if let options = row.options {
                cells["옵션형태"] = .text(options.names.contains("\n") ? "조합형" : "단독형")
                cells["옵션명"] = .text(options.names)
                cells["옵션값"] = .text(options.values)
                cells["옵션가"] = .text(options.prices)
                cells["옵션 재고수량"] = .text(options.stocks)
            }
            if !row.discount.isEmpty {
                cells["즉시할인 값"] = .number(row.discount)
                cells["즉시할인 단위"] = .text(row.unit)
            }
            try writer.write(smartStoreHeaders.map { cells[$0] ?? .empty })
        }
        try writer.close()
    }

    /// SmartStore's product-list download: its numbers, the merchant's code and the sale status.
    static func smartStoreList(_ rows: [(number: String, key: String, name: String, status: String, price: String, stock: String, photo: String)],
                               to url: URL) throws {
        let writer = try SpreadsheetWriter(url: url, sheetName: "상품목록")
        try writer.write(["상품번호(스마트스토어)", "원상품번호", "판매자상품코드", "상품명", "판매상태", "전시상태", "판매가", "재고수량", "대표이미지 URL"].map { .text($0) })
        for row in rows {
            try writer.write([.text(row.number), .text(row.number), .text(row.key), .text(row.name), .text(row.status), .text("전시중"),
                              .number(row.price), .number(row.stock), .text(row.photo)])
        }
        try writer.close()
    }
}
