import Foundation
import Manifest

/// The maps openmarket ships for other platforms' product exports, chosen by a sheet's
/// header with no flag (`[detect]`). Each is a map file in the feed file's language; `openmarket
/// template --map NAME` writes it out to read or to change. What they map, and what they
/// leave out and why: docs/shopify.md, docs/woocommerce.md, docs/cafe24.md, docs/smartstore.md.
public enum ShippedMaps {
    /// The maps' names, as `--map` takes them.
    public static let names = ["shopify", "woocommerce", "cafe24", "smartstore"]

    /// A shipped map's platform as its merchants write it (notes, the console's map menu).
    public static func displayName(_ name: String) -> String {
        switch name.lowercased() {
        case "shopify": "Shopify"
        case "woocommerce", "woo": "WooCommerce"
        case "cafe24": "Cafe24"
        case "smartstore", "naver": "Naver SmartStore"
        default: name
        }
    }

    /// A shipped map's file text, by name.
    public static func text(_ name: String) -> String? {
        switch name.lowercased() {
        case "shopify": shopify
        case "woocommerce", "woo": wooCommerce
        case "cafe24": KoreanMaps.cafe24
        case "smartstore", "naver": KoreanMaps.smartStore
        default: nil
        }
    }

    /// Every shipped map, read as a door's options say (`--include-inactive`, `--images-from`).
    public static func all(includeInactive: Bool = false, imagesFrom: URL? = nil, onPage: Bool = false) -> [any PlatformMap] {
        names.compactMap { named($0, includeInactive: includeInactive, imagesFrom: imagesFrom, onPage: onPage) }
    }

    /// The shipped maps as guards only (`--map none`): no sheet is read with them, while another
    /// platform's own numbers in a sheet read as our columns are still left unread.
    public static func guards() -> [any PlatformMap] { names.compactMap { named($0) }.map(GuardOnly.init) }

    /// One shipped map by name (`--map shopify`).
    public static func named(_ name: String, includeInactive: Bool = false, imagesFrom: URL? = nil, onPage: Bool = false) -> ShippedMap? {
        guard let feed = feed(name) else { return nil }
        var mapping = FeedMapping(feed: feed, includeInactive: includeInactive, imagesFrom: imagesFrom)
        mapping.onPage = onPage
        return ShippedMap(mapping: mapping)
    }

    /// A shipped map read, by name: each text is parsed once (every check and plan asks for them).
    static func feed(_ name: String) -> Feed? {
        switch name.lowercased() {
        case "shopify": shopifyFeed
        case "woocommerce", "woo": wooCommerceFeed
        case "cafe24": cafe24Feed
        case "smartstore", "naver": smartStoreFeed
        default: nil
        }
    }

    // The texts are the project's own, tested: a mistake in one is a bug, not input.
    private static let shopifyFeed = try! FeedFile.parse(shopify, url: URL(fileURLWithPath: "shopify.toml"))
    private static let wooCommerceFeed = try! FeedFile.parse(wooCommerce, url: URL(fileURLWithPath: "woocommerce.toml"))
    private static let cafe24Feed = try! FeedFile.parse(KoreanMaps.cafe24, url: URL(fileURLWithPath: "cafe24.toml"))
    private static let smartStoreFeed = try! FeedFile.parse(KoreanMaps.smartStore, url: URL(fileURLWithPath: "smartstore.toml"))

