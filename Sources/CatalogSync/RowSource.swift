import Foundation
import Words
import Manifest
import OpenMarketAPI
import ShopState

/// Where a sync's rows come from: a manifest file, a feed's file, a snapshot's products,
/// another shop's catalog, an undo's record, names to delete. A source only says what its
/// rows are, through the sink the sync gives it; the sync owns everything around them
/// (planning against the live shop, the workers and their pace, the record, the report,
/// the summary).
public protocol RowSource: Sendable {
    /// How the run is recorded and listed by `openmarket runs`.
    var kind: RunKind { get }
    /// What the run read, as `runs` says it.
    var label: String { get }
    /// What the report's title names (the label unless said).
    var title: String { get }
    /// The file the rows are read from (the journal is named by it), if they are a file's.
    var manifest: URL? { get }
    /// Hands the rows to `sink`, in order. Blocking.
    func rows(into sink: any RowSink) throws
    /// Told each finished row (a migration learns which source product became which).
    func finished(_ outcome: RowOutcome)
    /// What the source adds to the run's summary (the run an undo took back).
    func annotate(_ summary: inout SyncSummary)
    /// The journal of rows that are no file's, by name (`restore-<snapshot>`); nil: the file's.
    var journalName: String? { get }
    /// Where runs of this source keep their report unless the door gives a folder (an undo's
    /// beside the run it takes back, a delete's in the account's folder); nil: where the door says.
    func reportPlace(dryRun: Bool, account: AccountState) -> ReportPlace?
    /// The folder a new report goes in when the door names none (a sheet's own folder).
    var reportsBeside: URL? { get }
    /// What runs of this source are whatever door asks (a restore compares no photos and
    /// reuses no shrunk photo: its photos are the server's own bytes).
    func shape(_ options: inout SyncOptions, useCaches: inout Bool)
}

extension RowSource {
    public var title: String { label }
    public func finished(_ outcome: RowOutcome) {}
    public func annotate(_ summary: inout SyncSummary) {}
    public var journalName: String? { nil }
    public func reportPlace(dryRun: Bool, account: AccountState) -> ReportPlace? { nil }
    public var reportsBeside: URL? { manifest?.deletingLastPathComponent() }
    public func shape(_ options: inout SyncOptions, useCaches: inout Bool) {}
}

/// The sync's side of a run, as a source sees it: all a source may ask of it.
public protocol RowSink: AnyObject, Sendable {
    var options: SyncOptions { get }
    /// A stop was asked for: a source stops reading.
    var isStopping: Bool { get }
    /// The source's own column headers, for the report.
    func name(columns: [String: String])
    /// A file read through a platform's map: its rows as the file has them, by number, for
    /// the rows to fix (read once the run is over, only for the rows that failed).
    func original(rows: @escaping @Sendable (Set<Int>) throws -> OriginalRows?)
    /// How the source was read, when not as our own columns ("a Shopify product export: read
    /// with the Shopify map"): said with the run's summary.
    func read(as reading: Phrase)
    /// Rows to make into products: `count` for progress (`exact: false`: an estimate, the rows
    /// are counted as they come), `listed` what they name for delete-missing; `feed` hands
    /// each row in order and returns when there are no more.
    func rows(count: Int, exact: Bool, listed: ListedProducts?, _ feed: (RowFeed) throws -> Void) throws
    /// Work a source decides itself (an undo's steps), run on the same workers and pace;
    /// `feed` is given the run's writer and hands the tasks in the order the report lists them.
    func tasks(count: Int, _ feed: (_ tools: TaskTools, _ submit: (RowTask) -> Void) throws -> Void) throws
    /// The named products of this account deleted (`openmarket delete`).
    func delete(_ names: [String], reason: String) throws
}

/// Hands one source's rows to the sync.
public struct RowFeed {
    let submitDraft: (ProductDraft, [Phrase]) -> Void
    let rejectRow: (RowOutcome) -> Void

    /// A row to make into a product; `notes` join its notes in the report.
    public func submit(_ draft: ProductDraft, notes: [Phrase] = []) { submitDraft(draft, notes) }
    /// A row that cannot be one: its outcome (failed, or left out by a feed's filter).
    public func reject(_ outcome: RowOutcome) { rejectRow(outcome) }
}

/// What a task may write with: the run's shop, link store and the one writer (exactly once,
/// recorded for undo).
public struct TaskTools: Sendable {
    let shop: any Shop
    let links: LinkStore?
    let writer: ProductWriter
}
