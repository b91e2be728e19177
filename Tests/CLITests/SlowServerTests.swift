import Foundation
import OpenMarketAPI
import Sandbox
import Testing
import TestSupport

/// A server that stores a register late, after its client gave up on the answer: looked for,
/// never sent twice; a product it lists later than the wait is left unknown by the run and
/// found by the next. The client waits 2 s without a byte for an answer here
/// (OPENMARKET_ANSWER_TIMEOUT; curl gives up about 7 s after the POST, the bytes it sent
/// counting for 5 s), so the wait after a lost answer is 8 s. Each case has its own sandbox.
@Suite("A server that stores late: exactly once around the client's timeout")
struct SlowServerTests {
    static func sheet(_ files: Scratch, _ prefix: String) throws -> URL {
        try sheet(files, named: prefix, rows: (1...3).map { "\(prefix)-\($0),Slow server tea \(prefix) \($0),1000,1" })
    }

    /// `NAME.csv` of `key,name,price,stock` rows, each with the one photo p.jpg beside it.
    static func sheet(_ files: Scratch, named name: String, rows: [String]) throws -> URL {
        _ = try files.write(try Fixtures.jpeg(width: 40, height: 30, seed: 11), named: "p.jpg")
        let sheet = files.directory.appendingPathComponent("\(name).csv")
        try ("key,name,price,stock,images\n" + rows.map { $0 + ",p.jpg\n" }.joined()).write(to: sheet, atomically: true, encoding: .utf8)
        return sheet
    }

    static func run(_ sheet: URL, _ sandbox: SandboxProcess, report: String) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await CLIProcess.run(["import", sheet.path, "--no-cache", "--report", sheet.deletingLastPathComponent().appendingPathComponent(report).path]
                                 + sandbox.demoAccount,
                                 environment: ["OPENMARKET_ANSWER_TIMEOUT": "2"])
    }

    @Test("stored 1, 7 and 10 s after the POST (before, about when, and after the client gives up, at 4 to 7 s): each product made once, said found where the answer was lost; a re-run changes nothing", arguments: [1000, 7000, 10000])
    func storedLate(delay: Int) async throws {
        let sandbox = try await SandboxProcess.start(["--store-late", String(delay)])
        let files = try Scratch()
        defer { files.cleanup() }
        defer { Task { await sandbox.stop() } }
        let sheet = try Self.sheet(files, "D\(delay)")
        let run = try await Self.run(sheet, sandbox, report: "first")
        #expect(run.status == 0 && run.stdout.contains("3 rows: 3 created"), "\(run.stdout)\(run.stderr)")
        let rows = try String(contentsOf: files.directory.appendingPathComponent("first/report.csv"), encoding: .utf8)
        if delay >= 10000 { #expect(rows.contains("the answer was lost; found on the server instead of sending again"), "\(rows)") }
        let names = try await sandbox.products().map(\.name)
        #expect(names.count == 3 && Set(names).count == 3, "\(names)")
        let again = try await Self.run(sheet, sandbox, report: "again")
        #expect(again.status == 0 && again.stdout.contains("3 rows: 3 unchanged"), "\(again.stdout)\(again.stderr)")
        #expect(try await sandbox.products().count == 3)
    }

    @Test("stored 25 s after the POST, past the wait (about 7 + 8 s): the rows are left unknown, nothing is sent again; the next run finds each product; never two")
    func storedPastTheWait() async throws {
        let sandbox = try await SandboxProcess.start(["--store-late", "25000"])
        let files = try Scratch()
        defer { files.cleanup() }
        defer { Task { await sandbox.stop() } }
        let sheet = try Self.sheet(files, "late")
        let run = try await Self.run(sheet, sandbox, report: "first")
        #expect(run.status != 0 && run.stdout.contains("3 failed") && run.stdout.contains("not sent again, so that it is never made twice"),
                "\(run.stdout)\(run.stderr)")
        // The server stores them 25 s after each POST: then the next run finds them, and sends nothing.
        var listed = try await sandbox.products().count
        for _ in 0..<40 where listed < 3 {
            try await Task.sleep(for: .seconds(1))
            listed = try await sandbox.products().count
        }
        #expect(listed == 3)
        let next = try await Self.run(sheet, sandbox, report: "next")
        let rows = try String(contentsOf: files.directory.appendingPathComponent("next/report.csv"), encoding: .utf8)
        #expect(next.status == 0 && next.stdout.contains("3 rows: 3 unchanged"), "\(next.stdout)\(next.stderr)\(rows)")
        let names = try await sandbox.products().map(\.name)
        #expect(names.count == 3 && Set(names).count == 3, "\(names)")
    }
}

