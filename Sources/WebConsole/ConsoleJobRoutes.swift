import CatalogSync
import Foundation
import Words
import Hummingbird
import NIOCore

/// Plans, applies and undos: each starts a job and sends the browser to its page, which follows
/// the job's progress as it streams (server-sent events) and shows its report when it ends.
struct ConsoleJobRoutes: ConsoleShopBound {
    let shop: ConsoleShop

    static func add(to router: some RouterMethods<ConsoleContext>) {
        router.post("/plan") { request, context in try await Self(context).sheetJob(request, .plan) }
        router.post("/apply") { request, context in try await Self(context).sheetJob(request, .apply) }
        router.post("/feeds/run") { request, context in try await Self(context).feedJob(request) }
        router.post("/undo-plan") { request, context in try await Self(context).undo(request, dryRun: true) }
        router.post("/undo") { request, context in try await Self(context).undo(request, dryRun: false) }
        let jobs = router.group("/jobs")
        jobs.get("/:id") { request, context in
            let routes = try Self(context)
            let job = try routes.job(context)
            let language = ConsoleWords.language(of: request)
            var page = routes.page(job, language)
            // Refused credentials: the same form as Export's, for a profile the console can save.
            if case .refused? = job.ending {
                let mend = ConsoleShops.mend(request, among: routes.shop.menu, language)
                page.credentials = mend.profile
                if let note = mend.note { page.head.message = [page.head.message, note].compactMap { $0 }.joined(separator: " ") }
            }
            return routes.layout.response(request, page)
        }
        jobs.get("/:id/events") { request, context in Self.events(try Self(context).job(context), ConsoleWords.language(of: request)) }
        jobs.post("/:id/stop") { _, context in
            let job = try Self(context).job(context)
            job.stop()
            return Response(status: .seeOther, headers: [.location: "/jobs/\(job.id)"])
        }
    }

    /// A plan or an apply of a sheet of the folder.
    private func sheetJob(_ request: Request, _ kind: ConsoleJob.Kind) async throws -> Response {
        let engine = self.engine
        let form = try await ConsoleForm.read(request)
        let sheet = try ConsoleRoutes(shop: shop).sheet(in: form)
        let dryRun = kind == .plan
        // The price changes the guard held, sent after the merchant saw them (the button after a plan or an apply).
        let force = form["force"] == "1"
        let reading = try PageAnswers(form: form)
        return start(request, kind, subject: sheet.lastPathComponent, reading: reading) { job in
            .finished(try engine.sync(sheet, dryRun: dryRun, force: force, reading: reading, job: job))
        }
    }

    private func feedJob(_ request: Request) async throws -> Response {
        let engine = self.engine
        let form = try await ConsoleForm.read(request)
        guard let name = form["feed"], let file = engine.feeds.file(named: name, shopTag: engine.shopTag) else {
            throw PageRefusal("form_no_feed", form["feed"] ?? "")
        }
        let accept = form["accept"] == "1", force = form["force"] == "1"
        return start(request, .feed, subject: name) { job in
            .feed(try engine.feeds.run(file, accept: accept, force: force, engine: engine, job: job))
        }
    }