    static let shopify = """
    # Shopify's product export (Shopify admin › Products › Export), read as openmarket's products.
    # One product per variant, named as Shopify's admin names it ("Example T-Shirt - Green / S").
    description = "A Shopify product export: one product per variant"

    [detect]
    headers = ["Handle", "Title", "Body (HTML)", "Variant Price"]
    title = "a Shopify product export"
    asks_currency = true

    # A product's rows share its Handle; Shopify writes the product's own fields on the
    # first row only, and each further photo on a row of its own.
    [rows]
    group_by = "Handle"
    fill_down = ["Title", "Body (HTML)", "Status", "Option1 Name", "Option2 Name", "Option3 Name"]
    products = ["Option1 Value", "Variant SKU", "Variant Price"]
    blank = { "Option1 Value" = "Default Title" }

    # The variant's own photo first, then the product's in their position order.
    [photos]
    from = "Image Src"
    order = "Image Position"
    own = "Variant Image"
    whole_group = true
    most = 5

    [columns]
    key = ["{Variant SKU}", "{Handle}/{Option1 Value}/{Option2 Value}/{Option3 Value}"]
    name = "{Title} - {Option1 Value} / {Option2 Value} / {Option3 Value}"
    description = "Body (HTML)"
    # A compare-at price above the price is the price before the discount.
    price = { value = "Variant Compare At Price", when_above = "Variant Price", else = "Variant Price" }
    sale_price = { value = "Variant Price", when_below = "Variant Compare At Price", quiet = true }
    # A variant Shopify does not track (no inventory tracker) is available with no count:
    # --default-stock N says how many a new product starts with.
    stock = { value = "Variant Inventory Qty", when_set = "Variant Inventory Tracker", quiet = true }

    # Drafts and archived products are not on sale: left out unless --include-inactive.
    [filter]
    active = { "Status" = "active" }
    """

    static let wooCommerce = """
    # WooCommerce's product export (WooCommerce › Products › Export, CSV), read as openmarket's
    # products: simple products and variations; a variation takes its parent's description and
    # photos where it has none.
    description = "A WooCommerce product export: simple products and variations"

    [detect]
    headers = ["ID", "Type", "SKU", "Name", "Regular price"]
    title = "a WooCommerce product export"
    asks_currency = true
    # Read as our own columns (--map none, an older layout), ID is WooCommerce's post id: not read.
    platform = "WooCommerce"
    platform_headers = ["ID", "Type"]
    platform_any = ["Regular price", "Published", "In stock?", "Is featured?", "Visibility in catalog"]
    own_numbers = ["ID"]

    [rows]
    parent = "Parent"
    parent_ids = ["ID", "SKU"]
    fill_down = ["Description", "Short description", "Images"]

    [photos]
    from = "Images"
    split = ","
    most = 5

    [columns]
    key = "SKU"
    name = "Name"
    description = ["{Description}", "{Short description}"]
    price = "Regular price"
    sale_price = "Sale price"
    # A count when WooCommerce manages the stock; else in stock (1, or backorder) is available
    # with no count (--default-stock N), out of stock (0) is 0.
    stock = ["{Stock}", { value = "In stock?", map = { "1" = "", "backorder" = "", "0" = "0" } }]

    [filter]
    skip = { "Type" = ["variable", "grouped", "external"] }
    why = { variable = "a variable product is sold as its variations, each a product of its own", grouped = "a group of products that are rows of their own", external = "sold on another site, not a product of this shop" }
    # Published 0 (private) or -1 (draft) is not on sale: left out unless --include-inactive.
    active = { "Published" = "1" }
    """
}

/// A shipped map as a header chooses it.
public struct ShippedMap: PlatformMap {
    public let mapping: FeedMapping

    public var title: String { mapping.feed.detect?.title ?? mapping.feed.name }
    public var mapName: String { ShippedMaps.displayName(mapping.feed.name) }
    public var export: ExportKind? { mapping.export }

    public func matches(headers: [String]) -> Bool { mapping.feed.detect?.matches(headers) ?? false }
    public var platformColumns: PlatformColumns? { mapping.feed.detect?.platform }
    public func knows(header: String) -> Bool { mapping.knows(header: header) }
    public func bind(headers: [(Int, String)], file: String) throws(ManifestError) -> any BoundHeaderMapping {
        try mapping.bind(headers: headers, file: file)
    }
}

/// A shipped map that reads no sheet: only its platform's own columns are told (`--map none`).
struct GuardOnly: PlatformMap {
    let map: ShippedMap
    init(_ map: ShippedMap) { self.map = map }

    var title: String { map.title }
    var mapName: String { map.mapName }
    func matches(headers: [String]) -> Bool { false }
    var platformColumns: PlatformColumns? { map.platformColumns }
    func knows(header: String) -> Bool { false }
    func bind(headers: [(Int, String)], file: String) throws(ManifestError) -> any BoundHeaderMapping {
        try map.bind(headers: headers, file: file)
    }
}
