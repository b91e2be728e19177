import Backups
import Foundation
import Words
import Hummingbird
import Support

/// The backups page: the repository's snapshots, the diff of two, a snapshot taken now, and a
/// restore planned first (nothing written), then run — a job as an apply is.
struct ConsoleBackupRoutes: ConsoleShopBound {
    let shop: ConsoleShop

    static func add(to router: some RouterMethods<ConsoleContext>) {
        let backups = router.group("/backups")
        backups.get("") { request, context in try Self(context).list(request) }
        backups.get("/diff") { request, context in try Self(context).diff(request) }
        backups.post("/snapshot") { request, context in try Self(context).snapshot(request) }
        backups.post("/restore-plan") { request, context in try await Self(context).restore(request, dryRun: true) }
        backups.post("/restore") { request, context in try await Self(context).restore(request, dryRun: false) }
        backups.post("/repository") { request, context in try await Self(context).choose(request) }
    }

    private var starter: ConsoleJobRoutes { ConsoleJobRoutes(shop: shop) }

    private func list(_ request: Request) -> Response {
        let words = ConsoleWords.words(ConsoleWords.language(of: request))
        guard let backups = engine.backups else { return chooser(request, said: nil) }
        let snapshots = Array(backups.snapshots().reversed().map(Self.snapshot))
        return layout.response(request, BackupsPage(head: PageHead("\(words["backups"] ?? "") · \(backups.repository.url.path)"), snapshots: snapshots))
    }

    /// No repository yet: a folder to keep backups in, chosen here (no terminal, no restart).
    private func chooser(_ request: Request, said: String?, status: HTTPResponse.Status = .ok) -> Response {
        let words = ConsoleWords.words(ConsoleWords.language(of: request))
        return layout.response(request, BackupFolderPage(head: PageHead(words["backups"] ?? "", summary: words["no_repo"], message: said),
                                                  suggested: BackupChoice.suggested), status: status)
    }

    private func choose(_ request: Request) async throws -> Response {
        let form = try await ConsoleForm.read(request)
        do {
            try engine.backupChoice.choose(form["folder"] ?? "")
        } catch {
            return chooser(request, said: error.phrase.text(ConsoleWords.language(of: request)), status: .unprocessableContent)
        }
        return Response(status: .seeOther, headers: [.location: "/backups"])
    }

    private func diff(_ request: Request) throws -> Response {
        let backups = try Self.repository(engine)
        let from = request.uri.queryParameters.get("from") ?? "", to = request.uri.queryParameters.get("to") ?? ""
        let title = "diff \(from) → \(to)"
        let language = ConsoleWords.language(of: request)
        // A snapshot the page does not list is said in the page's words, pointing at its list.
        let known = Set(backups.snapshots().map(\.id))
        func listed(_ id: String) -> Bool { id.isEmpty || id == "latest" || known.contains { $0 == id || $0.hasPrefix(id) } }
        if let unknown = [from, to].first(where: { !listed($0) }) {
            return layout.response(request, MessagePage(title, message: WordTable.filled("backup_no_snapshot", language, unknown)),
                                   status: .badRequest)
        }
        do {
            let diff = try backups.diff(from: from, to: to)
            let said = WordTable.filled("backup_diff", ConsoleWords.language(of: request), String(diff.created.count), String(diff.deleted.count),
                                        String(diff.changed.count))
            return layout.response(request, BackupDiffPage(head: PageHead(title, summary: said), diff: diff.lines.joined(separator: "\n")))
        } catch {
            return layout.response(request, MessagePage(title, message: "\(error)"), status: .badRequest)
        }
    }

    private func snapshot(_ request: Request) throws -> Response {
        let engine = self.engine
        let backups = try Self.repository(engine)
        return starter.start(request, .backup, subject: backups.repository.url.path) { job in
            let info = try backups.backup(shop: engine.shop, account: engine.account, job: job)
            return .nothing(WordTable.filled("backup_done", job.language, info.id, String(info.products), String(info.newProducts),
                                             String(info.photosAdded), ByteCount.text(info.bytesAdded), String(format: "%.1f", info.seconds)))
        }
    }

    private func restore(_ request: Request, dryRun: Bool) async throws -> Response {
        let engine = self.engine
        let backups = try Self.repository(engine)
        let form = try await ConsoleForm.read(request)
        guard let id = form["snapshot"], backups.snapshots().contains(where: { $0.id == id }) else {
            throw HTTPError(.badRequest, message: WordTable.filled("backup_no_snapshot", ConsoleWords.language(of: request), form["snapshot"] ?? ""))
        }
        return starter.start(request, dryRun ? .restorePlan : .restore, subject: id) { job in
            .finished(try backups.restore(id, request: engine.request(dryRun: dryRun, job: job)))
        }
    }

    private static func repository(_ engine: ConsoleEngine) throws -> ConsoleBackups {
        guard let backups = engine.backups else { throw HTTPError(.notFound, message: "no backup folder yet: choose one on the Backups page") }
        return backups
    }

    static func snapshot(_ info: SnapshotInfo) -> BackupsPage.Snapshot {
        .init(id: info.id, time: ConsoleRoutes.timeFormatter.string(from: info.time), products: info.products, newProducts: info.newProducts,
              added: ByteCount.text(info.bytesAdded))
    }
}
