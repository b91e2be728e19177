import Foundation

/// Where a link store keeps its rows: a SQLite file of one account (the default), or one
/// account's rows in a shared PostgreSQL database (`--state postgres://…`). Both keep the same
/// tables under the same named, versioned migrations; `LinkStore` is the one face of both, and
/// one conformance suite runs against each.
protocol LinkBackend: AnyObject, Sendable {
    /// The store as messages name it: a file's path, or a database's address without a password.
    var place: String { get }
    /// How to remove a damaged row by hand, for the message that names it.
    func removalAdvice(key: String) -> String

    /// Links: all, or one key's.
    func rows(key: String?) throws -> [LinkRow]
    /// Each product linked under a merchant key (not a name): the key and the product's id, one
    /// at a time. Two short columns, not the rows' fingerprints: an export of a big shop reads
    /// every one of them.
    func eachLinkedKey(_ body: (_ key: String, _ productID: Int) throws -> Void) throws
    /// Every link's row, one at a time (a store need not hold them all at once to hand them over).
    func eachRow(_ body: (LinkRow) throws -> Void) throws
    /// Writes the link, and removes any other key's link to its product, in one transaction.
    func save(_ row: LinkRow, durable: Bool) throws
    func remove(key: String) throws
    func fact(_ name: String) throws -> String?
    func setFact(_ name: String, _ value: String) throws
    /// A run begun: a resumed one keeps its first start; a new one replaces the folder's row.
    func beginRun(_ run: RunRow, resumed: Bool) throws
    func finishRun(folder: String, counts: String?, finished: Double) throws
    /// Newest first.
    func runs(limit: Int) throws -> [RunRow]
    /// A line of a shared run's record (`run.jsonl`'s line), for one part (a shard) of it.
    func appendRecord(run: String, part: String, line: String) throws
    /// A shared run's record: every part's lines, in the order each part wrote them.
    func record(run: String) throws -> [(part: String, line: String)]
    /// A photo a run saved before deleting a product (`deleted/ID/N.jpg` of its record's
    /// folder), kept with the run's record so that undo can make the product again anywhere.
    func savePhoto(run: String, path: String, data: Data) throws
    /// All of a run's saved photos, or (`path`) the one saved there.
    func savedPhotos(run: String, path: String?) throws -> [(path: String, data: Data)]
}

/// A run as both stores keep it.
struct RunRow: Sendable, Equatable {
    var folder: String
    var kind: String
    var started: Double
    var source: String
    var counts: String?
    var finished: Double?
    /// The run the shards of one import share (`--run NAME`).
    var runName: String?
}

/// The migrations of both stores, by name and in order: a name once applied is never applied
/// again, and a later version adds names after these.
enum LinkMigrations {
    static let names = ["v1: links and account facts", "v2: runs", "v3: shared run records", "v4: feed rounds", "v5: saved photos"]
}
