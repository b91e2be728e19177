import Foundation
import Manifest

/// How a platform's export spreads a product over its rows (`[rows]` of a map file):
///
/// - `group_by = "Handle"`: rows with the same cell are one product's rows; the first is
///   the group's head;
/// - `parent = "Parent"`, `parent_ids = ["ID", "SKU"]`: a row whose `Parent` cell names
///   another row (`id:12` by the first column, else by the others) is in that row's group,
///   which is its head;
/// - `fill_down = ["Title", …]`: a blank cell of these takes the head's;
/// - `products = ["Option1 Value", "Variant Price"]`: a row is a product when one of these
///   is not blank; the others are rows of the group's photos (default: every row);
/// - `blank = { "Option1 Value" = "Default Title" }`: cells read as blank;
/// - `not_rows = ["필수", "비필수"]`: a row whose every cell that is not blank is one of these
///   words is no product (the notes row of a platform's upload form, under its header);
/// - `guide = ["입력", "예시"]`: a row among the first `guideDepth` under the header with one of
///   these words in a cell is the form's guide (how to fill each column), no product.
public struct RowLayout: Sendable {
    public var groupBy: HeaderRef?
    public var parent: HeaderRef?
    public var parentIDs: [HeaderRef] = []
    public var fillDown: [HeaderRef] = []
    public var products: [HeaderRef] = []
    public var blank: [CellTest] = []
    public var notRows: Set<String> = []
    public var guide: [String] = []
    /// How far under the header a guide row is looked for.
    static let guideDepth = 3

    public init() {}

    /// Whether a row near the header is the form's guide (a cell holds one of `guide`'s words).
    func isGuide(_ cells: [String]) -> Bool {
        !guide.isEmpty && cells.contains { cell in guide.contains { cell.contains($0) } }
    }

    /// Whether a row's cells are only the words of `not_rows` (and blanks).
    func isNotRow(_ cells: [String]) -> Bool {
        guard !notRows.isEmpty else { return false }
        var words = 0
        for cell in cells {
            let text = cell.trimmingCharacters(in: .whitespacesAndNewlines)
            if text.isEmpty { continue }
            guard notRows.contains(text) else { return false }
            words += 1
        }
        return words > 0
    }

    var headers: [HeaderRef] {
        [groupBy, parent].compactMap { $0 } + parentIDs + fillDown + products + blank.map(\.source)
    }
}

/// Where a product's photos are (`[photos]` of a map file): the `from` columns in their order
/// (Cafe24's main photo, then its further ones), of the product's row (`group = false`) or of
/// every row of its group in `order`; `own` first (a variant's photo); `split` the separators
/// of a cell holding a list (`|`, or a line break and a comma); at most `most`, a note naming
/// the others.
public struct PhotoRule: Sendable {
    public var from: [HeaderRef]
    public var order: HeaderRef?
    public var own: HeaderRef?
    public var split: [String] = []
    public var wholeGroup = false
    public var most = 5

    public init(from: [HeaderRef]) {
        self.from = from
    }

    var headers: [HeaderRef] { from + [order, own].compactMap { $0 } }
}

/// How a map file is chosen by a sheet's header, with no flag (`[detect]`): every one of
/// `headers` is in the header row, and one of `any` when it names some. `title` is what the
/// note calls the file ("a Shopify product export"); `asks_currency` when such a file states
/// no currency; `needs_key` when a row without the merchant's key must not be matched by its
/// name (the platform's own code is beside it, and is no key of this shop). `platform` names the
/// platform's own columns, told by a looser header (`platform_headers`, `platform_any`) even where
/// the map does not read the sheet: `own_numbers` are never read, `own_key` is the merchant's key.
public struct MapDetection: Sendable {
    public var headers: [String]
    public var any: [String] = []
    public var title: String
    /// The platform as its merchants write it (`Naver SmartStore`): notes, help, the console's menu.
    public var label: String?
    /// `title` in Korean (`카페24 상품 파일`).
    public var koreanTitle: String?
    /// Other names `--map` takes for it (`naver`).
    public var aliases: [String] = []
    public var asksCurrency = false
    public var needsKey = false
    public var platform: PlatformColumns?

    public init(headers: [String], title: String) {
        self.headers = headers
        self.title = title
    }

    func matches(_ header: [String]) -> Bool {
        let present = Set(header.map(HeaderMatch.normalise))
        return headers.allSatisfy { present.contains(HeaderMatch.normalise($0)) }
            && (any.isEmpty || any.contains { present.contains(HeaderMatch.normalise($0)) })
    }
}
