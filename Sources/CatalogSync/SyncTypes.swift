import Foundation
import Words
import ImagePrep
import Manifest
import OpenMarketAPI
import ShopState
import Support

/// Why a run could not start or had to stop as a whole (the shop could not be
/// read, the link store could not be opened): nothing more is sent. The cause is what the
/// doors map: the command layer to an exit status, the console to its page.
public struct SyncStop: SaysPhrase, CustomStringConvertible {
    /// Why, said in the reader's language where it is shown (a catalogue phrase; an error's
    /// own words verbatim).
    public var phrase: Phrase
    /// Why, in English (logs, tests).
    public var description: String { phrase.text(.en) }
    public var cause: StopCause
    /// The shop refused the credentials before anything was read or sent, with this status: a
    /// door offers to enter them again (the console's form).
    public var refusedStatus: Int?
    public init(_ description: String, cause: StopCause = .unreachable, refusedStatus: Int? = nil) {
        self.init(.verbatim(description), cause: cause, refusedStatus: refusedStatus)
    }

    public init(_ phrase: Phrase, cause: StopCause = .unreachable, refusedStatus: Int? = nil) {
        self.phrase = phrase
        self.cause = cause
        self.refusedStatus = refusedStatus
    }

    /// `SyncStop(say: "s_busy", what, cause: .busy)`: a phrase of the catalogue.
    public init(say key: String, _ values: String..., cause: StopCause = .unreachable, refusedStatus: Int? = nil) {
        self.init(Phrase(key, values), cause: cause, refusedStatus: refusedStatus)
    }
}

public enum ImportMode: String, Sendable, CaseIterable, Codable {
    /// The default: the shop is made equal to the manifest. A row whose key (or,
    /// without a key, name) is a product of this vendor updates the fields that
    /// differ; a row that is not creates a product; an equal row sends nothing.
    case sync
    /// Every row is a new product (restoring a backup into an empty account); an
    /// `id` column is ignored. A key already linked to a product of the account is
    /// skipped, never created twice.
    case create
    /// Only existing products are changed; a row that matches none fails.
    case update

    /// `upsert` is accepted as another name for `sync`.
    public init?(name: String) {
        if name == "upsert" { self = .sync } else if let mode = ImportMode(rawValue: name) { self = mode } else { return nil }
    }
}

public struct SyncOptions: Sendable {
    /// The manifest a file's run reads (nil for rows handed over by `migrate`).
    public var manifest: URL?
    /// How the run is recorded and `openmarket runs` lists it (with `runSource`: the feed and
    /// its source, the snapshot, the source server).
    public var runKind = RunKind.import
    public var runSource: String?
    public var mode: ImportMode = .sync
    /// `--shard I/N`: only the rows whose key hashes to I (the other shards take the rest);
    /// `run` names the run all shards record into.
    public var shard: Shard?
    public var runName: String?
    /// Writes in flight at once: fixed, or with `adaptiveJobs` where the number starts.
    public var jobs = 4
    /// The number of writes in flight found while the run goes (`AdaptiveLimit`), from `jobs`
    /// up to `maxJobs`, instead of fixed (`--jobs N`).
    public var adaptiveJobs = false
    /// The memory the writes in flight and those waiting for a worker may hold: each holds its
    /// product's prepared photos. An eighth of the machine's memory, between 64 MiB and 1 GiB.
    public var memoryBudget = SyncOptions.defaultMemoryBudget
    /// The ceiling of adaptive writes in flight, from memory and not a fixed number (a fixed 24
    /// stopped a far server's import at 24 while it took more): `memoryBudget` over what a write
    /// and one waiting behind it hold at most (5 photos of 300 KB each), at most 256 threads.
    /// The server's own pace is the adaptive limit's to find below it.
    public var maxJobs: Int {
        let perWrite = 2 * ProductRules.imageCount.upperBound * ServerLimits.maxImageBytes
        return min(256, max(jobs, memoryBudget / perWrite))
    }