    /// The job's progress as server-sent events, four times a second until it ends; a page
    /// closed ends the stream at its next write.
    private static func events(_ job: ConsoleJob, _ language: ConsoleWords.Language) -> Response {
        Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: ResponseBody { writer in
            while true {
                let progress = job.progress
                let line = try JSONSerialization.data(withJSONObject: ["line": ConsoleWords.progressLine(progress, language), "ended": progress.ended, "done": progress.done,
                                                                         "total": progress.total, "failed": progress.failed])
                try await writer.write(ByteBuffer(string: "data: " + String(decoding: line, as: UTF8.self) + "\n\n"))
                if progress.ended { break }
                try await Task.sleep(for: .milliseconds(250))
            }
            try await writer.finish(nil)
        })
    }

    private func undo(_ request: Request, dryRun: Bool) async throws -> Response {
        let engine = self.engine
        let form = try await ConsoleForm.read(request)
        let runs = engine.runs()
        let chosen = form["run"] ?? ""
        let sharded = ConsoleRuns.shardedName(chosen)
        let found = runs.first { run in sharded.map { run.runName == $0 } ?? (run.folder == chosen && run.runName == nil) }
        let language = ConsoleWords.language(of: request)
        let title = ConsoleWords.kind(dryRun ? .undoPlan : .undo, language)
        guard let run = found else {
            return layout.response(request, MessagePage(title, message: WordTable.text("f_undo_no_run", language)), status: .badRequest)
        }
        if let refusal = engine.undoRefusal(run) {
            return layout.response(request, MessagePage(title, message: refusal.text(language)), status: .conflict)
        }
        if let name = run.runName {
            return start(request, dryRun ? .undoPlan : .undo, subject: chosen) { job in .parts(try engine.undo(run: name, dryRun: dryRun, job: job)) }
        }
        return start(request, dryRun ? .undoPlan : .undo, subject: chosen) { job in
            let (result, done) = try engine.undo(URL(fileURLWithPath: chosen), dryRun: dryRun, job: job)
            return result.map { .finished($0) } ?? .nothing(done?.text(job.language) ?? "")
        }
    }

    /// Starts the job and sends the browser to its page; a second write while one runs is
    /// refused (409) with a link to the one running.
    func start(_ request: Request, _ kind: ConsoleJob.Kind, subject: String, reading: PageAnswers = PageAnswers(),
                       _ work: @escaping @Sendable (ConsoleJob) throws -> ConsoleJob.Ending) -> Response {
        let language = ConsoleWords.language(of: request)
        switch jobs.start(kind, subject: subject, reading: reading, language: language, work) {
        case .success(let job):
            return Response(status: .seeOther, headers: [.location: "/jobs/\(job.id)"])
        case .failure(let busy):
            return layout.response(request, MessagePage(
                "\(ConsoleWords.kind(kind, language)) · \(URL(fileURLWithPath: subject).lastPathComponent)",
                message: WordTable.filled("p_busy", language, ConsoleWords.kind(busy.job.kind, language), busy.job.subjectName)), status: .conflict)
        }
    }

    private func job(_ context: ConsoleContext) throws -> ConsoleJob {
        guard let id = context.parameters.get("id"), let job = jobs[id] else { throw HTTPError(.notFound) }
        return job
    }

    /// What a job's page shows: its progress while it runs; its summary, report and next step
    /// after (not the last progress line, which can be a step behind the end).
    func page(_ job: ConsoleJob, _ language: ConsoleWords.Language = .en) -> JobPage {
        let progress = job.progress
        var shown = JobPage(head: PageHead("\(ConsoleWords.kind(job.kind, language)) · \(job.subjectName)"), id: job.id,
                            progress: progress.ended ? "" : ConsoleWords.progressLine(progress, language),
                            running: !progress.ended, done: progress.done, total: progress.total)
        switch job.ending {
        case .finished(let result)?:
            shown.head.summary = ConsoleWords.pageLine(result.summary, language)
            shown.report = true
            let stopped = result.summary.stopped != nil
            let held = result.summary.priceGuarded
            switch job.kind {
            // Undo only where there is something to take back (an apply that changed nothing has none).
            case .apply:
                if stopped { shown.steps = [.applyAgain(sheet: job.subject)] }
                if result.summary.written > 0 { shown.steps.append(.planUndo(run: result.reportFolder.path)) }
            // Apply, Undo and Restore only where the plan has something to do.
            case .plan: if result.summary.planned > 0 { shown.steps = [.applyPlanned(sheet: job.subject)] }
            case .undoPlan: if result.summary.planned > 0 { shown.steps = [.undo(run: job.subject)] }
            case .restorePlan: if result.summary.planned > 0 { shown.steps = [.restore(snapshot: job.subject)] }
            case .restore: if result.summary.written > 0 { shown.steps = [.planUndo(run: result.reportFolder.path)] }
            case .undo, .feed, .backup: break
            }
            shown.reading = job.reading
            // Another platform's export that cannot say its currency or stock: asked here, not by a flag.
            if job.kind == .apply || job.kind == .plan, result.summary.readAs != nil, job.reading.currency == nil || job.reading.defaultStock == nil {
                shown.ask = AskForm(sheet: job.subject, said: result.summary.readAsPhrase?.text(language) ?? result.summary.readAs ?? "",
                                    reading: job.reading)
            }
            // Rows the price guard held: the way forward is a button, not a terminal flag.
            if held > 0, !stopped, job.kind == .apply || job.kind == .plan { shown.steps.append(.acceptPrices(sheet: job.subject, count: held)) }
        case .feed(let result)?:
            shown.head.summary = "\(result.feed): \(WordTable.text("outcome_\(result.outcome.rawValue)", language)): \(language == .en ? result.message : result.phrase?.text(language) ?? result.message)"
            shown.report = result.report != nil
            if result.outcome == .held { shown.steps.append(.accept(feed: job.subject)) }
            if let folder = result.report, result.outcome == .done || result.outcome == .rowsFailed { shown.steps.append(.planUndo(run: folder.path)) }
            if let held = result.summary?.priceGuarded, held > 0 { shown.steps.append(.acceptFeedPrices(feed: job.subject, count: held)) }
        case .parts(let parts)?:
            // A sharded run, shard by shard; its undo offered after its plan.
            shown.head.summary = parts.map { part in
                "shard \(part.shard ?? ""): \(part.result.map { ConsoleWords.pageLine($0.summary, language) } ?? part.alreadyDone?.text(language) ?? "")"
            }.joined(separator: "; ")
            if job.kind == .undoPlan { shown.steps = [.undo(run: job.subject)] }
        case .nothing(let said)?: shown.head.summary = said
        case .failed(let why)?: shown.head.message = why
        case .refused(let status)?:
            shown.head.message = WordTable.filled("run_refused", language, "HTTP \(status)")
        case nil: break
        }
        return shown
    }
}
