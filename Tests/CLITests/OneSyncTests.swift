import Foundation
import OpenMarketAPI
import Sandbox
import Testing
import TestSupport

/// Every command that writes goes through the one sync: the merchant's keys survive a
/// delete, a migration and their undos, and every run is recorded, listed and undoable.
@Suite("One sync for every path that writes", .serialized)
struct OneSyncTests {
    static func account(_ sandbox: TestSandbox, _ vendor: SandboxVendor) -> [String] {
        ["--server", sandbox.url, "--identifier", vendor.identifier, "--secret", vendor.secret]
    }

    static func products(_ sandbox: TestSandbox, vendor: Int) async throws -> [ProductSummary] {
        try await curl(["\(sandbox.url)/api/products?items_per_page=500"]).decode(ProductPage.self).pages.filter { $0.vendorId == vendor }
    }

    @Test("samples as A; delete TEA-001 and its undo; migrate A → B keeps the keys (the sheet as B is 20 unchanged); migrate's undo empties B; runs lists each kind")
    func keysSurviveEveryPath() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let files = try Scratch()
        defer { files.cleanup() }
        let sheet = ImportCommandTests.samples.appendingPathComponent("products.csv").path
        let a = Self.account(sandbox, sandbox.demo), b = Self.account(sandbox, sandbox.other)
        func folder(_ name: String) -> String { files.directory.appendingPathComponent(name).path }

        let imported = try await CLIProcess.run(["import", sheet, "--report", folder("import"), "--quiet"] + a)
        #expect(imported.status == 0 && imported.stdout.contains("20 rows: 20 created"), "\(imported.stdout)\(imported.stderr)")

        // delete by merchant key: recorded, undoable, and the key comes back with the product.
        let deleted = try await CLIProcess.run(["delete", "TEA-001", "--report", folder("delete")] + a)
        #expect(deleted.status == 0 && deleted.stdout.contains(" TEA-001 ") && deleted.stdout.contains(" deleted\n"), "\(deleted.stdout)\(deleted.stderr)")
        #expect(deleted.stdout.contains("To take this run back: openmarket undo \(folder("delete"))"))
        #expect(try await Self.products(sandbox, vendor: sandbox.demo.id).count == 19)
        let unknown = try await CLIProcess.run(["delete", "NO-SUCH-KEY"] + a)
        #expect(unknown.status == 1 && unknown.stdout.contains("no product of this account has the key NO-SUCH-KEY"), "\(unknown.stdout)")
        let undone = try await CLIProcess.run(["undo", folder("delete"), "--quiet"] + a)
        #expect(undone.status == 0 && undone.stdout.contains("1 created"), "\(undone.stdout)\(undone.stderr)")
        let again = try await CLIProcess.run(["import", sheet, "--report", folder("again"), "--quiet"] + a)
        #expect(again.status == 0 && again.stdout.contains("20 rows: 20 unchanged"), "\(again.stdout)\(again.stderr)")