/// A server that stops answering mid-run: after a few writes in a row go unanswered, the run
/// stops sending (it once cost every row about 36 s × 3); the counts add up, each row said
/// made, unknown or not sent, and nothing the server never answered is stored.
@Suite("A server that stops answering: the run stops, saying which rows were not sent")
struct SilentServerTests {
    @Test("12 rows, the server silent after 3 writes: the run ends within a minute, exit 3, the rows after the silent ones not sent; counts add up; Korean says why")
    func stopsWhenSilent() async throws {
        let sandbox = try await SandboxProcess.start(["--silent-after", "3"])
        let files = try Scratch()
        defer { files.cleanup() }
        defer { Task { await sandbox.stop() } }
        let sheet = try SlowServerTests.sheet(files, named: "silent", rows: (1...12).map { "S-\($0),Silent server tea \($0),1000,1" })
        let started = Date()
        let run = try await CLIProcess.run(["import", sheet.path, "--no-cache", "--report", files.directory.appendingPathComponent("r").path] + sandbox.demoAccount,
                                           environment: ["OPENMARKET_ANSWER_TIMEOUT": "2", "LANG": "ko_KR.UTF-8"])
        let seconds = Date().timeIntervalSince(started)
        let out = run.stdout + run.stderr
        #expect(run.status == 3, "\(out)")
        // The run's own clock (report.json), not the test's: under the suite's load an awaiting
        // task can wait long for a thread after the process ended.
        let json = try String(contentsOf: files.directory.appendingPathComponent("r/report.json"), encoding: .utf8)
        let ran = json.firstMatch(of: /"seconds"\s*:\s*([0-9.]+)/).flatMap { Double($0.1) } ?? .infinity
        #expect(ran < 60 && seconds < 300, "\(ran) s by the run, \(seconds) s by the test: \(out)")
        #expect(out.contains("서버가 응답하지 않음: 쓰기 3번이 연달아 응답이 없었습니다"), "\(out)")
        let rows = try String(contentsOf: files.directory.appendingPathComponent("r/report.csv"), encoding: .utf8)
            .split(separator: "\r\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.count == 12, "\(rows)")
        let statuses = rows.map { $0[3] }
        let created = statuses.filter { $0 == "created" }.count
        let notSent = statuses.filter { $0 == "not-sent" }.count
        let failed = statuses.filter { $0 == "failed" }.count
        // Three silent writes in a row stop it; the workers' first wave is in flight by then.
        #expect(created + notSent + failed == 12 && failed >= 3 && notSent >= 4, "\(statuses)")
        // Only what the server answered is stored.
        #expect(try await sandbox.products().count == created)
    }
}

/// A product the shop holds twice for one key (what a lost answer left before openmarket
/// waited for slow servers): found on the next run, said on the row and at the end with the
/// command that removes it, removed only by that command, and that deletion undone.
@Suite("Second copies already in the shop")
struct ShopCopyTests {
    @Test("a copy of a keyed product (same name and price, linked to no key) is named on its row and at the end with `openmarket delete '#ID'`; a same-named product at another price is not; the delete removes it and its undo brings it back")
    func copyFoundAndOffered() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let sheet = try SlowServerTests.sheet(files, named: "copies", rows: ["C-1,Copied tea,1000,1", "C-2,Priced tea,2000,1"])
        let account = sandbox.demoAccount
        let first = try await CLIProcess.run(["import", sheet.path, "--no-cache", "--report", files.directory.appendingPathComponent("r1").path] + account)
        #expect(first.status == 0 && first.stdout.contains("2 created"), "\(first.stdout)\(first.stderr)")
        // What a lost answer once left: the same product made again, linked to no key; and a
        // product of the merchant's own with a row's name but another price.
        let copy = try await registeredElsewhere(sandbox, name: "Copied tea", seed: 11)
        _ = try await registeredElsewhere(sandbox, name: "Priced tea", price: 2500, seed: 11)
        let again = try await CLIProcess.run(["import", sheet.path, "--no-cache", "--report", files.directory.appendingPathComponent("r2").path] + account)
        #expect(again.status == 0 && again.stdout.contains("2 unchanged"), "\(again.stdout)\(again.stderr)")
        let offer = "openmarket delete '#\(copy.id)' --server \(sandbox.url)"
        #expect(again.stdout.contains("1 product(s) that look like second copies") && again.stdout.contains(offer), "\(again.stdout)")
        let report = try String(contentsOf: files.directory.appendingPathComponent("r2/report.csv"), encoding: .utf8)
        #expect(report.contains("the shop also holds #\(copy.id) with this name and price"), "\(report)")
        let json = try String(contentsOf: files.directory.appendingPathComponent("r2/report.json"), encoding: .utf8)
        #expect(json.contains("\"shop_copies\""), "\(json.prefix(600))")
        let html = try String(contentsOf: files.directory.appendingPathComponent("r2/report.html"), encoding: .utf8)
        #expect(html.contains("#\(copy.id) ≈ #"), "report.html names the copy")
        #expect(try await allProducts(sandbox).count == 4, "nothing is removed by itself")
        // The offer, taken as printed; then taken back.
        let delete = try await CLIProcess.run(["delete", "#\(copy.id)", "--report", files.directory.appendingPathComponent("d").path] + account)
        #expect(delete.status == 0, "\(delete.stdout)\(delete.stderr)")
        #expect(try await allProducts(sandbox).filter { $0.name == "Copied tea" }.count == 1)
        let quiet = try await CLIProcess.run(["import", sheet.path, "--no-cache", "--dry-run"] + account)
        #expect(!quiet.stdout.contains("second copies"), "\(quiet.stdout)")
        let undo = try await CLIProcess.run(["undo", files.directory.appendingPathComponent("d").path] + account)
        #expect(undo.status == 0, "\(undo.stdout)\(undo.stderr)")
        #expect(try await allProducts(sandbox).filter { $0.name == "Copied tea" }.count == 2)
    }
}
