import Foundation
import OpenMarketContract

/// validate's rules said in Korean, on the console's pages and in the reports (the rule's name
/// stays beside it, as the CLI prints it). A rule not here is said in English.
public enum RuleWords {
    /// The rule's text in `language`; its blanks `{1}`, `{2}`… filled with `terms` (the English,
    /// which names them itself, when they are not given).
    public static func message(_ rule: String, english: String, _ language: Language, terms: [String]? = nil) -> String {
        guard language == .ko, var korean = korean[rule] else { return english }
        for (index, term) in (terms ?? []).enumerated() { korean = korean.replacingOccurrences(of: "{\(index + 1)}", with: term) }
        return korean.contains("{1}") ? english : korean
    }

    public static let korean: [String: String] = {
        let names = "\(ProductRules.nameLength.lowerBound)~\(ProductRules.nameLength.upperBound)자"
        let photos = "\(ProductRules.imageCount.lowerBound)~\(ProductRules.imageCount.upperBound)장"
        let currencies = ProductRules.sandboxCurrencies.joined(separator: ", ")
        return [
            "column-missing": "어떤 상품인지 알려 주는 열이 없습니다: key(상품코드), id 또는 name(상품명) 열을 넣으세요",
            "column-unknown": "알 수 없는 열은 읽지 않습니다",
            "column-other-platform": "다른 플랫폼의 상품번호 열이라 읽지 않습니다: 행은 상품코드, 없으면 상품명으로 찾습니다",
            "platform-map": "{1}: {2} 변환 규칙으로 읽습니다. HTML 상세설명은 구매자가 읽는 글로 보냅니다 (그대로 보내려면 --keep-html); 다른 규칙으로 읽으려면 --map FILE, 우리 열로 읽으려면 --map none",
            "sheet-chosen": "제목 행이 있는 시트를 읽었습니다 (앞의 시트는 안내문으로 보고 건너뜀)",
            "name-length": "상품명은 \(names)여야 합니다 (비어 있으면 새 상품을 만들 수 없습니다)",
            "name-duplicate": "다른 행과 같은 상품명입니다",
            "key-duplicate": "다른 행과 같은 상품코드입니다: 한 상품코드는 한 상품입니다",
            "key-excel": "엑셀이 상품코드를 숫자나 날짜로 바꾼 것 같습니다: 이 상품코드로는 새 상품을 만들지 않습니다 (열을 텍스트 형식으로 하고 다시 입력하세요)",
            "key-missing": "이 파일의 자체 상품코드 열이 비어 있거나 없습니다: 플랫폼의 상품번호는 이 쇼핑몰의 상품코드가 아닙니다. 자체 상품코드를 채우거나, 상품명으로 찾으려면 --key-by name 을 주세요 (콘솔에서는 상품코드를 채운 뒤 다시 확인)",
            "key-empty": "상품코드 열이 있는 시트인데 이 행의 상품코드가 비어 있습니다: 같은 이름의 다른 상품을 바꿀 수 있어 상품명으로 찾지 않습니다. 상품코드를 쓰거나, 상품코드 없는 행을 상품명으로 찾으려면 --key-by name 을 주세요",
            "stock-missing": "새 상품의 재고가 주어지지 않았습니다: 빈 재고는 0이 아니라 정해 주어야 합니다. 재고 열을 채우거나 --default-stock N 으로 새 상품이 시작할 재고를 주세요 (콘솔에서는 위의 양식에서 고르세요)",
            "id-format": "상품번호는 숫자여야 합니다",
            "row-identity": "어떤 상품인지 알 수 없습니다: 상품코드나 상품명을 쓰세요",
            "description-length": "설명이 너무 깁니다 (최대 \(ProductRules.descriptionMaxLength)자)",
            "description-html": "설명이 HTML입니다: 구매자가 읽는 글로 바꿔 보냅니다",
            "price-format": "숫자가 아닙니다: 12000 또는 12.50처럼 숫자로 쓰세요",
            "price-missing": "새 상품에는 가격이 필요합니다 (0 이상)",
            "price-negative": "가격은 0 이상이어야 합니다",
            "price-fraction": "이 통화에는 소수점 아래 금액이 없습니다: 정수로 쓰세요",
            "price-currency": "가격에 쓰인 통화 기호가 통화 열과 다릅니다",
            "price-whole": "이 서버(2021년 세대)는 정수 금액만 받습니다",
            "currency-unknown": "통화는 \(currencies) 중 하나여야 합니다",
            "currency-unstated": "통화가 필요합니다: 이 파일에는 통화가 없습니다 (위의 양식에서 고르세요)",
            "discount-format": "할인 금액이 숫자가 아닙니다",
            "discount-negative": "할인 금액은 0 이상이어야 합니다",
            "discount-fraction": "이 통화에는 소수점 아래 금액이 없습니다: 할인 금액을 정수로 쓰세요",
            "discount-over-price": "할인 금액이 가격보다 클 수 없습니다",
            "discount-looks-like-sale-price": "할인 금액이 가격의 절반이 넘습니다: 할인된 판매가라면 열 이름을 할인가(sale_price)로 하세요",
            "sale-price-format": "할인가가 숫자가 아닙니다",
            "sale-price-without-price": "할인가에는 같은 행의 가격이 필요합니다",
            "sale-price-over-price": "할인가가 가격보다 클 수 없습니다",
            "sale-price-disagrees": "할인 금액 열과 할인가가 서로 다릅니다: 둘 중 하나만 두세요",
            "stock-integer": "재고는 0 이상의 정수, 또는 +5, -3 같은 변경량이어야 합니다",
            "stock-negative": "재고 수량은 0 이상이어야 합니다: 빼려면 상품코드와 재고만 있는 시트로 -3처럼 가져오세요",
            "stock-empty": "새 상품에는 재고 수량이 필요합니다: 빈 칸은 0이 아닙니다 (품절이면 0을 쓰세요)",
            "stock-change-new": "새 상품에는 변경량이 아닌 재고 수량이 필요합니다",
            "vendor-format": "판매자번호는 숫자여야 합니다",
            "images-count": "상품 사진은 \(photos)이어야 합니다 (여러 장은 ; , | 로 구분)",
            "images-folder": "상품코드 이름의 사진 폴더를 읽을 수 없습니다",
            "image-missing": "사진 파일이 없습니다",
            "image-unreadable": "사진 파일을 읽을 수 없습니다",
            "image-format": "JPEG, PNG, HEIC, WebP 사진이 아닙니다",
            "image-url": "사진 주소를 읽을 수 없습니다",
            "image-path-escape": "사진 폴더 밖의 파일입니다: 폴더 안에 두세요",
            "image-name-case": "대소문자만 다른 이름의 사진 파일을 찾았습니다",
            "image-name-ambiguous": "이름이 같은 사진 파일이 여럿입니다: 하나만 남기세요",
            "text-garbled": "인코딩이 잘못되어 글자가 깨진 것 같습니다: 시트를 UTF-8(CSV UTF-8)로 다시 저장하세요",
            "map-choice": "비교 가격이 판매가보다 높지 않아 판매가만 씁니다",
            "photos-left-out": "사진이 5장을 넘어 나머지(값 칸의 사진)는 빼고 보냅니다",
            "row-left-out": "이 행은 보내지 않습니다: {1}",
            "options-mismatch": "옵션이 맞지 않습니다 (값 칸): 옵션값마다 옵션가와 옵션 재고수량이 순서대로 하나씩 있어야 합니다",
            "cell-too-long": "칸 하나가 1MB를 넘습니다: openmarket은 1MB까지의 칸만 읽습니다 (상세설명은 1,000자까지 보냅니다). 이 행은 읽지 않습니다",
            "options-stock": "이 행의 재고는 옵션 전체의 합계입니다: 옵션별 재고가 파일에 없어 옵션마다 보내지 않습니다 (옵션별 재고 열을 채우세요)",
            "row-off-sale": "판매하지 않는 행입니다 (열과 값이 그렇게 말합니다): 쇼핑몰의 상품은 재고 0이 되고 새 상품은 만들지 않습니다; 위의 “판매하지 않는 행도 포함”을 선택하면 판매 중인 상품으로 보냅니다",
            "feed-column-absent": "변환 규칙의 열이 파일에 없습니다: 그 항목은 쇼핑몰 값 그대로 둡니다",
            "price-guard": "가격이 허용 변경 폭(--max-price-change)보다 많이 바뀝니다: 시트를 확인하세요 (맞는 가격이면 --force, 콘솔에서는 '보류된 가격 변경도 보내기'로 보냅니다)",
            "stock-below-zero": "재고가 0보다 적어질 수 없습니다",
            "stock-back-on-sale": "이전 행이 판매를 멈춘(재고 0) 상품을 다시 판매하는데 시트에 재고 열이 없습니다: 재고 열을 넣거나 --default-stock N 으로 다시 시작할 재고를 주세요 (콘솔에서는 위의 양식에서 고르세요)",
            "mode-update-missing": "이 상품코드나 상품명의 상품이 없습니다: --mode update는 있는 상품만 바꿉니다",
            "max-creates": "이번 실행에서 만들 수 있는 상품 수(--max-creates)를 다 채워 만들지 않았습니다",
            "max-updates": "이번 실행에서 바꿀 수 있는 상품 수(--max-updates)를 다 채워 바꾸지 않았습니다",
            "cell-date": "날짜 칸입니다: 상품 열에는 날짜가 없으므로 보이는 글자 그대로 읽습니다",
            "cell-formula": "저장된 값이 없는 수식입니다: 엑셀에서 열어 저장하거나 값으로 붙여 넣으세요",
            "cell-error": "엑셀 오류 값입니다: 수식을 고치거나 값을 직접 쓰세요",
            "cell-number-rounded": "15자리가 넘는 숫자라 엑셀이 이미 반올림했습니다: 열을 텍스트 형식으로 바꾸고 다시 쓰세요",
            "cell-string": "통합 문서에 없는 공유 문자열을 가리킵니다 (파일이 손상됨)",
            "column-unheaded": "제목이 없는 열에 값이 있습니다: 읽지 않습니다 (제목을 쓰면 읽습니다)",
            "cost-format": "공급가가 숫자가 아닙니다: 8200 또는 8,200원처럼 쓰세요",
            "cost-negative": "공급가는 0 이상이어야 합니다",
            "map-parent-missing": "상위 상품 행이 파일에 없습니다: 상위 상품의 정보 없이 읽습니다",
        ]
    }()
}
