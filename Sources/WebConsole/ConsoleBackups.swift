import Backups
import CatalogSync
import Foundation
import Words
import OpenMarketAPI
import Support

/// A backup repository seen from the console (`openmarket console --repo DIR`): its snapshots,
/// the diff of two, a snapshot taken now, and a restore planned and then run — each through the
/// engine `backup`, `diff` and `restore` use, the restore recorded and undoable as any run.
public struct ConsoleBackups: Sendable {
    public let repository: BackupRepository

    public init(repository: BackupRepository) { self.repository = repository }

    func snapshots() -> [SnapshotInfo] { repository.list() }

    func diff(from: String, to: String) throws -> SnapshotDiff {
        SnapshotDiff(from: try repository.products(of: try repository.find(from)), to: try repository.products(of: try repository.find(to)))
    }

    func backup(shop: any Shop, account: AccountState, job: ConsoleJob) throws -> SnapshotInfo {
        let run = BackupRun(repository: repository, client: shop, account: account)
        run.onProgress = { done, total in job.count(done: done, total: total) }
        return try run.run()
    }

    /// The whole snapshot put back through the one sync (products made since are kept), or its plan.
    func restore(_ id: String, request: RunRequest) throws -> SyncResult {
        let rows = try SnapshotRows(repository, snapshot: try repository.find(id))
        let lock = try repository.lock("restore")
        defer { lock.release() }
        return try request.run(rows)
    }
}

/// The console's backup repository: `--repo`, else the folder a merchant chose on the Backups
/// page — kept in the account's folder (`console-backups.txt`), so the next console opens it too.
public final class BackupChoice: @unchecked Sendable {
    private let lock = NSLock()
    private var chosen: ConsoleBackups?
    /// Where the page's choice is kept.
    let remembered: URL

    public init(given: ConsoleBackups?, account: AccountState) {
        remembered = account.folder.appendingPathComponent("console-backups.txt")
        chosen = given ?? (try? String(contentsOf: remembered, encoding: .utf8))
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .flatMap { $0.isEmpty ? nil : ConsoleBackups(repository: BackupRepository(url: URL(fileURLWithPath: $0))) }
    }

    public var current: ConsoleBackups? { lock.withLock { chosen } }

    /// Where a first repository goes unless the merchant says otherwise: `~/openmarket-backups`.
    static var suggested: String { UserFolders.home.appendingPathComponent("openmarket-backups").path }

    /// Why a folder is not taken, by its words and path (said in the page's language).
    public struct Refused: Error, CustomStringConvertible {
        public var phrase: Phrase
        init(_ key: String, _ values: String...) { phrase = Phrase(key, values) }
        public var description: String { phrase.text(.en) }
    }

    /// Uses `path` (an absolute path, or `~/…`) from now on: a folder `openmarket backup` made,
    /// or an empty or new one (made here). Anything else is refused, saying why.
    @discardableResult
    public func choose(_ path: String) throws(Refused) -> ConsoleBackups {
        let trimmed = path.trimmingCharacters(in: .whitespacesAndNewlines)
        let expanded = trimmed.hasPrefix("~/") ? UserFolders.home.appendingPathComponent(String(trimmed.dropFirst(2))).path : trimmed
        guard expanded.hasPrefix("/") else { throw Refused("backup_whole_path", trimmed) }
        let url = URL(fileURLWithPath: expanded, isDirectory: true).standardizedFileURL
        let repository = BackupRepository(url: url)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw Refused("backup_a_file", url.path) }
            let inside = (try? FileManager.default.contentsOfDirectory(atPath: url.path))?.filter { !$0.hasPrefix(".") } ?? []
            guard inside.isEmpty || repository.config() != nil else {
                throw Refused("backup_other_files", url.path)
            }
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: remembered.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data((url.path + "\n").utf8).write(to: remembered, options: .atomic)
        } catch {
            throw Refused("backup_cannot_use", url.path, error.localizedDescription)
        }
        let backups = ConsoleBackups(repository: repository)
        lock.withLock { chosen = backups }
        return backups
    }
}
