import CatalogSync
import CatalogExport
import FeedRuns
import Feeds
import ImagePrep
import Foundation
import Manifest
import OpenMarketAPI
import ShopState
import Support
import Words

/// What the console does, each through the one engine the CLI uses: a check is `validate`'s
/// `ManifestCheck`, a plan and an apply are `Sync.run` (dry, then real) of the sheet, an undo is
/// `Sync.run` of `UndoRows` — recorded, locked per account and undoable exactly as from the
/// terminal, and `openmarket runs` lists what the console did.
public struct ConsoleEngine: Sendable {
    public let folder: URL
    public let shop: any Shop
    public let account: AccountState
    /// Where runs started here keep their reports.
    public let reports: URL
    public let feeds: ConsoleFeeds
    /// The backup repository: `--repo`, else the one chosen on the Backups page.
    public let backupChoice: BackupChoice
    public var backups: ConsoleBackups? { backupChoice.current }
    /// The photo cache the CLI's would be (with `--cache s3://…` behind it); nil: the default.
    public let photoCache: ImageCache?
    /// The console's TLS settings (`--cacert`, `--insecure`), for what it fetches besides the shop (a feed's source).
    public let transport: TransportSettings

    /// Where the reports' product links go instead of the server's JSON: the built-in sandbox's
    /// catalog pages (`/products/ID`), served while the console runs.
    public let productPages: (base: String, path: String)?

    public init(folder: URL, shop: any Shop, account: AccountState, reports: URL, feeds: ConsoleFeeds = ConsoleFeeds(),
                backups: ConsoleBackups? = nil, photoCache: ImageCache? = nil, transport: TransportSettings = TransportSettings(),
                productPages: (base: String, path: String)? = nil) {
        self.transport = transport
        self.productPages = productPages
        self.folder = folder.standardizedFileURL
        self.shop = shop
        self.account = account
        self.reports = reports
        self.feeds = feeds
        backupChoice = BackupChoice(given: backups, account: account)
        self.photoCache = photoCache
        store = OpenedStore(account)
    }

    /// This account as the feeds' memory names it.
    var shopTag: String { FeedRunner.shopTag(account) }

