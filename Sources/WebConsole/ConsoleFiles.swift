import Foundation
import Hummingbird
import NIOCore
import CatalogExport
import Support
import Words

/// Files the console hands out: a run's report (its page with the thumbnails beside it, the
/// workbook with the rows to fix, the CSV) for a job of this console or any recorded run of the
/// account, and the catalog as a sheet. Only these names, only from those folders.
struct ConsoleFiles: ConsoleShopBound {
    let shop: ConsoleShop

    /// The files of a run's report the page links to, and how they are sent.
    static let reportFiles: [String: (type: String, download: Bool)] = [
        "report.html": ("text/html; charset=utf-8", false),
        "report.xlsx": ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", true),
        "report.csv": ("text/csv; charset=utf-8", true),
    ]

    /// A recorded run's place in the console's addresses: `/runs/TAG/report.html`.
    static func tag(_ folder: String) -> String { FNV.tag(folder) }

    static func add(to router: some RouterMethods<ConsoleContext>) {
        // A report's files, of a job of this console (`/jobs/ID/…`) or of a recorded run (`/runs/TAG/…`).
        for (group, name, folder) in [("/jobs", "id", Self.jobFolder), ("/runs", "run", Self.runFolder)] {
            let files = router.group(RouterPath(group))
            files.get(RouterPath("/:\(name)/:file")) { _, context in
                let routes = try Self(context)
                return try routes.report(in: folder(routes)(context), context.parameters.require("file"))
            }
            files.get(RouterPath("/:\(name)/thumbnails/:file")) { _, context in
                let routes = try Self(context)
                return try routes.thumbnail(in: folder(routes)(context), context.parameters.require("file"))
            }
        }
        router.get("/export") { request, context in try await Self(context).export(request) }
    }

    /// The catalog as a sheet `import` reads back, as a download (UTF-8 with a byte-order mark,
    /// which Excel needs to open Korean text as such). A shop that refuses the credentials, or
    /// does not answer, or an export that does not finish, is a console page saying so in the
    /// page's language, never an empty file.
    private func export(_ request: Request) async throws -> Response {
        let engine = self.engine
        let language = ConsoleWords.language(of: request)
        let title = WordTable.text("export", language)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openmarket-console-export-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sheet: URL
        let summary: ExportSummary
        do {
            (sheet, summary) = try await BlockingThread.run("openmarket.console.export") { try engine.export(into: folder) }
        } catch ExportRefusal.refused(let status) {
            let mend = ConsoleShops.mend(request, among: shop.menu, language)
            let said = [WordTable.filled("export_refused", language, "HTTP \(status)"), mend.note].compactMap { $0 }.joined(separator: " ")
            var model = ProfilePage(head: PageHead(title, message: said))
            model.credentials = mend.profile
            return layout.response(request, model, status: .badGateway)
        } catch ExportRefusal.unreachable(let address) {
            return layout.response(request, MessagePage(title, message: WordTable.filled("export_unreachable", language, address)),
                                   status: .badGateway)
        } catch {
            return layout.response(request, MessagePage(title, message: WordTable.filled("export_failed", language, "\(error)")), status: .badGateway)
        }
        guard summary.stopped == nil, summary.failed.isEmpty else {
            let why = summary.stopped ?? "\(summary.failed.count) products failed"
            return layout.response(request, MessagePage(title, message: WordTable.filled("export_failed", language, why)), status: .badGateway)
        }
        let stamp = ISO8601DateFormatter.string(from: Date(), timeZone: .current, formatOptions: [.withFullDate])
        guard let data = FileManager.default.contents(atPath: sheet.path) else { throw HTTPError(.notFound) }
        var body = ByteBuffer(bytes: [0xEF, 0xBB, 0xBF])
        body.writeBytes(data)
        return Response(status: .ok, headers: [.contentType: "text/csv; charset=utf-8", .cacheControl: "no-store",
                                               .contentDisposition: "attachment; filename=\"catalog-\(stamp).csv\""],
                        body: .init(byteBuffer: body))
    }

    private func jobFolder(_ context: ConsoleContext) throws -> URL {
        guard let id = context.parameters.get("id"), let folder = jobs[id]?.ending?.reportFolder else { throw HTTPError(.notFound) }
        return folder
    }

    private func runFolder(_ context: ConsoleContext) throws -> URL {
        let tag = try context.parameters.require("run")
        guard let run = engine.runs().first(where: { Self.tag($0.folder) == tag }) else { throw HTTPError(.notFound) }
        return URL(fileURLWithPath: run.folder)
    }

    private func report(in folder: URL, _ name: String) throws -> Response {
        guard let kind = Self.reportFiles[name] else { throw HTTPError(.notFound) }
        return try file(folder.appendingPathComponent(name), type: kind.type, download: kind.download ? name : nil)
    }

    /// A thumbnail the report names (`thumbnails/ROW-ID-STATUS.jpg`); no other name.
    private func thumbnail(in folder: URL, _ name: String) throws -> Response {
        guard name.hasSuffix(".jpg"), !name.hasPrefix("."), !name.contains("/") else { throw HTTPError(.notFound) }
        return try file(folder.appendingPathComponent("thumbnails").appendingPathComponent(name), type: "image/jpeg", download: nil)
    }

    private func file(_ url: URL, type: String, download: String?) throws -> Response {
        guard let data = FileManager.default.contents(atPath: url.path) else { throw HTTPError(.notFound) }
        var headers: HTTPFields = [.contentType: type, .cacheControl: "no-store"]
        if let download { headers[.contentDisposition] = "attachment; filename=\"\(download)\"" }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
