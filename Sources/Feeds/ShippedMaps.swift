import Foundation
import Manifest

/// The maps openmarket ships for other platforms' product files, chosen by a sheet's header
/// with no flag (`[detect]`). A platform is one map file in `Resources/maps/` (the feed file's
/// language, docs/maps.md): its name is the file's, its label and other names are in its
/// `[detect]`; the list, the detection and the help all come from the files. `openmarket
/// template --map NAME` writes one out to read or to change. What each maps and leaves out:
/// docs/shopify.md, docs/woocommerce.md, docs/cafe24.md, docs/smartstore.md, docs/coupang.md.
public enum ShippedMaps {
    /// One shipped map file, read.
    struct Shipped: Sendable {
        let name: String
        let text: String
        let feed: Feed
        var label: String { feed.detect?.label ?? name }
        func answers(to wanted: String) -> Bool {
            let lowered = wanted.lowercased()
            return lowered == name || feed.detect?.aliases.contains { $0.lowercased() == lowered } == true
        }
    }

    /// Every shipped map, read once. The texts are the project's own, tested: a mistake in one
    /// is a bug, not input. Ordered for detection: a map whose header test names more columns
    /// is asked first (SmartStore's product list before its form), then by name.
    static let shipped: [Shipped] = {
        let maps = files.map { url -> Shipped in
            let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
            let name = url.deletingPathExtension().lastPathComponent
            do { return Shipped(name: name, text: text, feed: try FeedFile.parse(text, url: URL(fileURLWithPath: "\(name).toml"))) }
            catch { preconditionFailure("shipped map \(name): \(error)") }
        }
        return maps.sorted {
            let (a, b) = ($0.feed.detect?.headers.count ?? 0, $1.feed.detect?.headers.count ?? 0)
            return a != b ? a > b : $0.name < $1.name
        }
    }()

    /// The maps' names, as `--map` takes them, in the order they are asked.
    public static var names: [String] { shipped.map(\.name) }

    /// The maps' names by their files alone, in alphabetical order, none read: for the help
    /// texts, which every command's start builds (reading every map there cost each command,
    /// `--version` too: 31 ms of CPU against 22 ms without).
    public static var listed: [String] { files.map { $0.deletingPathExtension().lastPathComponent } }

    /// The map files beside the program, by name.
    private static let files: [URL] = {
        guard let folder = Bundle.module.url(forResource: "maps", withExtension: nil),
              let files = try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil) else {
            preconditionFailure("the shipped maps are not beside the program (Resources/maps)")
        }
        let name = { (url: URL) in url.deletingPathExtension().lastPathComponent }
        return files.filter { $0.pathExtension == "toml" }.sorted { name($0) < name($1) }
    }()

    /// A shipped map's platform as its merchants write it (notes, the console's map menu).
    public static func displayName(_ name: String) -> String {
        shipped.first { $0.answers(to: name) }?.label ?? name
    }

    /// A shipped map's file text, by name (or another name it answers to).
    public static func text(_ name: String) -> String? {
        shipped.first { $0.answers(to: name) }?.text
    }

    /// Every shipped map, read as a door's options say (`--include-inactive`, `--images-from`).
    public static func all(includeInactive: Bool = false, imagesFrom: URL? = nil) -> [any PlatformMap] {
        names.compactMap { named($0, includeInactive: includeInactive, imagesFrom: imagesFrom) }
    }

    /// The shipped maps as guards only (`--map none`): no sheet is read with them, while another
    /// platform's own numbers in a sheet read as our columns are still left unread.
    public static func guards() -> [any PlatformMap] { names.compactMap { named($0) }.map(GuardOnly.init) }

    /// One shipped map by name (`--map shopify`).
    public static func named(_ name: String, includeInactive: Bool = false, imagesFrom: URL? = nil) -> ShippedMap? {
        guard let feed = feed(name) else { return nil }
        return ShippedMap(mapping: FeedMapping(feed: feed, includeInactive: includeInactive, imagesFrom: imagesFrom))
    }

    /// A shipped map read, by name: each text is parsed once (every check and plan asks for them).
    static func feed(_ name: String) -> Feed? {
        shipped.first { $0.answers(to: name) }?.feed
    }
}

/// A shipped map as a header chooses it.
public struct ShippedMap: PlatformMap {
    public let mapping: FeedMapping

    public var title: String { mapping.feed.detect?.title ?? mapping.feed.name }
    public var koreanTitle: String? { mapping.feed.detect?.koreanTitle }
    public var mapName: String { ShippedMaps.displayName(mapping.feed.name) }
    public var export: ExportKind? { mapping.export }

    public func matches(headers: [String]) -> Bool { mapping.feed.detect?.matches(headers) ?? false }
    public var platformColumns: PlatformColumns? { mapping.feed.detect?.platform }
    public func keepingCells() -> any HeaderMapping { mapping.keepingCells() }
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
    var koreanTitle: String? { map.koreanTitle }
    var mapName: String { map.mapName }
    func matches(headers: [String]) -> Bool { false }
    var platformColumns: PlatformColumns? { map.platformColumns }
    func knows(header: String) -> Bool { false }
    func bind(headers: [(Int, String)], file: String) throws(ManifestError) -> any BoundHeaderMapping {
        try map.bind(headers: headers, file: file)
    }
}
