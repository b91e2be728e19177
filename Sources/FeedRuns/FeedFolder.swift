import CatalogSync
import Feeds
import Foundation
import Words
import OpenMarketAPI
import ShopState
import Support

/// How a feed's run ended. The raw values are what `feed list` and the record say.
public enum FeedOutcome: String, Sendable, Codable, CaseIterable {
    /// Every row went through (or there was nothing to change).
    case done
    /// The source was the file that ran last time (304, or the same bytes): nothing read or sent.
    case unchanged
    /// Some rows failed (see the report); the next run tries them again.
    case rowsFailed = "rows-failed"
    /// A check held the file: nothing was sent.
    case held
    /// Another run of the same account was running: this one did nothing.
    case busy
    /// The source could not be fetched.
    case unreachable
    /// The shop could not be read or written, or the run stopped as a whole.
    case failed

    /// The state notifications follow: a message goes out when it changes.
    public var state: FeedState {
        switch self {
        case .done, .unchanged: .ok
        case .held: .held
        case .busy: .busy
        case .rowsFailed, .unreachable, .failed: .failed
        }
    }
}

/// A feed's state as its notifications follow it: one goes out when it changes.
public enum FeedState: String, Sendable, Codable {
    case ok, held, busy, failed
}

/// What a feed remembers between runs (`state.json` in its folder).
public struct FeedRecord: Sendable, Codable, Equatable {
    /// The conditional GET's validators and the bytes' hash of the last file that ran to the end.
    public var validators: SourceFetch.Validators?
    public var sourceHash: String?
    /// Rows of that file (left-out rows not counted), for `max_drop_percent`.
    public var rows: Int?
    public var lastOutcome: FeedOutcome?
    public var lastMessage: String?
    /// `lastMessage` by its words and numbers, for a reader of another language.
    public var lastPhrase: Phrase?
    public var lastRun: Date?
    public var lastSuccess: Date?
    public var lastReport: String?
    /// The state the last notification told (nil: none sent; ok is assumed).
    public var notifiedState: FeedState?
    /// The shop these runs wrote to, as `feed list` names it (the server; never a credential).
    public var shop: String?

    public init() {}
}

/// A feed's memory of one shop, under the state folder: its record, the last file that ran
/// (with its rows' fingerprints), the file being run, and the report folders of its runs.
/// Per feed *and* shop: what was sent to one shop says nothing of another (the same feed
/// pointed at a second shop sends everything there, not "unchanged").
/// With the account's state shared (`--state postgres://…`), the memory the next run's checks
/// compare with (the record and the rows' fingerprints) lives in the account's facts there, and
/// only there, so that a pod that starts empty each night knows the last file as the pod before
/// it did; the folder keeps the fetched file and the reports of this machine's runs.
public struct FeedFolder: Sendable {
    public let url: URL
    /// The account's shared state, when it has one.
    public var memory: LinkStore?

    public static let defaultRoot = UserFolders.state.appendingPathComponent("feeds")

    /// `$XDG_STATE_HOME/openmarket/feeds/NAME-TAG/shop-SHOP` (the tag tells two feed files of
    /// one name apart; SHOP is the account's tag, the link store's name).
    public init(feed: Feed, shop: String, root: URL = FeedFolder.defaultRoot) {
        url = Self.feedFolder(feed, root: root).appendingPathComponent("shop-\(shop)")
    }

    init(url: URL) { self.url = url }

    static func feedFolder(_ feed: Feed, root: URL) -> URL {
        root.appendingPathComponent("\(feed.name)-\(FNV.tag(feed.url.standardizedFileURL.path))")
    }

    /// Every shop this feed ran against on this machine (none: never run); with the shared
    /// state's database (`state`), each shop's memory is read from there.
    public static func shops(of feed: Feed, root: URL = FeedFolder.defaultRoot, state: StatePlace = .machine) -> [FeedFolder] {
        let folder = feedFolder(feed, root: root)
        return ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.lastPathComponent.hasPrefix("shop-") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
            .map { url in
                var shop = FeedFolder(url: url)
                if state.isShared {
                    let tag = String(url.lastPathComponent.dropFirst("shop-".count))
                    shop.memory = try? AccountState.store(tag: tag, folder: url, place: state)
                }
                return shop
            }
    }

