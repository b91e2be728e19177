import Feeds
import Foundation
import Manifest
import Testing

/// Other platforms' product exports (fixtures built from Shopify's and WooCommerce's public
/// descriptions of their CSV columns), read with no flag as validate and import read them.
@Suite("Shopify and WooCommerce exports, read by the shipped maps")
struct PlatformExportTests {
    static func fixture(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/platforms/\(name)")
    }

    struct Read {
        var fileIssues: [RowIssue] = []
        var rows: [(raw: RawRow, draft: ProductDraft?, issues: [RowIssue])] = []
        var summary = ValidationSummary()
        func row(_ number: Int) -> (raw: RawRow, draft: ProductDraft?, issues: [RowIssue])? { rows.first { $0.raw.number == number } }
        func draft(key: String) -> ProductDraft? { rows.compactMap(\.draft).first { $0.key == key } }
        var drafts: [ProductDraft] { rows.compactMap(\.draft) }
    }

    static func read(_ url: URL, _ change: (inout ValidationOptions) -> Void = { _ in }) throws -> Read {
        var options = ValidationOptions()
        options.checkImageFiles = false
        options.platformMaps = ShippedMaps.all()
        change(&options)
        var read = Read()
        read.summary = try ManifestCheck.run(url, options: options, onFileIssue: { read.fileIssues.append($0) }) {
            read.rows.append(($0, $1, $2))
        }
        return read
    }

