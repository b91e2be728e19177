import BulkImport
import Foundation
import Hummingbird
import NIOCore
import Support

/// The console's routes: each reads its form, calls the engine on a thread of its own, and
/// renders the page.
struct ConsoleRoutes: Sendable {
    let engine: ConsoleEngine

    func add(to router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in page(title: "Sheets in \(engine.folder.path)", ["sheets": engine.sheets().map { ["name": $0] }]) }
        router.get("/runs") { _, _ in page(title: "Runs", ["runs": runs()]) }
        router.post("/check") { request, _ in
            let sheet = try await sheet(request)
            let (summary, problems) = try await BlockingThread.run("openmarket.console") { try engine.check(sheet) }
            let text = "\(summary.rows) rows: \(summary.valid) valid, \(summary.withErrors) with errors, \(summary.withWarnings) with warnings"
            return page(title: "Check of \(sheet.lastPathComponent)", ["summary": text, "problems": problems.map(Self.problem)])
        }
        router.post("/plan") { request, _ in try await run(request, dryRun: true) }
        router.post("/apply") { request, _ in try await run(request, dryRun: false) }
        router.post("/undo") { request, _ in
            let form = try await Self.form(request)
            guard let folder = form["run"], engine.runs().contains(where: { $0.folder == folder }) else {
                return page(title: "Undo", ["message": "no such run of this account"], status: .badRequest)
            }
            let (result, done) = try await BlockingThread.run("openmarket.console") { try engine.undo(URL(fileURLWithPath: folder)) }
            guard let result else { return page(title: "Undo", ["summary": done ?? ""]) }
            return page(title: "Undo of \(URL(fileURLWithPath: folder).lastPathComponent)",
                        ["summary": result.summary.line, "rows": ConsolePages.rows(result.report)])
        }
    }

    private func run(_ request: Request, dryRun: Bool) async throws -> Response {
        let sheet = try await sheet(request)
        let verb = dryRun ? "Plan" : "Apply"
        do {
            let result = try await BlockingThread.run("openmarket.console") { try engine.sync(sheet, dryRun: dryRun) }
            return page(title: "\(verb) of \(sheet.lastPathComponent)", ["summary": result.summary.line, "rows": ConsolePages.rows(result.report)])
        } catch {
            return page(title: "\(verb) of \(sheet.lastPathComponent)", ["message": "\(error)"], status: .conflict)
        }
    }

    private func sheet(_ request: Request) async throws -> URL {
        let form = try await Self.form(request)
        guard let name = form["sheet"], let url = engine.sheet(named: name) else {
            throw HTTPError(.badRequest, message: "no such sheet in \(engine.folder.path)")
        }
        return url
    }

    private func runs() -> [[String: Any]] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return engine.runs().map { run in
            ["started": formatter.string(from: run.started), "kind": run.kind.rawValue, "source": URL(fileURLWithPath: run.source).lastPathComponent,
             "counts": run.counts.map { $0.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ") } ?? "did not finish",
             "folder": run.folder, "undoable": run.counts != nil]
        }
    }

    private func page(title: String, _ values: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        var values = values
        values["title"] = title
        values["shop"] = engine.account.serverName
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(string: ConsolePages.render(values))))
    }

    static func problem(_ problem: ConsoleEngine.Problem) -> [String: Any] {
        ["row": problem.row.map(String.init) ?? "", "column": problem.column, "value": problem.value, "rule": problem.rule,
         "message": problem.message, "severity": problem.severity]
    }

    /// An `application/x-www-form-urlencoded` body, at most 64 KiB.
    static func form(_ request: Request) async throws -> [String: String] {
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

extension SyncSummary {
    /// `20 rows: 20 would-create`, as the CLI's summary line says it.
    var line: String {
        "\(rows) rows: \(countsText.isEmpty ? "nothing to do" : countsText)\(dryRun ? " (a plan: nothing was sent)" : "")"
    }
}