    /// The sheets in the folder, by name.
    public func sheets() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { ManifestFormat.isSheet(URL(fileURLWithPath: $0)) && !$0.hasPrefix(".") }.sorted()
    }

    /// A sheet of the folder by its name; nil for any other name (no path leaves the folder).
    func sheet(named name: String) -> URL? {
        guard sheets().contains(name) else { return nil }
        return folder.appendingPathComponent(name)
    }

    /// One problem of a row, as the page shows it: in the sheet's own header.
    public struct Problem: Sendable {
        public var row: Int?
        public var column: String
        public var value: String
        public var rule: String
        public var message: String
        public var severity: String
        /// What the message names, for the blanks of its text in the page's language.
        public var terms: [String]? = nil
        /// A phrase of the word table that says it (its blanks filled with `terms`), in place of the rule's text.
        public var phrase: String? = nil
    }

    /// Every row checked as import checks it.
    func check(_ url: URL, reading: PageAnswers = PageAnswers()) throws -> (summary: ValidationSummary, problems: [Problem], export: ExportKind?) {
        var problems: [Problem] = []
        let options = sheetReading(reading).options
        var export: ExportKind?
        let summary = try ManifestCheck.run(url, encoding: options.encoding, delimiter: options.delimiter, options: options,
            onOpen: { export = $0.mapping?.export },
            onFileIssue: { issue in
                problems.append(Problem(row: nil, column: "file", value: "", rule: issue.rule, message: issue.message,
                                        severity: issue.severity.rawValue, terms: issue.terms))
            },
            onRow: { raw, _, issues in
                if let reason = raw.origin?.skipped {
                    // Left out by the map (not on sale, a filter, a platform's parent row): said, as validate says it.
                    problems.append(Problem(row: raw.number, column: "-", value: "", rule: "row-left-out",
                                            message: WordTable.filled("t_left_out", .en, reason), severity: RowIssue.Severity.warning.rawValue,
                                            terms: raw.origin?.skippedWords?.terms ?? [reason], phrase: raw.origin?.skippedWords?.key ?? "t_left_out"))
                    return
                }
                for issue in issues {
                    problems.append(Problem(row: raw.number, column: issue.columnLabel ?? "-", value: issue.value ?? "", rule: issue.rule,
                                            message: issue.message, severity: issue.severity.rawValue, terms: issue.terms))
                }
                if let offSale = raw.origin?.offSale {
                    problems.append(Problem(row: raw.number, column: offSale.column, value: offSale.value, rule: "row-off-sale",
                                            message: WordTable.filled("p_off_sale", .en, [offSale.column, offSale.value]),
                                            severity: RowIssue.Severity.warning.rawValue, terms: [offSale.column, offSale.value], phrase: "p_off_sale"))
                }
            })
        return (summary, problems, export)
    }

    /// A run of this account as the console makes one: adaptive, no signals (the page stops
    /// it), its reports in the console's folder, watched by the page's job.
    func request(dryRun: Bool, job: ConsoleJob?) -> RunRequest {
        var choices = RunChoices()
        choices.dryRun = dryRun
        choices.cache = photoCache
        choices.report = .new(in: reports, prefix: dryRun ? "plan" : "openmarket-report")
        choices.stopOnSignals = false
        choices.productPages = productPages
        var request = RunRequest(shop: shop, account: account, choices: choices)
        job?.watch(&request)
        return request
    }

    /// The sheet through the one sync: a plan (nothing written) or the run itself; with
    /// `force`, the price changes the price guard holds are sent too.
    func sync(_ url: URL, dryRun: Bool, force: Bool = false, reading: PageAnswers = PageAnswers(), job: ConsoleJob? = nil) throws -> SyncResult {
        var request = request(dryRun: dryRun, job: job)
        request.choices.force = force
        request.choices.validation = sheetReading(reading).options
        return try request.run(ManifestRows(url))
    }

    /// How the console reads a sheet of its folder, for Check, Plan and Apply alike: as
    /// `import` reads it (another platform's export with its map), its photos in the folder,
    /// with what the page answered.
    func sheetReading(_ answers: PageAnswers) -> SheetReading {
        var reading = SheetReading()
        reading.imagesFolder = folder
        // A sheet on the page may be an upload: its photos only from the console's folder.
        reading.confinePhotos = true
        answers.apply(&reading)
        return reading
    }

    /// A run taken back through the one sync, or its plan (nothing written), found as `openmarket
    /// undo` finds it (here, or recorded on another machine of a shared account); nil when it
    /// already was (said in `alreadyDone`).
    func undo(_ folder: URL, dryRun: Bool, job: ConsoleJob? = nil) throws -> (result: SyncResult?, alreadyDone: Phrase?) {
        let part = try request(dryRun: dryRun, job: job).undo(folder: folder)
        return (part.result, part.alreadyDone)
    }

    /// A sharded run taken back whole, shard by shard, as `openmarket undo --run NAME` does.
    func undo(run name: String, dryRun: Bool, job: ConsoleJob? = nil) throws -> [UndoPart] {
        try request(dryRun: dryRun, job: job).undo(run: name)
    }

    /// Why the page offers no Undo for a run (nil: it can still be taken back).
    public func undoRefusal(_ run: RecordedRun) -> Phrase? {
        RunRequest(shop: shop, account: account).undoRefusal(run)
    }

    public func canUndo(_ run: RecordedRun) -> Bool { undoRefusal(run) == nil }

    /// The shop's catalog as a sheet `import` reads back (CSV, photos as the server's addresses,
    /// this account's keys): its own products when it has credentials, as `openmarket export`.
    func export(into folder: URL) throws -> (sheet: URL, summary: ExportSummary) {
        // The shop's own products need the shop to accept the credentials: a refusal is said,
        // never an export of nothing.
        do { _ = try shop.health() } catch { throw ExportRefusal.unreachable(shop.address) }
        if shop.writer != nil, case .refused(let status)? = try? shop.checkCredentials() { throw ExportRefusal.refused(status: status) }
        var options = ExportOptions(directory: folder)
        options.images = .none
        options.filter = CatalogFilter(vendor: shop.writer == nil ? nil : .me)
        options.keys = (try? account.linkedKeys()) ?? [:]
        let summary = try CatalogExporter(options: options, client: shop).run()
        return (folder.appendingPathComponent(options.manifestName), summary)
    }

    /// The account's runs, newest first (what `openmarket runs` lists).
    public func runs(limit: Int = 50) -> [RecordedRun] {
        (try? store.opened()?.runs(limit: limit)) ?? []
    }

    /// The account's link store, opened once it exists and kept (a page of the runs and each
    /// of its reports' thumbnails would otherwise open it again per request).
    private let store: OpenedStore

    final class OpenedStore: @unchecked Sendable {
        private let lock = NSLock()
        private var kept: LinkStore?
        private let account: AccountState

        init(_ account: AccountState) { self.account = account }

        func opened() throws -> LinkStore? {
            try lock.withLock {
                if let kept { return kept }
                kept = try account.store()
                return kept
            }
        }
    }
}

/// Why the console gives no export: the shop refused the credentials, or did not answer.
enum ExportRefusal: Error {
    case refused(status: Int)
    case unreachable(String)
}
