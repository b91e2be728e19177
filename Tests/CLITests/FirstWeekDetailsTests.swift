import Foundation
import OpenMarketAPI
import Sandbox
import Testing
import TestSupport

/// What else a merchant met in the first week (issue #42): the commands around the runs —
/// show, the built-in sandbox, an old Excel file, feed status, quiet output, undo's words.
@Suite("A merchant's first week: the details", .serialized)
struct FirstWeekDetailsTests {
    @Test("show takes a key or #ID; an unknown key names it (exit 2)")
    func showByKey() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let files = try Scratch()
        defer { files.cleanup() }
        let a = FirstWeekTests.account(sandbox, sandbox.demo)
        let keyed = try FirstWeekTests.sheet(files, keys: true, name: "keyed.csv")
        let made = try await CLIProcess.run(["import", keyed.path, "--quiet", "--no-cache"] + a)
        #expect(made.status == 0)
        let byKey = try await CLIProcess.run(["show", "002"] + a)
        #expect(byKey.status == 0 && byKey.stdout.hasPrefix("Week product 2  (id "), "\(byKey.stdout)\(byKey.stderr)")
        let id = try #require(try await FirstWeekTests.products(sandbox, vendor: sandbox.demo.id).first { $0.name == "Week product 3" }?.id)
        let byID = try await CLIProcess.run(["show", "#\(id)"] + a)
        #expect(byID.status == 0 && byID.stdout.hasPrefix("Week product 3"), "\(byID.stdout)")
        let unknown = try await CLIProcess.run(["show", "NO-SUCH"] + a)
        #expect(unknown.status == 2 && unknown.stderr.contains("no product of this account has the key NO-SUCH"), "\(unknown.stderr)")
    }

    @Test("the built-in sandbox says when it is new (each folder has its own); its report links where `openmarket sandbox` serves the pages")
    func builtInSandbox() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let sheet = try writeManifest(files, rows: 2)
        let report = files.directory.appendingPathComponent("report")
        let first = try await CLIProcess.run(["import", sheet.path, "--quiet", "--no-cache", "--report", report.path], directory: files.directory)
        #expect(first.status == 0 && first.stderr.contains("That sandbox is new and empty: each folder has its own"), "\(first.stderr)")
        let html = try String(contentsOf: report.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("http://127.0.0.1:8080/products/"), "links to the pages `openmarket sandbox` serves")
        let second = try await CLIProcess.run(["import", sheet.path, "--quiet", "--no-cache", "--dry-run"], directory: files.directory)
        #expect(second.status == 0 && !second.stderr.contains("new and empty") && second.stdout.contains("2 rows: 2 unchanged"),
                "\(second.stdout)\(second.stderr)")
        let shown = try await CLIProcess.run(["show", "K1"], directory: files.directory)
        #expect(shown.stdout.contains("page:        http://127.0.0.1:8080/products/") && !shown.stdout.contains("127.0.0.1:0"),
                "\(shown.stdout)\(shown.stderr)")
    }

    @Test("a real .xls is named as one, with what to do (exit 2), in validate and import alike")
    func oldExcel() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let xls = files.directory.appendingPathComponent("재고.xls")
        try Data([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1] + [UInt8](repeating: 0, count: 504)).write(to: xls)
        for command in ["validate", "import"] {
            let result = try await CLIProcess.run([command, xls.path], directory: files.directory)
            #expect(result.status == 2 && result.stderr.contains("an Excel 97–2003 workbook (.xls)") && result.stderr.contains(".xlsx"),
                    "\(command): \(result.stdout)\(result.stderr)")
            #expect(!result.stderr.contains("binary file"), "\(result.stderr)")
        }
    }

    @Test("feed status watches feeds that run: a column map for import --feed is not 'never run' for ever")
    func mappingOnlyFeed() async throws {
        let machine = try await FeedMachine.open()
        try Data("[columns]\nkey = \"code\"\nname = \"title\"\nprice = \"cost\"\n".utf8)
            .write(to: machine.feeds.appendingPathComponent("map.toml"))
        let alone = try await machine.run(["feed", "status", "--max-age", "1h"])
        #expect(alone.status == 1 && alone.stdout.contains("No feeds to watch") && !alone.stdout.contains("map: never run"), "\(alone.stdout)")
        try machine.writeFeed()
        machine.supplier.serve(machine.sheet(rows: 2))
        let run = try await machine.run(["feed", "run", "acme"] + machine.shop)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let status = try await machine.run(["feed", "status", "--max-age", "1h"])
        #expect(status.status == 0 && status.stdout.contains("1 feed succeeded within 1h"), "\(status.stdout)")
        await machine.close()
    }

    @Test("a run over in a moment prints one progress line, not eleven; `| true` (a reader gone) is neither an error nor a killed run")
    func quietEnds() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 3)
        let run = try await CLIProcess.run(["import", manifest.path, "--quiet", "--no-cache"] + FirstWeekTests.account(sandbox, sandbox.demo))
        let lines = run.stderr.split(separator: "\n").filter { $0.contains("/3 rows (") }
        // Under a second: its end only. (A loaded test machine can make it longer: then a line per
        // third at most, each after the first second.)
        let took = run.stdout.firstMatch(of: /in (\d+\.\d) s/).flatMap { Double($0.1) } ?? 99
        #expect(run.status == 0 && lines.last?.hasPrefix("3/3 rows (100%)") == true && (took < 0.9 ? lines.count == 1 : lines.count <= 3),
                "\(took) s: \(run.stderr)")

        let script = "{ '\(CLIProcess.binary.path)' list --server \(sandbox.url) 2>err.txt; echo $? > status.txt; } | true"
        let folder = files.directory
        _ = try await blocking { try runTool("/bin/sh", ["-c", script], directory: folder) }
        let status = try String(contentsOf: files.directory.appendingPathComponent("status.txt"), encoding: .utf8)
        let errors = try String(contentsOf: files.directory.appendingPathComponent("err.txt"), encoding: .utf8)
        #expect(status == "0\n" && !errors.contains("Broken pipe") && !errors.contains("cannot write"), "\(status) \(errors)")
    }

    @Test("undo --dry-run says which row it leaves alone and why; undo's report is in the sheet's order")
    func undoSaysWhy() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let files = try Scratch()
        defer { files.cleanup() }
        let a = FirstWeekTests.account(sandbox, sandbox.demo)
        let manifest = try writeManifest(files, rows: 5)
        let report = files.directory.appendingPathComponent("run")
        let run = try await CLIProcess.run(["import", manifest.path, "--quiet", "--no-cache", "--report", report.path] + a)
        #expect(run.status == 0)
        let stock = files.directory.appendingPathComponent("stock.csv")
        try Data("key,stock\nK2,50\n".utf8).write(to: stock)
        let edit = try await CLIProcess.run(["import", stock.path, "--quiet", "--no-cache"] + a)
        #expect(edit.status == 0 && edit.stdout.contains("1 updated"), "\(edit.stdout)")
        let plan = try await CLIProcess.run(["undo", report.path, "--dry-run"] + a)
        #expect(plan.stdout.contains("row 3 K2 Item number 2 skipped: changed since the run (stock 2 → 50): left alone; undo --force deletes it anyway"),
                "\(plan.stdout)\(plan.stderr)")
        let undo = try await CLIProcess.run(["undo", report.path, "--quiet"] + a)
        #expect(undo.status == 1 && undo.stdout.contains("4 deleted, 1 skipped"), "\(undo.stdout)\(undo.stderr)")
        let csv = try String(contentsOf: report.appendingPathComponent("undo/report.csv"), encoding: .utf8)
        let rows = csv.split(whereSeparator: \.isNewline).dropFirst().compactMap { Int($0.split(separator: ",").first ?? "") }
        #expect(rows == [2, 3, 4, 5, 6], "\(csv)")
    }
}