    @Test("Cafe24's photo columns, the same in row after row (one photo not on disk in the middle rows): every row says what its own photos are, on every thread")
    func samePhotosRowAfterRow() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cafe24-photos-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["a.jpg", "b.jpg"] { try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: folder.appendingPathComponent(name)) }
        var text = "상품코드,자체 상품코드,진열상태,판매상태,상품명,상품 상세설명,소비자가,판매가,옵션입력,이미지등록(상세),이미지등록(추가),재고수량\n"
        // Enough rows to be read in pieces on several threads; the middle third names missing.jpg.
        for row in 1...3_000 {
            let extra = (1_001...2_000).contains(row) ? "missing.jpg" : "b.jpg"
            text += "P\(row),SKU-\(row),Y,Y,녹차 \(row),<p>잎차</p>,12000,10000,,a.jpg,\(extra),5\n"
        }
        let url = folder.appendingPathComponent("cafe24.csv")
        try Data(text.utf8).write(to: url)
        let read = try Self.read(url) { $0.checkImageFiles = true; $0.currency = "KRW" }
        #expect(read.rows.count == 3_000)
        for (raw, draft, issues) in read.rows {
            let missing = issues.filter { $0.rule == "image-missing" }
            if (1_002...2_001).contains(raw.number) {
                #expect(missing.count == 1 && missing.first?.value == "missing.jpg" && draft == nil, "row \(raw.number): \(issues)")
            } else {
                #expect(missing.isEmpty && draft?.images.count == 2, "row \(raw.number): \(issues)")
            }
            if missing.count != ((1_002...2_001).contains(raw.number) ? 1 : 0) { return }
        }
        #expect(read.summary.withErrors == 1_000 && read.summary.valid == 2_000)
    }

    @Test("another platform's own number column is not read in that platform's layout, with a note, even read as our columns (--map none): the maps say which columns")
    func platformColumns() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("platform-columns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func read(_ text: String, _ map: SheetReading.Map = .none) throws -> Read {
            let url = folder.appendingPathComponent("\(UUID().uuidString).csv")
            try Data(text.utf8).write(to: url)
            var reading = SheetReading()
            reading.map = map
            reading.checkPhotoFiles = false
            var read = Read()
            read.summary = try ManifestCheck.run(url, options: reading.options, onFileIssue: { read.fileIssues.append($0) }) {
                read.rows.append(($0, $1, $2))
            }
            return read
        }
        func notes(_ read: Read) -> [RowIssue] { read.fileIssues + read.rows.flatMap(\.issues) }
        let woo = try read("ID,Type,SKU,Name,Published,Regular price,Stock,Images\n4021,simple,MUG-1,Mug,1,9000,3,a.jpg\n")
        #expect(notes(woo).contains { $0.rule == "column-other-platform" && $0.value == "ID" && $0.message.contains("WooCommerce") }, "\(notes(woo))")
        #expect(woo.drafts.first?.id == nil && woo.drafts.first?.key == "MUG-1", "\(notes(woo))")
        let smart = try read("상품번호,판매자상품코드,상품명,판매가,재고수량,이미지\n8812345,T-1,녹차 라떼,1000,3,a.jpg\n")
        #expect(notes(smart).contains { $0.rule == "column-other-platform" && $0.value == "상품번호" && $0.message.contains("Naver SmartStore") })
        #expect(smart.drafts.first?.id == nil, "\(notes(smart))")
        // Cafe24's layout without its photo columns: no map reads it, its own code still is no key.
        for map in [SheetReading.Map.none, .recognised] {
            let cafe = try read("상품코드,자체 상품코드,상품명,판매가,재고,이미지\nP000000A,OWN-1,녹차 라떼,1000,3,a.jpg\n", map)
            #expect(cafe.drafts.first?.key == "OWN-1" && cafe.drafts.first?.id == nil, "\(notes(cafe))")
            #expect(notes(cafe).filter { $0.rule == "column-other-platform" }.compactMap(\.value) == ["상품코드"], "\(notes(cafe))")
        }
        // Our own sheet's id column is read as before.
        let ours = try read("id,key,name,price,stock,images\n17,T-1,녹차 라떼,1000,3,a.jpg\n")
        #expect(ours.drafts.first?.id == 17 && !notes(ours).contains { $0.rule == "column-other-platform" })
        // A map file's [detect] says a platform's columns only with its name beside them.
        #expect(throws: FeedFileError.self) {
            try FeedFile.parse("[detect]\nheaders = [\"A\"]\nown_numbers = [\"A\"]\n[columns]\nname = \"A\"\n", url: URL(fileURLWithPath: "x.toml"))
        }
    }

    @Test("Shopify: one product per variant, named as Shopify's admin names it, keyed by SKU, compare-at as the discount, photos gathered")
    func shopify() throws {
        let read = try Self.read(Self.fixture("shopify-products_export.csv")) { $0.currency = "USD"; $0.defaultStock = 10 }
        #expect(read.fileIssues.contains { $0.rule == "platform-map" && $0.message.hasPrefix("a Shopify product export: read with the Shopify map") })
        // 4 variants + the mug + the poster on sale; the draft and the archived are not on sale (their
        // stock 0 only, for a product the shop holds); photo rows are no rows.
        let onSale = read.drafts.filter { $0.offSale == nil }
        #expect(onSale.count == 6 && read.summary.offSale == 2 && read.summary.skipped == 0, "\(read.rows.map { ($0.raw.number, $0.issues) })")
        #expect(onSale.map(\.fields.name) == ["Example T-Shirt - Green / S", "Example T-Shirt - Green / M", "Example T-Shirt - Blue / S",
                                              "Example T-Shirt - Blue / M", "Plain Mug", "City Poster - A3"])
        let green = try #require(read.draft(key: "TS-GRN-S"))
        // Compare-at 24.99 above 19.99: the price is 24.99, 5.00 off.
        #expect(green.fields.price.amount == Decimal(string: "24.99") && green.fields.discountedPrice.amount == Decimal(string: "5.00"))
        #expect(green.fields.currency == "USD" && green.fields.stock == 12)
        #expect(green.fields.description == "Soft cotton tee.\n\nWash cold & dry flat.", "\(green.fields.description)")
        // The variant's own photo first, then the product's by position (front 1, side 2, back 3).
        #expect(green.images.map(\.display).map { URL(string: $0)!.lastPathComponent } == ["tee-green.jpg", "tee-front.jpg", "tee-side.jpg", "tee-back.jpg"])
        #expect(read.draft(key: "TS-GRN-M")?.fields.stock == 0)
        // Compare-at equal to or below the price: the price alone, with a note.
        let blue = try #require(read.draft(key: "TS-BLU-M"))
        #expect(blue.fields.price.amount == 21 && blue.fields.discountedPrice.amount == 0)
        #expect(read.row(5)?.issues.contains { $0.rule == "map-choice" && $0.message.contains("18.00 is not above Variant Price 21.00") } == true)
        #expect(read.draft(key: "TS-BLU-S")?.fields.price.amount == 21)
        // No SKU: the handle (no options: "Default Title" is no option); untracked: --default-stock.
        let mug = try #require(read.draft(key: "plain-mug"))
        #expect(mug.fields.name == "Plain Mug" && mug.fields.stock == 10 && mug.images.count == 2)
        // Seven photos: five kept, a note names the two left out.
        let poster = try #require(read.draft(key: "POS-A3"))
        #expect(poster.images.count == 5)
        #expect(read.rows.first { $0.draft?.key == "POS-A3" }?.issues.contains { $0.rule == "photos-left-out" && $0.message.contains("poster-6.jpg, ") && $0.message.contains("poster-7.jpg") } == true)
        // Draft and archived: not on sale, saying by which cell; only the stock (0) is sent, nothing else.
        let off = read.drafts.filter { $0.offSale != nil }
        #expect(Set(off.compactMap(\.offSale).map { "\($0.column)=\($0.value)" }) == ["Status=draft", "Status=archived"], "\(off)")
        #expect(off.allSatisfy { $0.given == [.name, .stock] && $0.fields.stock == 0 && $0.createProblems.isEmpty && $0.images.isEmpty })
        // Shopify's numbers (none here but its own ids) are never ours.
        #expect(read.drafts.allSatisfy { $0.id == nil })
    }

    @Test("Shopify: without --currency and --default-stock a new product fails naming them; --include-inactive reads drafts")
    func shopifyAsks() throws {
        let read = try Self.read(Self.fixture("shopify-products_export.csv"))
        // Only the two rows not on sale make drafts: their stock alone, no amount, no currency asked.
        #expect(read.drafts.allSatisfy { $0.offSale != nil } && read.drafts.count == 2 && read.row(2)?.issues.contains { $0.rule == "currency-unstated" && $0.severity == .error && $0.message.contains("--currency USD") } == true)
        let stocked = try Self.read(Self.fixture("shopify-products_export.csv")) { $0.currency = "USD" }
        let mug = try #require(stocked.draft(key: "plain-mug"))
        #expect(mug.createProblems.contains { $0.rule == "stock-empty" && $0.message.contains("--default-stock N") && $0.message.contains("available without a count") })
        let all = try Self.read(Self.fixture("shopify-products_export.csv"), { $0.currency = "USD" }, includeInactive: true)
        #expect(all.drafts.count == 8 && all.summary.skipped == 0 && all.summary.offSale == 0 && all.drafts.allSatisfy { $0.offSale == nil })
    }

    @Test("WooCommerce: simple products and variations are products; variable, grouped and external rows are not, each with a note")
    func wooCommerce() throws {
        let read = try Self.read(Self.fixture("woocommerce-product-export.csv")) { $0.currency = "USD"; $0.defaultStock = 10 }
        #expect(read.fileIssues.contains { $0.rule == "platform-map" && $0.message.contains("a WooCommerce product export") })
        #expect(Set(read.drafts.filter { $0.offSale == nil }.compactMap(\.key)) == ["WOO-BEANIE", "WOO-HOODIE-RED", "WOO-HOODIE-BLUE", "WOO-ALBUM"])
        // Published -1 (a draft): not on sale, its stock 0 for a product the shop holds.
        #expect(read.draft(key: "WOO-SCARF")?.offSale == OffSale(column: "Published", value: "-1"))
        #expect(read.drafts.contains { $0.key == nil && $0.fields.name == "Cap" })
        let beanie = try #require(read.draft(key: "WOO-BEANIE"))
        // Regular price → price, sale price → the discount.
        #expect(beanie.fields.price.amount == 20 && beanie.fields.discountedPrice.amount == 2 && beanie.fields.stock == 12)
        #expect(beanie.images.count == 2)
        // A variation: its own name; its parent's description and photos where it has none.
        let red = try #require(read.draft(key: "WOO-HOODIE-RED"))
        #expect(red.fields.name == "Hoodie - Red" && red.fields.description == "Warm hoodie with a pocket." && red.images.count == 2)
        #expect(red.fields.stock == 5 && red.fields.price.amount == 45)
        let blue = try #require(read.draft(key: "WOO-HOODIE-BLUE"))
        #expect(blue.fields.description == "The blue one." && blue.images.map { URL(string: $0.display)!.lastPathComponent } == ["hoodie-blue.jpg"])
        // Out of stock (In stock? 0) is 0; in stock with no count is --default-stock.
        #expect(blue.fields.stock == 0 && blue.fields.discountedPrice.amount == 5)
        #expect(read.draft(key: "WOO-ALBUM")?.fields.stock == 10)
        let left = Dictionary(uniqueKeysWithValues: read.rows.compactMap { row in row.raw.origin?.skipped.map { (row.raw.number, $0) } })
        #expect(left[3]?.contains("Type is variable") == true && left[6]?.contains("Type is grouped") == true && left[7]?.contains("Type is external") == true)
        #expect(left.count == 3, "\(left)")
        // WooCommerce's ID is never an Open Market id.
        #expect(read.drafts.allSatisfy { $0.id == nil })
    }

    @Test("the exports as LibreOffice saves them (.xlsx, .ods; a byte-order mark read as ï»¿): the same products")
    func savedByLibreOffice() throws {
        for (csv, saved) in [("shopify-products_export.csv", "shopify-products_export-libreoffice.xlsx"),
                             ("woocommerce-product-export.csv", "woocommerce-product-export-libreoffice.ods")] {
            let original = try Self.read(Self.fixture(csv)) { $0.currency = "USD"; $0.defaultStock = 1 }
            let again = try Self.read(Self.fixture(saved)) { $0.currency = "USD"; $0.defaultStock = 1 }
            #expect(again.fileIssues.contains { $0.rule == "platform-map" }, "\(saved): \(again.fileIssues)")
            #expect(again.drafts.map(\.key) == original.drafts.map(\.key) && again.drafts.map(\.fields.name) == original.drafts.map(\.fields.name))
            #expect(again.drafts.map(\.fields.price) == original.drafts.map(\.fields.price) && again.drafts.map(\.images.count) == original.drafts.map(\.images.count))
            #expect(again.summary.skipped == original.summary.skipped && !original.drafts.isEmpty)
        }
    }

    @Test("--map none reads the export as our own columns; --map shopify and a map file are taken as given")
    func chosenMap() throws {
        let none = try Self.read(Self.fixture("shopify-products_export.csv")) { $0.platformMaps = [] }
        #expect(!none.fileIssues.contains { $0.rule == "platform-map" })
        let named = try Self.read(Self.fixture("shopify-products_export.csv")) {
            $0.platformMaps = []
            $0.mapping = ShippedMaps.named("shopify")?.mapping
            $0.currency = "USD"
        }
        #expect(named.drafts.filter { $0.offSale == nil }.count == 6 && named.summary.offSale == 2)
    }

    @Test("the map language: a text of fields drops empty parts with their separators; the first not empty; choices; words")
    func language() throws {
        let file = try SupplierFile()
        defer { file.cleanup() }
        let url = try file.write("""
            code,title,colour,size,list,sale,qty,tracked,flag
            A,Shirt,Red,L,10,8,3,yes,1
            ,Shirt,,M,10,12,,,0
            """, named: "s.csv")
        let read = try file.read(url, """
            [columns]
            key = ["{code}", "{title}-{size}"]
            name = "{title} ({colour}, {size})"
            price = { value = "list", when_above = "sale", else = "sale" }
            sale_price = { value = "sale", when_below = "list", quiet = true }
            stock = [{ value = "qty", when_set = "tracked", quiet = true }, { value = "flag", map = { "0" = "0", "1" = "" } }]
            [constants]
            currency = "KRW"
            """)
        let first = try #require(read.row(2)?.draft)
        #expect(first.key == "A" && first.fields.name == "Shirt (Red, L)" && first.fields.price.amount == 10 && first.fields.discountedPrice.amount == 2)
        #expect(first.fields.stock == 3)
        let second = try #require(read.row(3)?.draft, "\(String(describing: read.row(3)?.issues))")
        #expect(second.key == "Shirt-M" && second.fields.name == "Shirt (M)" && second.fields.price.amount == 12 && second.fields.discountedPrice.amount == 0)
        #expect(second.fields.stock == 0)
        #expect(read.row(3)?.issues.contains { $0.rule == "map-choice" && $0.message == "list 10 is not above sale 12: sale 12 is used" } == true)
    }

    @Test("a map file's mistakes name the line and the key")
    func mistakes() throws {
        func problem(_ text: String) -> FeedFileError? {
            do { _ = try FeedFile.parse(text, url: URL(fileURLWithPath: "/m.toml")); return nil } catch { return error }
        }
        #expect(problem("[columns]\nkey = \"a\"\nprice = { value = \"x\", when_above = \"y\", when_below = \"z\" }\n")?.description
            == "/m.toml, line 3, columns.price: one of when_above, when_below, when_set")
        #expect(problem("[columns]\nkey = \"a\"\n[rows]\nparent = \"Parent\"\n")?.description.contains("parent needs parent_ids") == true)
        #expect(problem("[columns]\nkey = \"a\"\n[photos]\norder = \"n\"\n")?.description.contains("[photos] needs from") == true)
        #expect(problem("[columns]\nkey = \"a\"\nstock = { value = \"q\", else = \"r\" }\n")?.description.contains("else needs a test") == true)
        // Both shipped maps are read without a mistake.
        for name in ShippedMaps.names { #expect(ShippedMaps.named(name) != nil) }
    }
}

