/// A sheet exported by another platform, told by its header: its own numbers are not this
/// shop's. WooCommerce's `ID` is WooCommerce's post id; SmartStore's and Cafe24's `상품번호`
/// are theirs; Cafe24's `상품코드` is Cafe24's code (`P000000A`), while `자체 상품코드` is the
/// merchant's. Read as ours, such a number named an unrelated product of the shop and
/// overwrote it. In these layouts those columns are not read (a note says so).
enum PlatformLayout: Sendable {
    case wooCommerce, smartStore, cafe24

    /// The layout of a header (normalised, see `Column.normalise`), when it is surely another platform's.
    static func detect(_ headers: Set<String>) -> PlatformLayout? {
        if headers.contains("id"), headers.contains("type"),
           !headers.isDisjoint(with: ["regularprice", "published", "instock?", "isfeatured?", "visibilityincatalog"]) {
            return .wooCommerce
        }
        if headers.contains("자체상품코드") { return .cafe24 }
        if headers.contains("상품번호"),
           !headers.isDisjoint(with: ["판매자상품코드", "원상품번호", "판매상태", "재고수량", "대표이미지", "상품상태", "스마트스토어상품번호"]) {
            return .smartStore
        }
        return nil
    }

    var name: String {
        switch self {
        case .wooCommerce: "WooCommerce"
        case .smartStore: "Naver SmartStore"
        case .cafe24: "Cafe24"
        }
    }

    enum Reading: Equatable {
        /// Not read: the platform's own number.
        case ignored
        case column(Column)
    }

    /// How this layout reads a header (normalised) differently from ours; nil: as ours.
    func reading(_ header: String) -> Reading? {
        switch (self, header) {
        case (.wooCommerce, "id"): .ignored
        case (.smartStore, "상품번호"): .ignored
        case (.cafe24, "상품번호"), (.cafe24, "상품코드"): .ignored
        case (.cafe24, "자체상품코드"): .column(.key)
        default: nil
        }
    }

    /// The note for a column not read.
    func note(header: String, file: String) -> RowIssue {
        RowIssue(file: file, row: 1, column: nil, value: header, severity: .warning, rule: "column-other-platform",
                 message: "is \(name)'s own product number (the sheet is a \(name) export), not a product of this shop: not read; rows are matched by their key, else their name")
    }
}