    /// Remembers which feed file ran (so that `feed list` and `feed status` know feeds run
    /// from any path, not only those in the feeds folder).
    public static func remember(_ feed: Feed, root: URL = FeedFolder.defaultRoot) {
        let folder = feedFolder(feed, root: root)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try? Data(feed.url.standardizedFileURL.path.utf8).write(to: folder.appendingPathComponent("feed-file"), options: .atomic)
    }

    /// The feed files that ran from this state folder, wherever they are (still there).
    /// Where a merchant keeps feed files: `~/.config/openmarket/feeds/`.
    public static var configured: URL { UserFolders.config.appendingPathComponent("feeds") }

    /// The feed files of `folder`, by name.
    public static func feedFiles(in folder: URL = FeedFolder.configured) -> [URL] {
        ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.pathExtension == "toml" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// The feeds `feed list`, `feed status` and the console watch: every feed file in `folder`,
    /// and every feed that has run on this machine from any path.
    public static func watched(in folder: URL = FeedFolder.configured, root: URL = FeedFolder.defaultRoot) -> [URL] {
        var all = feedFiles(in: folder)
        var seen = Set(all.map { $0.standardizedFileURL.path })
        for url in knownFeedFiles(root: root) where seen.insert(url.standardizedFileURL.path).inserted { all.append(url) }
        return all
    }

    public static func knownFeedFiles(root: URL = FeedFolder.defaultRoot) -> [URL] {
        ((try? FileManager.default.contentsOfDirectory(at: root, includingPropertiesForKeys: nil)) ?? [])
            .compactMap { folder in (try? String(contentsOf: folder.appendingPathComponent("feed-file"), encoding: .utf8)) }
            .map { URL(fileURLWithPath: $0) }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
            .sorted { $0.path < $1.path }
    }

    public var reports: URL { url.appendingPathComponent("reports") }
    var incoming: URL { url.appendingPathComponent("incoming") }
    var last: URL { url.appendingPathComponent("last") }
    var fingerprints: URL { url.appendingPathComponent("last/rows.json") }
    private var recordURL: URL { url.appendingPathComponent("state.json") }

    /// The feed's name in the shared facts: `feed NAME-TAG record` and `… rows`.
    private func fact(_ part: String) -> String { "feed \(url.deletingLastPathComponent().lastPathComponent) \(part)" }

    /// The record: from the shared state when there is one (a fact it cannot read is an error:
    /// a run that forgot the last file would compare with nothing; one never written there is
    /// the folder's, written before the state was shared), else from the folder.
    public func record() throws -> FeedRecord {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let data = try remembered("record", file: recordURL) else { return FeedRecord() }
        return (try? decoder.decode(FeedRecord.self, from: data)) ?? FeedRecord()
    }

    /// Into the shared state when there is one, else into the folder: written whole under a
    /// temporary name, then renamed (a killed run leaves the old record).
    public func save(_ record: FeedRecord) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try remember(encoder.encode(record), as: "record", file: recordURL)
    }

    /// The rows' fingerprints of the last file that ran (row identity → hash of its values).
    func lastFingerprints() -> [String: UInt64]? {
        let text = ((try? remembered("rows", file: fingerprints)) ?? nil).flatMap { try? JSONDecoder().decode([String: String].self, from: $0) }
        return text?.compactMapValues { UInt64($0, radix: 16) }
    }

    /// Keeps the fingerprints of the file that ran, for the next run's checks.
    func keepFingerprints(_ values: [String: UInt64]) {
        guard let data = try? JSONEncoder().encode(values.mapValues { String($0, radix: 16) }) else { return }
        try? remember(data, as: "rows", file: fingerprints)
    }

    /// What the feed remembers of `part`, from its one place.
    private func remembered(_ part: String, file: URL) throws -> Data? {
        if let memory, let text = try memory.fact(fact(part)) { return Data(text.utf8) }
        return try? Data(contentsOf: file)
    }

    private func remember(_ data: Data, as part: String, file: URL) throws {
        if let memory { return try memory.setFact(fact(part), String(decoding: data, as: UTF8.self)) }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file, options: .atomic)
    }

    /// Keeps the newest `count` report folders (their names are timestamps), removes the others.
    @discardableResult
    public func pruneReports(keeping count: Int) -> [URL] {
        let folders = ((try? FileManager.default.contentsOfDirectory(at: reports, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.hasDirectoryPath }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        let removed = Array(folders.dropLast(count))
        for folder in removed { try? FileManager.default.removeItem(at: folder) }
        return removed
    }
}