extension PlatformExportTests {
    @Test("a supplier's feed may read a Shopify export with the shipped map, adding its currency")
    func feedWithShippedMap() throws {
        let feed = try FeedFile.parse("map = \"shopify\"\n[constants]\ncurrency = \"USD\"\n[source]\nurl = \"https://supplier.example/products_export.csv\"\n",
                                      url: URL(fileURLWithPath: "/feeds/acme.toml"))
        let read = try Self.read(Self.fixture("shopify-products_export.csv")) {
            $0.platformMaps = []
            $0.mapping = FeedMapping(feed: feed)
            $0.defaultStock = 3
        }
        let onSale = read.drafts.filter { $0.offSale == nil }
        #expect(onSale.count == 6 && onSale.allSatisfy { $0.fields.currency == "USD" }, "\(read.rows.map(\.issues))")
        #expect(read.draft(key: "plain-mug")?.fields.stock == 3 && feed.run.source != nil)
        func problem(_ text: String) -> String? {
            do { _ = try FeedFile.parse(text, url: URL(fileURLWithPath: "/f.toml")); return nil } catch { return error.description }
        }
        #expect(problem("map = \"etsy\"\n") == "/f.toml, line 1, map: must be one of \"11st\", \"cafe24\", \"coupang\", \"esm\", \"shopify\", \"smartstore\", \"smartstore-list\", \"woocommerce\" (a map openmarket ships)")
        #expect(problem("map = \"shopify\"\n[columns]\nkey = \"SKU\"\n")?.contains("takes its columns from that map") == true)
    }

    static func read(_ url: URL, _ change: (inout ValidationOptions) -> Void, includeInactive: Bool) throws -> Read {
        try read(url) {
            $0.platformMaps = ShippedMaps.all(includeInactive: includeInactive)
            change(&$0)
        }
    }
}
