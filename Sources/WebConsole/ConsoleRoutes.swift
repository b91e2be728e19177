import Feeds
import CatalogSync
import Foundation
import Hummingbird
import Manifest
import NIOCore
import Support
import Words

/// The console's pages that read: the sheets, a check, the runs, the language. Plans, applies
/// and undos are jobs (`ConsoleJobRoutes`).
struct ConsoleRoutes: ConsoleShopBound {
    let shop: ConsoleShop

    /// Every route of the console, each answering for the shop its request chose.
    static func add(to router: some RouterMethods<ConsoleContext>) {
        router.get("/") { request, context in try Self(context).sheets(request) }
        router.get("/runs") { request, context in try Self(context).runsPage(request) }
        router.get("/feeds") { request, context in try Self(context).feeds(request) }
        router.get("/language/:language") { _, context in
            let language = ConsoleWords.Language(rawValue: context.parameters.get("language") ?? "") ?? .en
            return Response(status: .seeOther, headers: [
                .location: "/", .setCookie: "\(ConsoleWords.cookieName)=\(language.rawValue); SameSite=Strict; Path=/",
            ])
        }
        router.get("/console.js") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "no-cache"],
                     body: .init(byteBuffer: ByteBuffer(string: ConsoleScript.text)))
        }
        router.post("/upload") { request, context in try await Self(context).upload(request) }
        router.post("/feeds/upload") { request, context in try await Self(context).upload(request, feeds: true) }
        router.post("/check") { request, context in try await Self(context).check(request) }
        ConsoleJobRoutes.add(to: router)
        ConsoleFiles.add(to: router)
        ConsoleBackupRoutes.add(to: router)
    }

    func sheets(_ request: Request) -> Response {
        layout.response(request, SheetsPage(head: PageHead("\(words(request)["sheets_in"] ?? "") \(engine.folder.path)"), sheets: engine.sheets()))
    }

    func runsPage(_ request: Request) -> Response {
        layout.response(request, RunsPage(head: PageHead(words(request)["runs"] ?? ""), runs: runs(ConsoleWords.language(of: request))))
    }

    /// A feed file's mistake as the Feeds page says it: the file's name (not where it lives),
    /// the line, and the catalogue's words where it has them.
    static func mistake(_ error: FeedFileError, _ language: Language) -> String {
        error.placed(URL(fileURLWithPath: error.file).lastPathComponent).text(language)
    }

    func feeds(_ request: Request) -> Response {
        let formatter = Self.timeFormatter
        let language = ConsoleWords.language(of: request)
        let feeds = engine.feeds.entries(shopTag: engine.shopTag, state: engine.account.place).map { entry in
            FeedsPage.Feed(name: entry.name, source: entry.source, schedule: entry.schedule, held: entry.heldHere,
                                      shops: entry.shops.map { ($0.shop, $0.outcome, WordTable.text("outcome_\($0.outcome)", language),
                                                                language == .en ? $0.message : $0.phrase?.text(language) ?? $0.message, $0.when.map(formatter.string(from:)) ?? "") },
                           mistake: entry.mistake.map { Self.mistake($0, language) })
        }
        return layout.response(request, FeedsPage(head: PageHead("\(words(request)["feeds"] ?? "") · \(engine.feeds.folder.path)"), feeds: feeds))
    }

    /// A file dropped on the page: a sheet or a zip into the sheets' folder, or (`feeds`) a feed
    /// file into the feeds' folder.
    func upload(_ request: Request, feeds: Bool = false) async throws -> Response {
        let upload = ConsoleUpload(folder: feeds ? engine.feeds.folder : engine.folder, feeds: feeds)
        do {
            let received = try await upload.receive(request, named: request.uri.queryParameters.get("name") ?? "")
            return try Self.json(UploadAnswer(received, ConsoleWords.language(of: request)), status: .ok)
        } catch let refused as ConsoleUpload.Refused {
            return try Self.json(UploadAnswer(error: refused.phrase.text(ConsoleWords.language(of: request))), status: .badRequest)
        } catch {
            return try Self.json(UploadAnswer(error: "\(error)"), status: .badRequest)
        }
    }

    func check(_ request: Request) async throws -> Response {
        let engine = self.engine
        let form = try await ConsoleForm.read(request)
        let sheet = try sheet(in: form)
        let reading = try PageAnswers(form: form)
        let title = "\(words(request)["check"] ?? "") · \(sheet.lastPathComponent)"
        let summary: ValidationSummary
        let problems: [ConsoleEngine.Problem]
        let export: ExportKind?
        do {
            (summary, problems, export) = try await BlockingThread.run("openmarket.console") { try engine.check(sheet, reading: reading) }
        } catch let error as ManifestError where error.message.hasPrefix("the file is empty") {
            // An empty sheet is an answer, not a failure: the page says so (what validate says).
            return layout.response(request, MessagePage(title, summary: error.phrase.text(ConsoleWords.language(of: request))))
        } catch let error as ManifestError where error.encodingUnknown {
            // Its encoding cannot be told: asked on the page, as `--encoding` asks it.
            var model = CheckPage(PageHead(title, message: WordTable.filled("check_encoding", ConsoleWords.language(of: request), sheet.lastPathComponent)))
            model.chooseEncoding = PlanNext(sheet: sheet.lastPathComponent, reading: reading)
            return layout.response(request, model, status: .unprocessableContent)
        } catch {
            // A sheet that cannot be read at all (no header, not a sheet, a map it does not fit):
            // what validate says, on the page, with the reading to choose again.
            var model = CheckPage(PageHead(title, message: (error as? SaysPhrase)?.phrase.text(ConsoleWords.language(of: request)) ?? "\(error)"))
            model.readAs = PlanNext(sheet: sheet.lastPathComponent, reading: reading)
            return layout.response(request, model, status: .unprocessableContent)
        }
        let text = ConsoleWords.checkLine(summary, ConsoleWords.language(of: request))
        var model = CheckPage(PageHead(title, summary: text))
        model.readAs = PlanNext(sheet: sheet.lastPathComponent, reading: reading)
        // A sheet with rows that can go on leads to its plan (rows with errors fail there, the others go).
        if summary.valid + summary.withWarnings > 0 { model.planNext = PlanNext(sheet: sheet.lastPathComponent, reading: reading) }
        let language = ConsoleWords.language(of: request)
        model.problems = problems.map { problem in
            let message = problem.phrase.map { WordTable.filled($0, language, problem.terms ?? []) }
                ?? RuleWords.message(problem.rule, english: problem.message, language, terms: problem.terms)
            return CheckPage.Problem(row: problem.row, column: problem.row == nil ? WordTable.text("report_file", language) : RowProblem.columnName(problem.column, language),
                                     value: problem.value, rule: problem.rule, message: message, severity: problem.severity)
        }
        // What the sheet leaves open is asked on the page: another platform's currency and stock,
        // and the stock of a sheet that has no stock column (Cafe24's), never 0 by default.
        let stockOpen = reading.defaultStock == nil && summary.newProductNeeds.keys.contains { $0.hasPrefix("stock-") }
        if let said = export?.title ?? (stockOpen ? sheet.lastPathComponent : nil), reading.currency == nil || reading.defaultStock == nil {
            model.ask = AskForm(sheet: sheet.lastPathComponent, said: said, reading: reading)
        }
        return layout.response(request, model)
    }

    func sheet(_ request: Request) async throws -> URL { try sheet(in: try await ConsoleForm.read(request)) }

    /// The folder's sheet a form names (nothing outside the folder).
    func sheet(in form: [String: String]) throws -> URL {
        guard let name = form["sheet"], let url = engine.sheet(named: name) else {
            throw PageRefusal("form_no_sheet", form["sheet"] ?? "")
        }
        return url
    }

    static var timeFormatter: DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter
    }

    /// The account's runs as `openmarket runs` lists them: a sharded run once, its shards'
    /// counts summed, undone whole (`run:NAME`, as `undo --run NAME`); Undo only where a run
    /// can still be taken back.
    private func runs(_ language: ConsoleWords.Language) -> [RunsPage.Run] {
        let formatter = Self.timeFormatter
        // A run this console is writing now is not offered for undo until it ends (an unfinished
        // run with nothing writing stopped or crashed: undo takes back what it did).
        let writingNow = jobs.writing != nil
        return ListedRun.grouped(engine.runs()).map { listed in
            let run = listed.run
            let kind = ConsoleWords.runKind(run.kind, language)
            if let name = run.runName {
                let counts = ConsoleWords.counts(listed.counts ?? [:], language)
                let source = WordTable.filled("p_run_sharded", language, name, String(listed.shards))
                return RunsPage.Run(started: formatter.string(from: listed.started), kind: kind,
                                                source: source, counts: counts.isEmpty ? WordTable.text("p_nothing_yet", language) : counts,
                                                folder: ConsoleRuns.sharded(name), undoable: engine.canUndo(run), reportTag: nil)
            }
            return RunsPage.Run(started: formatter.string(from: run.started), kind: kind,
                                            source: URL(fileURLWithPath: run.source).lastPathComponent,
                                            counts: listed.counts.map { ConsoleWords.counts($0, language) }
                                                ?? WordTable.text(writingNow ? "running" : "p_not_finished", language),
                                            folder: run.folder,
                                            undoable: !(writingNow && listed.counts == nil) && engine.canUndo(run),
                                            reportTag: FileManager.default.fileExists(atPath: run.folder) ? ConsoleFiles.tag(run.folder) : nil)
        }
    }

    private func words(_ request: Request) -> [String: String] { ConsoleWords.words(ConsoleWords.language(of: request)) }

    /// What an upload answers the page's script: the files kept, what went where when a name
    /// was taken, how names were read, in the page's words; or why not.
    struct UploadAnswer: Encodable {
        var kept: [String]?
        var renamed: [ConsoleUpload.Renamed]?
        var same: [String]?
        var decoded: [ConsoleUpload.Decoded]?
        var notes: [String]?
        var error: String?

        init(error: String) { self.error = error }

        init(_ received: ConsoleUpload.Received, _ language: Language) {
            kept = received.kept
            renamed = received.renamed
            same = received.same
            decoded = received.decoded
            var notes = received.renamed.map { WordTable.filled("upload_renamed", language, $0.wanted, $0.kept) }
            notes += received.same.map { WordTable.filled("upload_same", language, $0) }
            for encoding in Set(received.decoded.map(\.encoding)).sorted() {
                let names = received.decoded.filter { $0.encoding == encoding }.map(\.name)
                let listed = names.prefix(5).joined(separator: ", ") + (names.count > 5 ? " …" : "")
                notes.append(encoding == MerchantZip.unicodePath ? WordTable.filled("upload_unicode_path", language, listed)
                                                                   : WordTable.filled("upload_decoded", language, encoding.uppercased(), listed))
            }
            self.notes = notes
        }
    }

    static func json(_ answer: some Encodable, status: HTTPResponse.Status) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(answer))))
    }

}

