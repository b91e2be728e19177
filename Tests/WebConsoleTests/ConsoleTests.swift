import BulkImport
import Foundation
import OpenMarketAPI
import Testing
import TestSupport
import WebConsole

/// The console over loopback HTTP, against a sandbox, as a browser would drive it (forms
/// posted with the console's own Origin and cookie); the engine is the CLI's.
@Suite("The console: guarded, and the same engine", .serialized)
struct ConsoleTests {
    struct Open {
        let sandbox: TestSandbox
        let files: Scratch
        let console: ConsoleServer
        let client: OpenMarketClient

        static func start(rows: Int = 20) async throws -> Open {
            let sandbox = try await TestSandbox.start()
            let files = try Scratch()
            _ = try writeManifest(files, rows: rows)
            let client = try TestSupport.client(sandbox, sandbox.demo)
            let account = AccountState(shop: client, sandboxData: files.directory.appendingPathComponent("state"))
            let engine = ConsoleEngine(folder: files.directory, shop: client, account: account,
                                       reports: files.directory.appendingPathComponent("reports"))
            return Open(sandbox: sandbox, files: files, console: try await ConsoleServer.start(engine), client: client)
        }

        var origin: String { String(console.url.absoluteString.dropLast()) }
        var cookie: String { "openmarket-console=\(console.token)" }

        func get(_ path: String) async throws -> CurlResult {
            try await curl(["-H", "Cookie: \(cookie)", console.url.absoluteString + path])
        }

        func post(_ path: String, _ form: String) async throws -> CurlResult {
            try await curl(["-H", "Cookie: \(cookie)", "-H", "Origin: \(origin)", "--data", form, console.url.absoluteString + path])
        }

        func products() async throws -> Int { try await blocking { [client] in try client.page(1, perPage: 100).totalCount } }

        func close() async {
            await console.stop()
            await sandbox.stop()
            files.cleanup()
        }
    }

    @Test("without the token, with a foreign Host, or a write from a foreign Origin: 403 before any route; the token is traded for a cookie")
    func guarded() async throws {
        let open = try await Open.start(rows: 2)
        let url = open.console.url.absoluteString
        #expect(try await curl([url]).status == 403)
        #expect(try await curl([url + "?token=wrong"]).status == 403)
        let entry = try await curl([open.console.entry.absoluteString])
        #expect(entry.status == 303 && entry.headers["set-cookie"]?.contains("openmarket-console=\(open.console.token)") == true
                && entry.headers["set-cookie"]?.contains("HttpOnly") == true, "\(entry.headers)")
        #expect(try await open.get("").status == 200)
        #expect(try await curl(["-H", "Cookie: \(open.cookie)", "-H", "Host: evil.example:\(open.console.url.port!)", url]).status == 403,
                "DNS rebinding: another name for 127.0.0.1")
        #expect(try await curl(["-H", "Cookie: \(open.cookie)", "-H", "Origin: http://evil.example", "--data", "sheet=products.csv",
                                url + "apply"]).status == 403)
        #expect(try await curl(["-H", "Cookie: \(open.cookie)", "--data", "sheet=products.csv", url + "apply"]).status == 403,
                "a write with no Origin")
        #expect(try await open.products() == 0, "nothing refused reached the shop")
        await open.close()
    }

    @Test("Plan says 20 would-create and the shop is untouched; Apply makes 20; Undo deletes 20; runs lists both; no secret in any page")
    func planApplyUndo() async throws {
        let open = try await Open.start()
        let list = try await open.get("")
        #expect(list.status == 200 && list.text.contains("products.csv") && list.text.contains(">Plan<"))
        let plan = try await open.post("plan", "sheet=products.csv")
        #expect(plan.status == 200 && plan.text.contains("20 rows: 20 would-create"), "\(plan.text.prefix(400))")
        #expect(try await open.products() == 0)
        let apply = try await open.post("apply", "sheet=products.csv")
        #expect(apply.status == 200 && apply.text.contains("20 rows: 20 created"), "\(apply.text.prefix(400))")
        #expect(try await open.products() == 20)
        let runs = try await open.get("runs")
        let folder = try #require(runs.text.firstMatch(of: /name="run" value="([^"]+)"/).map { String($0.1) })
        let undo = try await open.post("undo", "run=" + (folder.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? folder))
        #expect(undo.status == 200 && undo.text.contains("20 rows: 20 deleted"), "\(undo.text.prefix(400))")
        #expect(try await open.products() == 0)
        let again = try await open.get("runs")
        #expect(again.text.contains(">undo<") && again.text.contains(">import<"))
        for page in [list, plan, apply, runs, undo, again] {
            #expect(!page.text.contains(open.sandbox.demo.secret) && !page.text.contains(open.sandbox.demo.identifier))
        }
        await open.close()
    }

    @Test("Check shows each error with its row, the sheet's own header, the value and the rule")
    func check() async throws {
        let open = try await Open.start(rows: 2)
        try Data("sku,name,price,stock,images\nA1,Tea,abc,1,a.jpg\n".utf8).write(to: open.files.directory.appendingPathComponent("broken.csv"))
        let check = try await open.post("check", "sheet=broken.csv")
        #expect(check.status == 200 && check.text.contains("price-format") && check.text.contains("abc") && check.text.contains("<td>2</td>"),
                "\(check.text.suffix(900))")
        #expect(try await open.post("check", "sheet=..%2F..%2Fetc%2Fpasswd").status == 400, "only the folder's sheets")
        await open.close()
    }
}
