import Backups
import CatalogSync
import Foundation
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
        let run = BackupRun(repository: repository, client: shop, links: account.links)
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