/// A page of the console: the layout with the shop's name, the job that writes now, the words
/// of the reader's language.
struct ConsoleLayout: ConsoleShopBound {
    let shop: ConsoleShop

    func response<Page: ConsolePageModel>(_ request: Request, _ page: Page, status: HTTPResponse.Status = .ok) -> Response {
        var values = page.values
        let name = engine.account.serverName
        values["shop"] = name == AccountState.builtInSandboxName ? WordTable.text("built_in_sandbox", ConsoleWords.language(of: request)) : name
        let shops = shop.menu
        if !shops.isEmpty {
            let chosen = ConsoleShops.chosen(request, among: shops)
            values["profiles"] = [["name": "", "label": shop.firstName, "chosen": chosen.isEmpty]]
                + shops.map { ["name": $0, "label": $0, "chosen": $0 == chosen] }
        }
        // The job that writes, named on every page but its own.
        if let writing = jobs.writing, page.jobID != writing.id {
            values["writing"] = ["id": writing.id, "kind": ConsoleWords.kind(writing.kind, ConsoleWords.language(of: request)), "subject": writing.subjectName]
        }
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(string: ConsolePages.render(Page.template, head: page.head, values, language: ConsoleWords.language(of: request), root: ConsoleAddress.root(of: request)))))
    }
}

/// An `application/x-www-form-urlencoded` body, at most 64 KiB.
enum ConsoleForm {
    static func read(_ request: Request) async throws -> [String: String] {
        let buffer = try await request.body.collect(upTo: 64 << 10)
        let text = String(buffer: buffer)
        var form: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ") }
            guard let key = parts.first?.removingPercentEncoding else { continue }
            form[key] = parts.count > 1 ? parts[1].removingPercentEncoding ?? "" : ""
        }
        return form
    }
}

/// How the runs list names a sharded run to the Undo form.
enum ConsoleRuns {
    static let prefix = "run:"
    static func sharded(_ name: String) -> String { prefix + name }
    static func shardedName(_ value: String) -> String? { value.hasPrefix(prefix) ? String(value.dropFirst(prefix.count)) : nil }
}

extension SyncSummary {
    /// `20 rows: 20 would-create`, as the CLI's summary line says it; a stop says why.
    var pageLine: String {
        let counts = countsLine + (dryRun ? " (a plan: nothing was sent)" : "")
        return stopped.map { "\(counts) — stopped (\($0)); the rows not done are done by applying again" } ?? counts
    }
}
