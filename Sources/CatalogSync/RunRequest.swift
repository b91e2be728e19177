import Foundation
import ImagePrep
import Manifest
import OpenMarketAPI
import ShopState
import Support
import Words

/// What a door knows a merchant chose for a run: the command's flags, the console's buttons,
/// a feed file's settings. Nothing here is derived: the run request derives the rest.
public struct RunChoices: Sendable {
    public var mode: ImportMode = .sync
    public var dryRun = false
    /// Writes in flight at once; nil: found while the run goes, from 4 up to what the server takes.
    public var jobs: Int?
    public var maxErrors: Int?
    public var maxPriceChange: Double = 50
    public var maxCreates: Int?
    public var maxUpdates: Int?
    public var force = false
    public var replacePhotos = false
    public var deleteMissing = false
    public var maxDeletes = 0
    public var images = ImagePrepSettings()
    public var validation = ValidationOptions()
    /// One shard of a sharded run (`--shard I/N --run NAME`).
    public var shard: ShardRun?
    /// A cache of shrunk photos the door opened (`--cache s3://…`); else the local one.
    public var cache: ImageCache?
    /// Photos shrunk by earlier runs reused, unchanged photo files not read again (`--no-cache`: off).
    public var useCaches = true
    /// `--journal FILE`, `--links FILE`: instead of the account's.
    public var journal: URL?
    public var links: StoreAddress?
    /// `--report DIR` (`.given`: a folder given again keeps earlier runs' records), or where
    /// the door keeps its reports (`.new`: the console's, a feed's); nil: a new folder beside
    /// the sheet, else in the current folder.
    public var report: ReportPlace?
    /// The report's relative photo paths are under this folder; nil: the photos' folder, else the sheet's.
    public var imagesRoot: URL?
    /// Where the report's product links point instead of the server (see `RunReport.productPages`).
    public var productPages: (base: String, path: String)?
    /// The language of report.html and report.xlsx (`--lang`, the locale, the console's page).
    public var language: Language = .en
    /// Ctrl-C and SIGTERM stop the run gracefully (off in the console and in tests).
    public var stopOnSignals = true
    /// The door already holds the account's run lock (a feed run takes it before fetching).
    public var holdsAccountLock = false

    public init() {}
}

/// One shard of a sharded run: its identity, composed here only (journal, report folder,
/// label, lock, shared record).
public struct ShardRun: Sendable, Equatable {
    /// The run every shard records into (`--run NAME`).
    public let run: String
    public let shard: Shard

    public init(run: String, shard: Shard) {
        self.run = run
        self.shard = shard
    }

    /// `NAME-shard-2of4`: a shard's own journal and report folder, never shared with another shard.
    public var tag: String { "\(run)-shard-\(shard.index)of\(shard.count)" }
    /// `products.csv (run NAME, shard 2 of 4)`, as `runs` and the report say it.
    public func label(_ what: String) -> String { "\(what) (run \(run), shard \(shard.index) of \(shard.count))" }
}

/// The one way to run: a door hands over the account (its shop and its state), the source of
/// the rows and the merchant's choices; the request owns the rest (the journal, the link store,
/// the lock, the record, the report's place, the labels) and runs the one sync. The CLI's
/// commands, the console, the feed runner and the shards call it and only render what it returns.
public struct RunRequest: Sendable {
    public let shop: any Shop
    public let account: AccountState
    public var choices: RunChoices
    /// Told after each row, with the counts so far.
    public var onProgress: (@Sendable (_ done: Int, _ total: Int, _ failed: Int) -> Void)?
    /// Told each finished row.
    public var onOutcome: (@Sendable (RowOutcome) -> Void)?
    /// Told of the run before its rows start (a source's own progress, a caller's stop).
    public var onStart: (@Sendable (SyncRun) -> Void)?

    public init(shop: any Shop, account: AccountState, choices: RunChoices = RunChoices()) {
        self.shop = shop
        self.account = account
        self.choices = choices
    }

    /// The account's link store for this run (`--links` over the account's).
    public var links: StoreAddress { choices.links ?? account.links }

    /// The rows of `source` made into the shop. Blocking: call from a thread of its own.
    public func run(_ source: some RowSource) throws -> SyncResult {
        var options = options(for: source)
        var useCaches = choices.useCaches
        source.shape(&options, useCaches: &useCaches)
        return try Sync.run(source, into: shop, options: options, report: reportPlace(for: source), useCaches: useCaches,
                            request: self)
    }

    /// The one place a run's settings are assembled from the choices and the source.
    func options(for source: some RowSource) -> SyncOptions {
        var options = SyncOptions(journal: journal(for: source), runKind: source.kind, runSource: label(of: source))
        options.manifest = source.manifest
        options.links = links
        options.mode = choices.mode
        options.jobs = choices.jobs ?? 4
        options.adaptiveJobs = choices.jobs == nil
        options.dryRun = choices.dryRun
        options.maxErrors = choices.maxErrors
        options.maxPriceChange = choices.maxPriceChange
        options.maxCreates = choices.maxCreates
        options.maxUpdates = choices.maxUpdates
        options.force = choices.force
        options.replacePhotos = choices.replacePhotos
        options.deleteMissing = choices.deleteMissing
        options.maxDeletes = choices.maxDeletes
        options.images = choices.images
        options.validation = choices.validation
        options.shard = choices.shard?.shard
        options.runName = choices.shard?.run
        options.cache = choices.useCaches ? choices.cache : nil
        return options
    }

    /// `--journal`, a shard's own, the manifest's, or the source's named journal.
    public func journal(for source: some RowSource) -> URL {
        if let given = choices.journal { return given }
        if let shard = choices.shard { return account.journal(forRun: "\(shard.tag)-\(source.manifest?.lastPathComponent ?? source.kind.rawValue)") }
        if let name = source.journalName { return account.journal(forRun: name) }
        if let manifest = source.manifest { return account.journal(for: manifest) }
        return account.journal(forRun: source.kind.rawValue)
    }

    /// What `runs` and the report name the run by: a shard says which.
    func label(of source: some RowSource) -> String {
        choices.shard.map { $0.label(source.label) } ?? source.label
    }

    /// `--report`, the source's own place (an undo's beside its run), the door's folder of
    /// reports, else a new folder named by the time beside the sheet (a shard's named by its
    /// shard) or in the current folder — or, where that folder is read-only (a sheet on a
    /// read-only volume, as a Kubernetes Job mounts it), in the state folder's `reports`.
    func reportPlace(for source: some RowSource) -> ReportPlace {
        if case .given? = choices.report, let given = choices.report { return given }
        if let own = source.reportPlace(dryRun: choices.dryRun, account: account) { return own }
        if let door = choices.report { return door }
        var parent = source.reportsBeside ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        if FileManager.default.fileExists(atPath: parent.path), !FileManager.default.isWritableFile(atPath: parent.path) {
            parent = Self.reportsFolder
        }
        return .new(in: parent, prefix: "openmarket-report" + (choices.shard.map { "-\($0.tag)" } ?? ""))
    }

    /// Reports whose sheet's folder cannot take them: `$XDG_STATE_HOME/openmarket/reports`.
    static var reportsFolder: URL { UserFolders.state.appendingPathComponent("reports", isDirectory: true) }
}
