import ArgumentParser
import Feeds
import Foundation
import Manifest
import OpenMarketAPI

/// How a manifest is read: shared by `validate` and `import`.
struct ManifestOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Folder that relative image paths are under, or an s3://BUCKET/PREFIX (default: the manifest's folder).", valueName: "dir"))
    var images: String?

    @Option(name: .long, help: ArgumentHelp("Column delimiter: , ; or tab (default: detected).", valueName: "char"))
    var delimiter: Delimiter?

    @Option(name: .long, help: ArgumentHelp("utf-8, utf-16 (either byte order, with or without a byte-order mark), utf-16le, utf-16be or cp949 (default: detected).", valueName: "name"))
    var encoding: EncodingName?

    @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Accepted currencies.", valueName: "code"))
    var currencies: [String] = ProductRules.sandboxCurrencies

    @Option(name: .long, help: ArgumentHelp(
        "Excel workbook: the sheet to read, by name or by position among the visible sheets (default: the first visible sheet; hidden sheets are never read).",
        valueName: "name|N"))
    var sheet: String?

    @Option(name: .customLong("header-row"), help: ArgumentHelp(
        "Excel workbook: the header's row number as Excel shows it (default: the first row naming two known columns; rows above it are ignored).",
        valueName: "N"))
    var headerRow: Int?

    @Option(name: .long, help: ArgumentHelp(
        "A supplier's file: read it through this feed file (its columns, prices from costs, filter, protected fields). A path, or a name in ~/.config/openmarket/feeds/ (see `openmarket feed test`).",
        valueName: "feed"))
    var feed: String?

    @Option(name: .long, help: ArgumentHelp(
        "How to read the sheet's columns: \(ShippedMaps.listed.joined(separator: ", ")) (other platforms' product files, otherwise recognised by their header; docs/maps.md), a map file (a feed file's [columns], [rows], [photos]…), or none (our own columns, no platform recognised).",
        valueName: "name|file"))
    var map: String?

    @Option(name: .long, help: ArgumentHelp(
        "The currency of rows that state none (default: KRW, as Cafe24's and SmartStore's files are; a Shopify or WooCommerce export states none, so its new products need this).",
        valueName: "code"))
    var currency: String?

    @Flag(name: .customLong("include-inactive"), help: ArgumentHelp(
        "Another platform's export: read its drafts, archived and unpublished products too (default: left out, each with a note)."))
    var includeInactive = false

    @Option(name: .customLong("images-from"), help: ArgumentHelp(
        "A folder where you saved an export's photos: a photo address is read from the file there with its name (default: fetched from the address).",
        valueName: "dir"))
    var imagesFrom: String?

    @Option(name: .customLong("default-stock"), help: ArgumentHelp(
        "The stock a new product starts with where the sheet gives none: an empty stock cell, or no stock column at all (Cafe24's product file has none). Default: nothing: the row fails, since nothing given is not 0. An update keeps the shop's stock.",
        valueName: "N"))
    var defaultStock: Int?

    @Flag(name: .customLong("keep-html"), help: ArgumentHelp(
        "Send descriptions in HTML as they are (default: as the text a buyer reads: paragraphs and <br> become line breaks, tags are dropped, &amp; becomes &)."))
    var keepHTML = false

    @Option(name: .customLong("key-by"), help: ArgumentHelp(
        "name: rows whose key is empty are matched by their name — in a sheet with a key column, or in another platform's file whose rows lack the merchant's own code (자체 상품코드, 판매자 상품코드, 업체상품코드). Default: such a row fails naming the column; the platform's own code is never a key.",
        valueName: "name"))
    var keyBy: KeyBy?

    enum KeyBy: String, ExpressibleByArgument, CaseIterable {
        case key, name
    }

    @Flag(name: .customLong("ignore-id"), help: ArgumentHelp(
        "Read no id column: rows are matched by key, or name, only. Without it an id is used only where this account linked it to the row's key (or the product has the row's name)."))
    var ignoreID = false

    enum Delimiter: String, ExpressibleByArgument, CaseIterable {
        case comma = ",", semicolon = ";", tab = "tab"

        init?(argument: String) {
            switch argument {
            case ",": self = .comma
            case ";": self = .semicolon
            case "\t", "tab", "\\t": self = .tab
            default: return nil
            }
        }

        var character: Character {
            switch self {
            case .comma: ","
            case .semicolon: ";"
            case .tab: "\t"
            }
        }
    }

    struct EncodingName: ExpressibleByArgument {
        var encoding: TextEncoding
        init?(argument: String) {
            guard let encoding = TextEncoding(name: argument) else { return nil }
            self.encoding = encoding
        }
        static var allValueStrings: [String] { ["utf-8", "utf-16", "utf-16le", "utf-16be", "cp949"] }
    }

    func validate() throws {
        if let headerRow, headerRow < 1 { throw ValidationError(Console.say("arg_at_least", "--header-row", "1")) }
        if let defaultStock, defaultStock < 0 { throw ValidationError(Console.say("arg_at_least", "--default-stock", "0")) }
        if feed != nil && map != nil { throw ValidationError(Console.say("arg_feed_map")) }
        if let currency, !currencies.map({ $0.uppercased() }).contains(currency.uppercased()) {
            throw ValidationError(Console.say("arg_currency", currency, currencies.joined(separator: ", ")))
        }
    }

    /// How to read the manifest; with `--feed`, through the feed file (its mistakes are exit 2).
    func validation() throws -> ValidationOptions { try reading().options }

    /// How to read the manifest, as these flags say.
    func reading() throws -> SheetReading {
        var reading = SheetReading()
        let saved = imagesFrom.map { URL(fileURLWithPath: $0, isDirectory: true) }
        if let saved {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: saved.path, isDirectory: &isFolder), isFolder.boolValue else {
                throw CommandFailure(say: "f_images_from", saved.path, exitCode: .badInput)
            }
        }
        reading.imagesFrom = saved
        reading.includeInactive = includeInactive
        if let path = feed ?? map.flatMap({ ShippedMaps.text($0) == nil && $0 != "none" ? $0 : nil }) {
            do {
                reading.map = .feed(try FeedFile.load(FeedFile.locate(path)))
                // A supplier's file: its photo paths only from its folder (or --images, --images-from).
                reading.confinePhotos = feed != nil
            } catch {
                throw CommandFailure(error, exitCode: .badInput)
            }
        } else if let map {
            reading.map = map == "none" ? .none : .shipped(map)
        }
        reading.currency = currency
        if let images, S3Objects.isAddress(images) {
            // Photos on S3-compatible storage: relative names under that folder.
            reading.imagesAddress = URL(string: images.hasSuffix("/") ? images : images + "/")
        } else {
            reading.imagesFolder = images.map { URL(fileURLWithPath: $0) }
        }
        reading.currencies = currencies
        reading.encoding = encoding?.encoding
        reading.delimiter = delimiter?.character
        reading.sheet = SheetChoice(sheet: sheet, headerRow: headerRow)
        reading.defaultStock = defaultStock
        reading.keepHTML = keepHTML
        reading.ignoreID = ignoreID
        reading.keyByName = keyBy == .name
        return reading
    }
}
