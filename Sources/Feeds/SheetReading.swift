import Foundation
import Manifest

/// How a sheet is read: the choices the command line takes as flags, the console as controls
/// on its pages and a feed from its file, made into the reader's options in one place (so
/// that every door reads one sheet the same way, with the same defaults).
public struct SheetReading: Sendable {
    /// Which map reads the sheet's columns.
    public enum Map: Sendable {
        /// Our own columns, unless the header is another platform's export a shipped map knows.
        case recognised
        /// Our own columns only (`--map none`).
        case none
        /// A shipped map by name (`--map cafe24`).
        case shipped(String)
        /// A feed file's map (`--feed FILE`, `--map FILE`, a feed's run).
        case feed(Feed)
    }

    public var map: Map = .recognised
    /// Rows a platform's export marks as not on sale are read too (`--include-inactive`).
    public var includeInactive = false
    /// Photos a platform's export names by URL are taken from this folder (`--images-from`).
    public var imagesFrom: URL?
    /// The folder relative photo names are under (`--images`, the console's folder).
    public var imagesFolder: URL?
    /// An http(s) or S3 address relative photo names are under instead.
    public var imagesAddress: URL?
    public var currency: String?
    public var currencies: [String]?
    public var encoding: TextEncoding?
    public var delimiter: Character?
    public var sheet = SheetChoice()
    public var defaultStock: Int?
    public var keepHTML = false
    public var ignoreID = false
    /// Rows without a key in a platform's file matched by name (`--key-by name`).
    public var keyByName = false
    /// The merchant answers on a page (the console), not with flags.
    public var answersOnPage = false
    /// The file is not the merchant's own writing (a feed's, an upload's): its photo paths must
    /// lead inside its folder (or `imagesFrom`), absolute ones too.
    public var confinePhotos = false
    /// Whether the photo files a row names must be there (false: their names are checked,
    /// not the files: a fuzzer's or a round trip's sheets name none that exist).
    public var checkPhotoFiles = true

    public init() {}

    /// As a feed's run reads its supplier's file: through its map, its relative photo names
    /// beside it (a dropped file's in its folder, a fetched file's at its URL, as a browser
    /// resolves a page's links), or where `[source] images` says.
    public init(feed: Feed) {
        map = .feed(feed)
        // A supplier's file names photos the supplier chose: only from where the merchant put them.
        confinePhotos = true
        switch feed.run.source {
        case .path(let path, _)?: imagesFolder = URL(fileURLWithPath: path).deletingLastPathComponent()
        case .url(let address, _, _)?:
            if let url = URL(string: address), ["http", "https"].contains(url.scheme?.lowercased() ?? "") { imagesAddress = url }
        case nil: break
        }
        if let images = feed.run.images {
            if images.contains("://") {
                imagesAddress = URL(string: images.hasSuffix("/") ? images : images + "/")
                imagesFolder = nil
            } else {
                imagesAddress = nil
                imagesFolder = URL(fileURLWithPath: images, isDirectory: true)
            }
        }
    }

    /// The reader's options: the one place they are made.
    public var options: ValidationOptions {
        var options = ValidationOptions()
        switch map {
        case .recognised: options.platformMaps = ShippedMaps.all(includeInactive: includeInactive, imagesFrom: imagesFrom)
        case .none: options.platformMaps = ShippedMaps.guards()
        case .shipped(let name):
            options.mapping = ShippedMaps.named(name, includeInactive: includeInactive, imagesFrom: imagesFrom)?.mapping
        case .feed(let feed):
            options.mapping = FeedMapping(feed: feed, includeInactive: includeInactive, imagesFrom: imagesFrom)
        }
        options.imagesDirectory = imagesFolder
        options.imagesBaseURL = imagesAddress
        options.currency = currency?.uppercased()
        if let currencies { options.currencies = currencies.map { $0.uppercased() } }
        options.encoding = encoding
        options.delimiter = delimiter
        options.sheet = sheet
        options.defaultStock = defaultStock
        options.keepHTML = keepHTML
        options.ignoreID = ignoreID
        options.keyByName = keyByName
        options.answersOnPage = answersOnPage
        options.checkImageFiles = checkPhotoFiles
        options.confinePhotos = confinePhotos
        options.photoFolders = [imagesFrom].compactMap { $0 }
        return options
    }
}
