/// The maps of the two platforms the merchants this tool serves first sell on: Cafe24's product
/// file and Naver SmartStore's workbooks. What they read and why: docs/cafe24.md, docs/smartstore.md.
enum KoreanMaps {
    static let cafe24 = """
    # Cafe24's product file (쇼핑몰 관리자 › 상품 › 상품 엑셀 다운로드, CSV in UTF-8 or CP949),
    # read as openmarket's products: one product a row.
    description = "A Cafe24 product file: one product a row"

    # 상품코드 (P0000BAA) is Cafe24's own code, never this shop's key: the merchant's code is
    # 자체 상품코드, and a row without it fails naming it (--key-by name matches by name instead).
    [detect]
    headers = ["상품코드", "상품명", "판매가", "이미지등록(상세)"]
    title = "a Cafe24 product file"
    needs_key = true
    # Read as our own columns (--map none, another layout), 상품번호 and 상품코드 are Cafe24's own
    # numbers (not read) and 자체 상품코드 is the merchant's key.
    platform = "Cafe24"
    platform_headers = ["자체 상품코드"]
    own_numbers = ["상품번호", "상품코드"]
    own_key = "자체 상품코드"

    # 이미지등록(상세) is the product's photo, 이미지등록(추가) its further ones ("|" between them);
    # 목록, 작은목록 and 축소 are thumbnails of the same photo, not more photos.
    [photos]
    from = ["이미지등록(상세)", "이미지등록(추가)"]
    split = "|"
    most = 5

    [columns]
    key = "자체 상품코드"
    name = "상품명"
    description = ["{상품 상세설명}", "{모바일 상품 상세설명}", "{상품 간략설명}", "{상품 요약설명}"]
    # 판매가 is what the buyer pays; a 소비자가 above it is the list price, and the difference the discount.
    price = { value = "소비자가", when_above = "판매가", else = "판매가", quiet = true }
    sale_price = { value = "판매가", when_below = "소비자가", quiet = true }

    # 판매상태 N is not on sale: left out unless --include-inactive.
    [filter]
    active = { "판매상태" = "Y" }
    """

    static let smartStore = """
    # Naver SmartStore's workbooks, read as openmarket's products: the bulk-registration form
    # (상품 일괄등록: a section row, the header, a row of 필수/비필수 under it, a guide sheet) and
    # the product list it downloads (상품 조회/수정 › 엑셀 다운로드). One product a row.
    description = "A Naver SmartStore workbook: one product a row"

    # 상품번호 and 상품번호(스마트스토어) are SmartStore's own numbers, never this shop's: the
    # merchant's code is 판매자 상품코드, and a row without it fails naming it.
    [detect]
    headers = ["판매자 상품코드", "상품명", "판매가"]
    any = ["재고수량", "대표이미지", "대표이미지 파일명", "추가이미지", "상품번호(스마트스토어)", "원상품번호", "즉시할인 값", "즉시할인 값(기본할인)"]
    title = "a Naver SmartStore workbook"
    needs_key = true
    # Read as our own columns (--map none, another layout), 상품번호 is SmartStore's own number: not read.
    platform = "Naver SmartStore"
    platform_headers = ["상품번호"]
    platform_any = ["판매자 상품코드", "원상품번호", "판매상태", "재고수량", "대표이미지", "상품상태", "스마트스토어 상품번호"]
    own_numbers = ["상품번호"]

    [rows]
    not_rows = ["필수", "비필수", "조건부필수", "조건부 필수", "선택"]

    # 대표이미지 first, then 추가이미지 (a line break or a comma between them).
    [photos]
    from = ["대표이미지", "대표이미지 파일명", "대표이미지 URL", "추가이미지", "추가이미지 파일명", "추가이미지 URL"]
    split = ["\\n", ","]
    most = 5

    [columns]
    key = "판매자 상품코드"
    name = "상품명"
    description = "상세설명"
    price = "판매가"
    # 즉시할인 in 원, or in % of 판매가 (to the won below): 판매가 less it is what the buyer pays.
    discounted_price = { value = ["{즉시할인 값}", "{즉시할인 값(기본할인)}", "{PC 즉시할인 값}"], unit = ["{즉시할인 단위}", "{즉시할인 단위(기본할인)}", "{PC 즉시할인 단위}"], percent_of = "판매가" }
    stock = "재고수량"

    # A product-list download's 판매중지, 품절, 판매종료… are not on sale: left out unless --include-inactive.
    [filter]
    active = { "판매상태" = "판매중" }
    """
}
