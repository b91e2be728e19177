import Foundation
import Manifest

/// The files of month two: SmartStore's product-list download (the CSV 엑셀 다운로드 writes) and
/// Coupang WING's bulk-registration workbook, built from their headers (docs/smartstore.md,
/// docs/coupang.md say where each layout comes from).
extension KoreanPlatformFiles {
    /// SmartStore's product list as 상품 조회/수정 › 엑셀 다운로드 writes it.
    static let smartStoreDownloadHeaders = [
        "상품번호(스마트스토어)", "원상품번호", "판매자상품코드", "카테고리ID", "상품명", "판매상태", "전시상태", "판매가", "할인가(PC)",
        "판매자즉시할인(PC)", "할인가(모바일)", "판매자즉시할인(모바일)", "재고수량", "옵션여부", "대표이미지 URL", "추가이미지 URL",
        "브랜드", "제조사", "상품등록일", "최종수정일",
    ]

    struct DownloadRow {
        var number: String
        var key: String
        var name: String
        var status = "판매중"
        var price: Int
        var sale: Int
        var stock: String
        var photo: String
        var more: [String] = []
    }

    /// The CSV as SmartStore hands it out: UTF-8 with a byte-order mark, CRLF, money with commas.
    static func smartStoreDownload(_ rows: [DownloadRow]) -> Data {
        func won(_ amount: Int) -> String { amount.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US"))) }
        var lines = [smartStoreDownloadHeaders]
        for row in rows {
            let discount = row.price - row.sale
            lines.append([row.number, row.number, row.key, "50000803", row.name, row.status, "전시중", won(row.price), won(row.sale),
                          discount > 0 ? "\(won(discount))원" : "", won(row.sale), discount > 0 ? "\(won(discount))원" : "", row.stock, "N",
                          row.photo, row.more.joined(separator: ","), "제주다원", "제주다원", "2026-10-01", "2026-11-28"])
        }
        let text = lines.map { $0.map(quoted).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
        return Data([0xEF, 0xBB, 0xBF] + Array(text.utf8))
    }

    /// Coupang WING's bulk-registration sheet (기본): its columns in the form's order.
    static let coupangHeaders = [
        "카테고리", "등록상품명", "판매시작일", "판매종료일", "상품상태", "브랜드", "제조사", "검색어", "옵션유형1", "옵션값1", "옵션유형2", "옵션값2",
        "판매가격", "할인율기준가", "재고수량", "출고리드타임", "업체상품코드", "모델번호", "바코드", "대표(옵션)이미지", "추가이미지", "상세설명",
    ]
    static let coupangNeeds = ["필수", "필수", "필수", "필수", "필수", "선택", "선택", "선택", "선택", "선택", "선택", "선택",
                               "필수", "필수", "필수", "필수", "선택", "선택", "선택", "필수", "선택", "필수"]

    struct CoupangRow {
        var code: String
        var name: String
        var option: (type: String, value: String)?
        var price: String
        var list: String = ""
        var stock: String
        var ends = "2099-12-31"
        var photo: String
        var more: String = ""
        var html: String
    }

    /// The workbook as Coupang hands it out, filled: sheet 기본 with a section row, the header, the
    /// row of 필수/선택, a guide row, then one row per option; a sheet of instructions after it.
    static func coupang(_ rows: [CoupangRow], to url: URL) throws {
        let writer = try SpreadsheetWriter(url: url, sheetName: "기본")
        try writer.write(groupRow(width: coupangHeaders.count, [0: "기본 정보", 8: "옵션 정보", 12: "가격/재고", 19: "이미지", 21: "상세 정보"]))
        try writer.write(coupangHeaders.map { .text($0) })
        try writer.write(coupangNeeds.map { .text($0) })
        try writer.write(coupangHeaders.map { header in
            switch header {
            case "업체상품코드": .text("판매자가 관리하는 상품코드를 입력해 주세요 (예: ABC-001)")
            case "판매가격": .text("실제 판매되는 가격을 입력하세요")
            case "판매종료일": .text("예시) 2099-12-31")
            default: .text("\(header)을(를) 입력해 주세요")
            }
        })
        try writeProducts(rows.map { row in
            var cells = [String: SpreadsheetWriter.Cell]()
            cells["카테고리"] = .text("63950")
            cells["등록상품명"] = .text(row.name)
            cells["판매시작일"] = .text("2026-10-01")
            cells["판매종료일"] = .text(row.ends)
            cells["상품상태"] = .text("새상품")
            cells["브랜드"] = .text("제주다원")
            if let option = row.option {
                cells["옵션유형1"] = .text(option.type)
                cells["옵션값1"] = .text(option.value)
            }
            cells["판매가격"] = .number(row.price)
            if !row.list.isEmpty { cells["할인율기준가"] = .number(row.list) }
            cells["재고수량"] = .number(row.stock)
            cells["출고리드타임"] = .number("2")
            cells["업체상품코드"] = .text(row.code)
            cells["대표(옵션)이미지"] = .text(row.photo)
            cells["추가이미지"] = .text(row.more)
            cells["상세설명"] = .text(row.html)
            return cells
        }, headers: coupangHeaders, to: writer)
        try writer.addSheet("작성방법")
        try writer.write([.text("1. 4행까지는 지우지 마세요. 5행부터 상품을 입력합니다.")])
        try writer.close()
    }

    /// A form's row above its header: titles at some places, the rest empty.
    static func groupRow(width: Int, _ titles: [Int: String]) -> [SpreadsheetWriter.Cell] {
        (0..<width).map { titles[$0].map(SpreadsheetWriter.Cell.text) ?? .empty }
    }

    /// Products under a form's header: each row's cells by header, in the header's order.
    static func writeProducts(_ rows: [[String: SpreadsheetWriter.Cell]], headers: [String], to writer: SpreadsheetWriter) throws {
        for cells in rows { try writer.write(headers.map { cells[$0] ?? .empty }) }
    }
}
