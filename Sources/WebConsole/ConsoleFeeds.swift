import CatalogSync
import FeedRuns
import Feeds
import ImagePrep
import Foundation
import OpenMarketAPI
import ShopState
import Support
import Words

/// The feeds the console shows and runs: those `openmarket feed list` shows (the feeds folder
/// and every feed run on this machine), each run by the one `FeedRunner` the CLI's `feed run`
/// and the timers use — fetched, checked (a bad file held), synced, recorded, undoable — on the
/// console's shop.
public struct ConsoleFeeds: Sendable {
    public let folder: URL
    public let root: URL

    public init(folder: URL = FeedFolder.configured, root: URL = FeedFolder.defaultRoot) {
        self.folder = folder
        self.root = root
    }

    /// One feed as the page lists it.
    struct Entry: Sendable {
        var file: URL
        var name: String
        var source: String
        var schedule: String
        var shops: [(shop: String, outcome: String, message: String, phrase: Phrase?, when: Date?)]
        /// A feed file with a mistake: what `feed test` would say.
        var mistake: FeedFileError?
        /// Whether this console's shop's last run of it was held by a check.
        var heldHere: Bool
    }

    /// `state`: the accounts' shared database, where each feed's memory is then kept.
    func entries(shopTag: String, state: StatePlace = .machine) -> [Entry] {
        FeedFolder.watched(in: folder, root: root).map { url in
            let feed: Feed
            do throws(FeedFileError) { feed = try FeedFile.load(url) } catch {
                return Entry(file: url, name: url.deletingPathExtension().lastPathComponent, source: "", schedule: "", shops: [],
                             mistake: error, heldHere: false)
            }
            let folders = FeedFolder.shops(of: feed, root: root, state: state)
            let shops = folders.map { folder in
                let record = (try? folder.record()) ?? FeedRecord()
                return (record.shop ?? "?", record.lastOutcome?.rawValue ?? "never", record.lastMessage ?? "", record.lastPhrase, record.lastRun)
            }
            let here = (try? folders.first { $0.url.lastPathComponent == "shop-\(shopTag)" }?.record()) ?? FeedRecord()
            return Entry(file: url, name: feed.name, source: feed.run.source?.display ?? "no [source]",
                         schedule: Schedule.installed(kind: "feed", name: feed.name) ?? "not scheduled", shops: shops,
                         mistake: nil, heldHere: here.lastOutcome == .held)
        }
    }

    /// The feed file of that name among those listed; nil for any other.
    func file(named name: String, shopTag: String) -> URL? {
        entries(shopTag: shopTag).first { $0.name == name && $0.mistake == nil }?.file
    }

    /// A feed run from the page, as `feed run` makes it: the console's TLS settings (`--cacert`,
    /// `--insecure`) fetch the feed's source too.
    func run(_ file: URL, accept: Bool, force: Bool = false, engine: ConsoleEngine, job: ConsoleJob) throws -> FeedRunResult {
        let feed = try FeedFile.load(file)
        var options = FeedRunOptions()
        options.accept = accept
        options.force = force
        options.cache = engine.photoCache
        options.transport = engine.transport
        options.watchSync = { job.watch(&$0) }
        return FeedRunner(feed: feed, client: engine.shop, account: engine.account, root: root, options: options).run()
    }
}
