import Backups
import Foundation
import Hummingbird
import Support

/// The backups page: the repository's snapshots, the diff of two, a snapshot taken now, and a
/// restore planned first (nothing written), then run — a job as an apply is.
struct ConsoleBackupRoutes: ConsoleShopBound {

    func add(to router: Router<BasicRequestContext>) {
        let page = ConsolePage()
        let starter = ConsoleJobRoutes()
        router.get("/backups") { request, _ in
            let words = ConsoleWords.words(ConsoleWords.language(of: request))
            guard let backups = engine.backups else {
                return page.response(request, title: words["backups"] ?? "", ["message": words["no_repo"] ?? ""])
            }
            let snapshots = backups.snapshots().reversed().map(Self.snapshot)
            return page.response(request, title: "\(words["backups"] ?? "") · \(backups.repository.url.path)",
                                 ["snapshots": Array(snapshots), "repository": true, "diff_from": snapshots.dropFirst().first?["id"] ?? "",
                                  "diff_to": snapshots.first?["id"] ?? ""])
        }
        router.get("/backups/diff") { request, _ in
            let backups = try Self.repository(engine)
            let from = request.uri.queryParameters.get("from") ?? "", to = request.uri.queryParameters.get("to") ?? ""
            let title = "diff \(from) → \(to)"
            do {
                let diff = try backups.diff(from: from, to: to)
                return page.response(request, title: title, [
                    "summary": "\(diff.created.count) created, \(diff.deleted.count) deleted, \(diff.changed.count) changed",
                    "diff": diff.lines.joined(separator: "\n"),
                ])
            } catch {
                return page.response(request, title: title, ["message": "\(error)"], status: .badRequest)
            }
        }
        router.post("/backups/snapshot") { request, _ in
            // The shop this request chose, for the thread the work runs on.
            let engine = self.engine
            let backups = try Self.repository(engine)
            return starter.start(request, .backup, subject: backups.repository.url.path) { job in
                let info = try backups.backup(shop: engine.shop, account: engine.account, job: job)
                return .nothing("snapshot \(info.id): \(info.products) products (\(info.newProducts) new, \(info.photosAdded) photos added), "
                    + "\(ByteCount.text(info.bytesAdded)) added in \(String(format: "%.1f", info.seconds)) s")
            }
        }
        router.post("/backups/restore-plan") { request, _ in try await restore(request, dryRun: true, starter) }
        router.post("/backups/restore") { request, _ in try await restore(request, dryRun: false, starter) }
    }

    private func restore(_ request: Request, dryRun: Bool, _ starter: ConsoleJobRoutes) async throws -> Response {
        // The shop this request chose, for the thread the work runs on.
        let engine = self.engine
        let backups = try Self.repository(engine)
        let form = try await ConsoleForm.read(request)
        guard let id = form["snapshot"], backups.snapshots().contains(where: { $0.id == id }) else {
            throw HTTPError(.badRequest, message: "no such snapshot")
        }
        return starter.start(request, dryRun ? .restorePlan : .restore, subject: id) { job in
            .finished(try backups.restore(id, request: engine.request(dryRun: dryRun, job: job)))
        }
    }

    private static func repository(_ engine: ConsoleEngine) throws -> ConsoleBackups {
        guard let backups = engine.backups else { throw HTTPError(.notFound, message: "no repository: start the console with --repo DIR") }
        return backups
    }

    static func snapshot(_ info: SnapshotInfo) -> [String: Any] {
        ["id": info.id, "time": ConsoleRoutes.timeFormatter.string(from: info.time), "products": info.products, "new": info.newProducts,
         "added": ByteCount.text(info.bytesAdded)]
    }
}