    public static var defaultMemoryBudget: Int {
        let eighth = Int(min(ProcessInfo.processInfo.physicalMemory / 8, UInt64(Int.max)))
        return min(1 << 30, max(64 << 20, eighth))
    }
    /// Image preparation workers (CPU).
    public var prepareWorkers = max(1, ProcessInfo.processInfo.activeProcessorCount)
    public var dryRun = false
    /// The credentials were seen accepted before the run (else its first write goes alone).
    public var credentialsChecked = true
    /// Stop after this many failed rows; nil: never.
    public var maxErrors: Int?
    /// The journal (crash recovery of this manifest's runs).
    public var journal: URL
    /// The account's link store (merchant key → product); nil: none is kept.
    public var links: StoreAddress?
    public var images = ImagePrepSettings()
    public var cache: ImageCache?
    /// Photo files' hashes by fingerprint, so that an unchanged photo of an existing
    /// product is not read again; nil: every photo is read.
    public var photoHashes: PhotoHashes?
    public var validation = ValidationOptions()
    /// Largest image downloaded from a URL in the manifest.
    public var maxDownloadBytes = ImagePrepSettings.maxDownloadBytes
    /// A row moving a price by more than this percentage fails (unless `force`).
    public var maxPriceChange: Double = 50
    /// At most this many products created / updated by the run; rows past it fail.
    public var maxCreates: Int?
    public var maxUpdates: Int?
    /// Lifts `maxPriceChange`.
    public var force = false
    /// A product whose photos differ from the row's is made again with the row's
    /// photos (new product, then the old one deleted, the key moved to the new one).
    public var replacePhotos = false
    /// A register whose answer was lost (the product may exist): sent again at most this many
    /// times in all, each after looking it up on the server and a back-off (RetryPolicy's).
    public var lostAnswers = ProductWriter.lostAnswers
    /// Compare an existing product's photos with the row's (off for a restore, whose photos
    /// are the server's own copies, not the files the merchant sent).
    public var comparePhotos = true
    /// Page size for reading the live catalog.
    public var catalogPageSize = 500
    /// Pages of the shop's list asked for at once once the first names the last (the pacer
    /// spaces them); 0: one at a time.
    public var catalogPagesAhead = PageWalk.pagesInFlight
    /// Where the run records what it does, for `undo` (`run.jsonl`, photos of what
    /// it deletes); nil: not recorded. Never written by a dry run.
    public var record: URL?
    /// Delete this vendor's products that the manifest no longer lists.
    public var deleteMissing = false
    /// `deleteMissing` is refused as a whole (nothing sent at all) above this many.
    public var maxDeletes = 0

    public init(manifest: URL, journal: URL) {
        self.manifest = manifest
        self.journal = journal
    }

    /// For rows that come from no file (`migrate` hands them to `SyncRun.run(rows:feed:)`):
    /// `runKind` and `runSource` say where they came from.
    public init(journal: URL, runKind: RunKind, runSource: String) {
        self.manifest = nil
        self.journal = journal
        self.runKind = runKind
        self.runSource = runSource
    }
}

/// How many writes a run had in flight.
public struct InFlight: Sendable, Codable, Equatable {
    public var last: Int
    public var lowest: Int
    public var highest: Int
    public var adaptive: Bool

    /// `4–18 in flight` (adaptive), `8 in flight` (fixed).
    public var text: String { text(.en) }

    /// `4–18 in flight`; `동시에 4–18개`.
    public func text(_ language: Language) -> String {
        let count = adaptive && lowest != highest ? "\(lowest)–\(highest)" : "\(highest)"
        return WordTable.filled("report_in_flight", language, count)
    }
}

public struct SyncSummary: Sendable, Codable {
    public var server: String
    /// Where the server shows a product, before its id (`/api/products/`, `/item/` on 2021).
    public var recordPath: String?
    public var mode: ImportMode
    public var dryRun: Bool
    public var rows = 0
    public var counts: [String: Int] = [:]
    /// Updated rows by field changed (`price`: 12).
    public var fieldsChanged: [String: Int] = [:]
    /// Products whose stock the run set to 0.
    public var stockToZero = 0
    /// Rows whose photos differ from the ones the product was created with.
    public var photosDiffer = 0
    /// Failed rows held by `--max-price-change` (a run with `--force` sends them).
    public var priceGuarded = 0
    public var seconds = 0.0
    public var productsPerSecond = 0.0
    /// Why the run stopped before the end, if it did.
    public var stopped: String?
    /// The same, to be said in the reader's language, when openmarket gave the reason.
    public var stoppedPhrase: Phrase?

