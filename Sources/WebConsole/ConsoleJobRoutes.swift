import CatalogSync
import Foundation
import Hummingbird
import NIOCore

/// Plans, applies and undos: each starts a job and sends the browser to its page, which follows
/// the job's progress as it streams (server-sent events) and shows its report when it ends.
struct ConsoleJobRoutes: ConsoleShopBound {

    func add(to router: Router<BasicRequestContext>) {
        let sheets = ConsoleRoutes()
        router.post("/plan") { request, _ in
            // The shop this request chose, for the thread the work runs on.
            let engine = self.engine
            let sheet = try await sheets.sheet(request)
            return start(request, .plan, subject: sheet.lastPathComponent) { job in .finished(try engine.sync(sheet, dryRun: true, job: job)) }
        }
        router.post("/apply") { request, _ in
            // The shop this request chose, for the thread the work runs on.
            let engine = self.engine
            let sheet = try await sheets.sheet(request)
            return start(request, .apply, subject: sheet.lastPathComponent) { job in .finished(try engine.sync(sheet, dryRun: false, job: job)) }
        }
        router.post("/feeds/run") { request, _ in
            // The shop this request chose, for the thread the work runs on.
            let engine = self.engine
            let form = try await ConsoleForm.read(request)
            guard let name = form["feed"], let file = engine.feeds.file(named: name, shopTag: engine.shopTag) else {
                throw HTTPError(.badRequest, message: "no such feed")
            }
            let accept = form["accept"] == "1"
            return start(request, .feed, subject: name) { job in
                .feed(try engine.feeds.run(file, accept: accept, engine: engine, job: job))
            }
        }
        router.post("/undo-plan") { request, _ in try await undo(request, dryRun: true) }
        router.post("/undo") { request, _ in try await undo(request, dryRun: false) }
        router.get("/jobs/:id") { request, context in
            let job = try job(context)
            return ConsolePage().response(request, title: "\(job.kind.rawValue) · \(job.subjectName)", values(job))
        }
        router.get("/jobs/:id/events") { _, context in
            let job = try job(context)
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: ResponseBody { writer in
                // Four times a second until the job ends; a page closed ends the stream at its next write.
                while true {
                    let progress = job.progress
                    let line = try JSONSerialization.data(withJSONObject: ["line": progress.line, "ended": progress.ended, "done": progress.done,
                                                                             "total": progress.total, "failed": progress.failed])
                    try await writer.write(ByteBuffer(string: "data: " + String(decoding: line, as: UTF8.self) + "\n\n"))
                    if progress.ended { break }
                    try await Task.sleep(for: .milliseconds(250))
                }
                try await writer.finish(nil)
            })
        }
        router.post("/jobs/:id/stop") { _, context in
            let job = try job(context)
            job.stop()
            return Response(status: .seeOther, headers: [.location: "/jobs/\(job.id)"])
        }
        ConsoleFiles().add(to: router)
        ConsoleBackupRoutes().add(to: router)
    }

    private func undo(_ request: Request, dryRun: Bool) async throws -> Response {
        // The shop this request chose, for the thread the work runs on.
        let engine = self.engine
        let form = try await ConsoleForm.read(request)
        let runs = engine.runs()
        let chosen = form["run"] ?? ""
        let sharded = ConsoleRuns.shardedName(chosen)
        let found = runs.first { run in sharded.map { run.runName == $0 } ?? (run.folder == chosen && run.runName == nil) }
        guard let run = found else {
            return ConsolePage().response(request, title: "Undo", ["message": "no such run of this account"], status: .badRequest)
        }
        if let refusal = engine.undoRefusal(run) {
            return ConsolePage().response(request, title: "Undo", ["message": refusal], status: .conflict)
        }
        if let name = run.runName {
            return start(request, dryRun ? .undoPlan : .undo, subject: chosen) { job in .parts(try engine.undo(run: name, dryRun: dryRun, job: job)) }
        }
        return start(request, dryRun ? .undoPlan : .undo, subject: chosen) { job in
            let (result, done) = try engine.undo(URL(fileURLWithPath: chosen), dryRun: dryRun, job: job)
            return result.map { .finished($0) } ?? .nothing(done ?? "")
        }
    }

    /// Starts the job and sends the browser to its page; a second write while one runs is
    /// refused (409) with a link to the one running.
    func start(_ request: Request, _ kind: ConsoleJob.Kind, subject: String,
                       _ work: @escaping @Sendable (ConsoleJob) throws -> ConsoleJob.Ending) -> Response {
        switch jobs.start(kind, subject: subject, work) {
        case .success(let job):
            return Response(status: .seeOther, headers: [.location: "/jobs/\(job.id)"])
        case .failure(let busy):
            return ConsolePage().response(request, title: "\(kind.rawValue) · \(URL(fileURLWithPath: subject).lastPathComponent)", [
                "message": "\(busy.job.kind.rawValue) of \(busy.job.subjectName) is running: one write at a time on this shop",
            ], status: .conflict)
        }
    }

    private func job(_ context: BasicRequestContext) throws -> ConsoleJob {
        guard let id = context.parameters.get("id"), let job = jobs[id] else { throw HTTPError(.notFound) }
        return job
    }

    /// What a job's page shows: its progress while it runs; its summary, report and next step after.
    private func values(_ job: ConsoleJob) -> [String: Any] {
        let progress = job.progress
        var shown: [String: Any] = ["id": job.id, "progress": progress.ended && progress.total == 0 ? "" : progress.line, "running": !progress.ended, "ended": progress.ended,
                                    "done": progress.done, "total": max(progress.total, 1)]
        var values: [String: Any] = [:]
        switch job.ending {
        case .finished(let result)?:
            values["summary"] = result.summary.pageLine
            shown["report"] = true
            let stopped = result.summary.stopped != nil
            switch job.kind {
            case .apply:
                if stopped { shown["apply_again"] = job.subject } else { shown["plan_undo"] = result.reportFolder.path }
            case .plan: shown["apply_planned"] = job.subject
            case .undoPlan: shown["undo"] = job.subject
            case .restorePlan: shown["restore"] = job.subject
            case .restore: if !stopped { shown["plan_undo"] = result.reportFolder.path }
            case .undo, .feed, .backup: break
            }
        case .feed(let result)?:
            values["summary"] = "\(result.feed): \(result.outcome.rawValue): \(result.message)"
            shown["report"] = result.report != nil
            if result.outcome == .held { shown["accept"] = job.subject }
            if let folder = result.report, result.outcome == .done || result.outcome == .rowsFailed { shown["plan_undo"] = folder.path }
        case .parts(let parts)?:
            // A sharded run, shard by shard; its undo offered after its plan.
            values["summary"] = parts.map { "shard \($0.shard ?? ""): \($0.result?.summary.pageLine ?? $0.alreadyDone ?? "")" }.joined(separator: "; ")
            if job.kind == .undoPlan { shown["undo"] = job.subject }
        case .nothing(let said)?: values["summary"] = said
        case .failed(let why)?: values["message"] = why
        case nil: break
        }
        values["job"] = shown
        return values
    }
}