        // migrate A → B: B knows each product by A's key, so the sheet as B sends nothing.
        let migrate = ["migrate", "--from", sandbox.url, "--from-identifier", sandbox.demo.identifier, "--from-secret", sandbox.demo.secret,
                       "--to", sandbox.url, "--to-identifier", sandbox.other.identifier, "--to-secret", sandbox.other.secret,
                       "--journal", folder("migrate.journal"), "--quiet"]
        let moved = try await CLIProcess.run(migrate + ["--report", folder("migrate")])
        #expect(moved.status == 0 && moved.stdout.contains("20 rows: 20 created"), "\(moved.stdout)\(moved.stderr)")
        let report = try String(contentsOfFile: folder("migrate") + "/report.csv", encoding: .utf8)
        #expect(report.contains(",TEA-001,") && !report.contains("source-product-"), "\(report.prefix(400))")
        let asB = try await CLIProcess.run(["import", sheet, "--report", folder("as-b"), "--dry-run", "--quiet"] + b)
        #expect(asB.status == 0 && asB.stdout.contains("20 rows: 20 unchanged"), "\(asB.stdout)\(asB.stderr)")
        #expect(!asB.stdout.contains("photos that differ"), "\(asB.stdout)")
        let twice = try await CLIProcess.run(migrate + ["--report", folder("migrate-2")])
        #expect(twice.status == 0 && twice.stdout.contains("20 rows: 20 unchanged") && !twice.stdout.contains("photos that differ"),
                "\(twice.stdout)\(twice.stderr)")

        // migrate's printed undo works and empties B; A is untouched.
        #expect(moved.stdout.contains("To take this run back: openmarket undo \(folder("migrate"))"))
        let back = try await CLIProcess.run(["undo", folder("migrate"), "--quiet"] + b)
        #expect(back.status == 0 && back.stdout.contains("20 deleted"), "\(back.stdout)\(back.stderr)")
        #expect(try await Self.products(sandbox, vendor: sandbox.other.id).isEmpty)
        #expect(try await Self.products(sandbox, vendor: sandbox.demo.id).count == 20)

        let runsA = try await CLIProcess.run(["runs"] + a)
        for line in ["delete  TEA-001: 1 deleted", "undo    undo of delete", "import  products.csv: 20 created"] {
            #expect(runsA.stdout.contains(line), "\(line) missing: \(runsA.stdout)")
        }
        let runsB = try await CLIProcess.run(["runs"] + b)
        #expect(runsB.stdout.contains("migrate the products of \(sandbox.url): 20 created")
                && runsB.stdout.contains("undo    undo of migrate"), "\(runsB.stdout)")
    }

    @Test("migrate --then-delete-source: refused over --max-deletes (nothing deleted); under it a move whose source undo brings the products back with their keys; the same with both accounts' records in the shared state",
          arguments: [false, true])
    func move(shared: Bool) async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let postgres = shared ? try await TestPostgres.start() : nil
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 4)
        let state = postgres.map { ["--state", $0.address.absoluteString] } ?? []
        let a = Self.account(sandbox, sandbox.demo) + state
        func folder(_ name: String) -> String { files.directory.appendingPathComponent(name).path }
        let imported = try await CLIProcess.run(["import", manifest.path, "--report", folder("import"), "--quiet", "--no-cache"] + a)
        #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        let migrate = ["migrate", "--from", sandbox.url, "--from-identifier", sandbox.demo.identifier, "--from-secret", sandbox.demo.secret,
                       "--to", sandbox.url, "--to-identifier", sandbox.other.identifier, "--to-secret", sandbox.other.secret,
                       "--journal", folder("journal"), "--quiet", "--then-delete-source"] + state
        let capped = try await CLIProcess.run(migrate + ["--report", folder("m1"), "--max-deletes", "3"])
        #expect(capped.status == 1 && capped.stdout.contains("more than --max-deletes 3: nothing was deleted"), "\(capped.stdout)\(capped.stderr)")
        #expect(try await Self.products(sandbox, vendor: sandbox.demo.id).count == 4)

        let moved = try await CLIProcess.run(Array(migrate.filter { $0 != "--quiet" }) + ["--report", folder("m2"), "--max-deletes", "4"])
        #expect(moved.status == 0 && moved.stdout.contains("Source: 4 rows: 4 deleted"), "\(moved.stdout)\(moved.stderr)")
        #expect(try await Self.products(sandbox, vendor: sandbox.demo.id).isEmpty)
        #expect(try await Self.products(sandbox, vendor: sandbox.other.id).count == 4)
        // Each record in one place: the folders' own, or (shared) the state's alone.
        let recordFiles = ["m1/run.jsonl", "m2/source-deletes/run.jsonl"].filter { FileManager.default.fileExists(atPath: folder($0)) }
        #expect(recordFiles.count == (shared ? 0 : 2), "\(recordFiles)")

        // The undo lines as printed: one block, the source first, each line with its own account.
        let lines = moved.stdout.split(separator: "\n").map(String.init)
        #expect(!moved.stdout.contains("To take this run back"), "a move prints one ordered block: \(moved.stdout)")
        let first = try #require(lines.first { $0.hasPrefix("  1. the source's products back: ") }, "\(moved.stdout)")
        let second = try #require(lines.first { $0.hasPrefix("  2. then the copies deleted: ") }, "\(moved.stdout)")
        #expect(lines.firstIndex(of: first)! < lines.firstIndex(of: second)!)
        #expect(moved.stdout.contains("to the source account's identifier and secret") && moved.stdout.contains("to the target account's"))
        func words(_ line: String) -> [String] {
            Array(line.split(separator: ":", maxSplits: 1)[1].split(separator: " ").map(String.init).dropFirst())  // without "openmarket"
        }
        func env(_ vendor: SandboxVendor) -> [String: String] { ["OPENMARKET_IDENTIFIER": vendor.identifier, "OPENMARKET_SECRET": vendor.secret] }
        // The copies' line first (the wrong order), even with the target's credentials: refused, nothing deleted.
        let early = try await CLIProcess.run(words(second), environment: env(sandbox.other))
        #expect(early.status == 2 && early.stderr.contains("not back yet") && early.stderr.contains("source-deletes"), "\(early.stdout)\(early.stderr)")
        #expect(try await Self.products(sandbox, vendor: sandbox.other.id).count == 4, "never both shops empty")
        // As printed, in order, each with its own account.
        let undo = try await CLIProcess.run(words(first), environment: env(sandbox.demo))
        #expect(undo.status == 0 && undo.stdout.contains("4 created"), "\(undo.stdout)\(undo.stderr)")
        let copies = try await CLIProcess.run(words(second), environment: env(sandbox.other))
        #expect(copies.status == 0 && copies.stdout.contains("4 deleted"), "\(copies.stdout)\(copies.stderr)")
        #expect(try await Self.products(sandbox, vendor: sandbox.demo.id).count == 4)
        #expect(try await Self.products(sandbox, vendor: sandbox.other.id).isEmpty)
        let again = try await CLIProcess.run(["import", manifest.path, "--report", folder("again"), "--quiet", "--no-cache"] + a)
        #expect(again.status == 0 && again.stdout.contains("4 rows: 4 unchanged"), "\(again.stdout)\(again.stderr)")
        await postgres?.stop()
    }

    @Test("two imports started in the same second keep two report folders")
    func sameSecond() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 3)
        let a = Self.account(sandbox, sandbox.demo)
        let real = try CLIProcess(["import", manifest.path, "--quiet", "--no-cache"] + a)
        let dry = try CLIProcess(["import", manifest.path, "--quiet", "--no-cache", "--dry-run"] + a)
        let (realStatus, dryStatus) = (try await real.exit(), try await dry.exit())
        #expect(realStatus == 0 && dryStatus == 0, "\(real.stdout)\(real.stderr)\(dry.stdout)\(dry.stderr)")
        let folders = try FileManager.default.contentsOfDirectory(atPath: files.directory.path).filter { $0.hasPrefix("openmarket-report-") }
        #expect(folders.count == 2, "\(folders)")
        for name in folders {
            let csv = try String(contentsOfFile: files.directory.appendingPathComponent(name + "/report.csv").path, encoding: .utf8)
            #expect(csv.split(whereSeparator: \.isNewline).count == 4, "\(name): \(csv)")
        }
    }
}