    /// Why the run stopped, in `language` (a reason in a server's words as it is).
    public func stopText(_ language: Language) -> String? {
        stoppedPhrase?.text(language) ?? stopped.map { StatusWords.stopReason($0, language) }
    }
    /// What the stop says of the run, when more than any stop (the server refused the
    /// credentials at the first write: `.unreachable`).
    public var stopCause: StopCause?
    /// An undo: the folder of the run it takes back.
    public var undoes: String?
    /// Why `--delete-missing` deleted nothing although products left the sheet.
    public var deletesRefused: String?
    /// The same, to be said in the reader's language.
    public var deletesRefusedPhrase: Phrase?
    /// Products the shop seems to hold twice for one key (see `ShopCopy`).
    public var shopCopies: [ShopCopy]?
    /// How the sheet was read, when with a platform's map ("a Shopify product export: read
    /// with the Shopify map").
    public var readAs: String?
    /// The same, to be said in the reader's language.
    public var readAsPhrase: Phrase?
    /// Writes in flight: at the end, and the lowest and highest the run went through.
    public var inFlight: InFlight?
    /// Nothing was left to do, and why (an undo of a run already undone).
    public var alreadyDone: String?
    public var journal: String
    public var links: String?

    enum CodingKeys: String, CodingKey {
        case server, mode
        case dryRun = "dry_run"
        case rows, counts
        case fieldsChanged = "fields_changed"
        case stockToZero = "stock_to_zero"
        case photosDiffer = "photos_differ"
        case priceGuarded = "price_guarded"
        case seconds
        case productsPerSecond = "products_per_second"
        case stopped, journal, links, undoes
        case stoppedPhrase = "stopped_phrase"
        case stopCause = "stop_cause"
        case deletesRefused = "deletes_refused"
        case deletesRefusedPhrase = "deletes_refused_phrase"
        case shopCopies = "shop_copies"
        case readAs = "read_as"
        case alreadyDone = "already_done"
        case inFlight = "in_flight"
    }

    public var failed: Int { count(.failed) }

    /// How many rows ended with `status`.
    public func count(_ status: RowOutcome.Status) -> Int { counts[status.rawValue] ?? 0 }

    /// Rows that changed the shop.
    public var written: Int {
        counts.reduce(0) { $0 + (RowOutcome.Status(rawValue: $1.key)?.isWrite == true ? $1.value : 0) }
    }

    /// Rows a dry run would write (would-create, would-update, would-delete, would-restore).
    public var planned: Int {
        counts.reduce(0) { $0 + ($1.key.hasPrefix("would-") ? $1.value : 0) }
    }

    /// `14 rows: 3 created, 1 failed` (`nothing to do` when there was none): every door's first words.
    public var countsLine: String {
        "\(rows == 1 ? "1 row" : "\(rows) rows"): \(countsText.isEmpty ? "nothing to do" : countsText)"
    }

    /// The summary's line: the counts, the time, the pace of a run that wrote (a rate of a run
    /// with nothing to send says nothing), and a dry run said so.
    public var line: String { line(.en) }

    /// The summary's line in `language` (the terminal's).
    public func line(_ language: Language) -> String {
        let flight = inFlight.map { ", " + $0.text(language) } ?? ""
        let rate = written > 0 ? WordTable.filled("t_rate", language, String(format: "%.1f", productsPerSecond), flight) : ""
        let counts = language == .en ? countsLine : countsPhrase.text(language)
        return WordTable.filled("t_run", language, counts, String(format: "%.1f", seconds), rate, dryRun ? WordTable.text("t_dry", language) : "")
    }

    /// The counts in `Status.summaryOrder`: what was done (or would be), then what was not.
    public var orderedCounts: [(status: String, count: Int)] {
        let rank = Dictionary(uniqueKeysWithValues: RowOutcome.Status.summaryOrder.enumerated().map { ($1.rawValue, $0) })
        return counts.sorted { (rank[$0.key] ?? 99, $0.key) < (rank[$1.key] ?? 99, $1.key) }.map { (status: $0.key, count: $0.value) }
    }

    /// The counts as the summary line says them (`3 created, 1 failed`).
    public var countsText: String {
        orderedCounts.map { StatusWords.count($0.status, $0.count, .en) }.joined(separator: ", ")
    }

    /// `20 rows: 18 created, 2 failed`, to be said later in the reader's language.
    public var countsPhrase: Phrase { .counts(rows: rows, orderedCounts) }
}
