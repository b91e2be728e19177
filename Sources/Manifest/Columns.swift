/// The columns a manifest may have, with the names merchants use for them
/// in English and Korean. Matching ignores case, spaces and underscores.
public enum Column: String, CaseIterable, Sendable, Codable {
    case id
    case key
    case name
    case description
    case price
    case currency
    case discountedPrice = "discounted_price"
    case stock
    case images
    /// The price after the discount, as merchants' sheets state it more often than the
    /// discount: read as a discount of price − sale price (the API's `discounted_price` is the
    /// discount amount). Not a field of its own: exports write the discount.
    case salePrice = "sale_price"
    /// The vendor a row's product belongs to, in an export of several vendors (`--vendor
    /// all`): import takes only the account's own rows, and names the others.
    case vendor

    /// Every accepted header, normalised (see `normalise`).
    public var aliases: [String] {
        switch self {
        case .id: ["id", "상품번호", "productid"]
        case .key: ["key", "sku", "상품코드", "판매자상품코드", "관리코드", "merchantkey", "handle"]
        case .name: ["name", "상품명", "productname", "이름"]
        case .description: ["description", "설명", "상품설명"]
        case .price: ["price", "가격", "판매가"]
        case .currency: ["currency", "통화"]
        case .discountedPrice: ["discountedprice", "discount", "할인금액", "할인"]
        case .stock: ["stock", "재고", "수량", "재고수량"]
        case .images: ["images", "image", "이미지", "사진"]
        case .salePrice: ["saleprice", "할인가", "할인판매가", "세일가", "discountedpricefinal"]
        case .vendor: ["vendor", "vendorid", "판매자번호"]
        }
    }

    /// The known columns as an unknown-column message lists them: each name with its Korean
    /// one (`price (가격)`), since merchants' sheets use either.
    public static var known: String {
        allCases.map { column in
            column.koreanName.map { "\(column.rawValue) (\($0))" } ?? column.rawValue
        }.joined(separator: ", ")
    }

    /// The first Korean header this column is read by (`가격` for price).
    public var koreanName: String? {
        aliases.first { $0.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) } }
    }

    /// Lower case, without spaces, underscores, hyphens or a byte-order mark (also one read as
    /// Latin-1, `ï»¿`, as LibreOffice reads a UTF-8 file it was told is Western European).
    public static func normalise(_ header: String) -> String {
        let header = header.hasPrefix("\u{EF}\u{BB}\u{BF}") ? String(header.dropFirst(3)) : header
        return String(header.lowercased().unicodeScalars.filter {
            !$0.properties.isWhitespace && $0 != "_" && $0 != "-" && $0 != "\u{FEFF}"
        }.map(Character.init))
    }

    private static let byAlias: [String: Column] = {
        var map: [String: Column] = [:]
        for column in Column.allCases { for alias in column.aliases { map[alias] = column } }
        return map
    }()

    /// By case, not by the raw string (which `RawRepresentable` would hash).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(slot)
    }

    public static func == (lhs: Column, rhs: Column) -> Bool { lhs.slot == rhs.slot }

    /// The column's place among `allCases`, without a search (`RowValues`, `ColumnSet`).
    var slot: Int {
        switch self {
        case .id: 0
        case .key: 1
        case .name: 2
        case .description: 3
        case .price: 4
        case .currency: 5
        case .discountedPrice: 6
        case .stock: 7
        case .images: 8
        case .salePrice: 9
        case .vendor: 10
        }
    }

    public init?(header: String) {
        guard let column = Self.byAlias[Self.normalise(header)] else { return nil }
        self = column
    }
}
