import Foundation
import OpenMarketAPI
import Testing
import TestSupport

@Suite("openmarket undo and runs", .serialized)
struct UndoCommandTests {
    static func account(_ sandbox: TestSandbox) -> [String] {
        sandbox.demoAccount
    }

    /// Starts the command, waits until it has visibly done something (however slow the
    /// machine is), then kills it with SIGKILL a random moment later.
    static func kill(_ arguments: [String], after progressed: () async throws -> Bool, generator: inout SplitMix) async throws {
        let child = try CLIProcess(arguments)
        let deadline = ContinuousClock.now + .seconds(90)
        while try await !progressed(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        try await Task.sleep(for: .milliseconds(Int(generator.next() % 500)))
        try await child.kill()
    }

    @Test("kill -9 during undo, then the same command again: exactly once; an undo of the undo too; runs lists them newest first")
    func killedUndo() async throws {
        let sandbox = try await TestSandbox.start { $0.faults.latencyMilliseconds = 15 }
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 120)
        let created = files.directory.appendingPathComponent("report-created")
        // One write at a time: a run of some seconds, long enough for progress lines (a run over
        // in under a second prints only its end).
        // One write at a time is slow on a machine the whole suite loads at its start: minutes, not a hang.
        let slow = Duration.seconds(480)
        let first = try await CLIProcess.run(["import", manifest.path, "--no-cache", "--jobs", "1", "--report", created.path] + Self.account(sandbox),
                                             timeout: slow)
        #expect(first.status == 0 && first.stdout.contains("To take this run back: openmarket undo \(created.path)"), "\(first.stdout)\(first.stderr)")
        #expect(try await allProducts(sandbox).count == 120)
        // Not a terminal: a progress line per 10 % on stderr, with the rate and the time left.
        let progress = first.stderr.split(separator: "\n").filter { $0.contains("/120 rows (") }
        #expect(progress.count >= 5 && progress.contains { $0.contains("/s, about") && $0.hasSuffix(" left") }
                && progress.last?.hasPrefix("120/120 rows (100%), 0 failed, ") == true, "\(first.stderr)")

        // Take the import back (120 deletes), killed at two random moments, then finished.
        var generator = SplitMix(seed: 7)
        let undo = ["undo", created.path] + Self.account(sandbox)
        // The undo runs as concurrently as the import: paced here (--rate 5, 24 s for the 120), so that
        // the kills land while it runs even when other tests hold the test process's threads (at
        // --rate 20, three full suites of session 38 saw the whole undo done before a poll came back).
        var left: [Int] = []
        for _ in 1...2 {
            let before = try await allProducts(sandbox).count
            try await Self.kill(undo + ["--rate", "5"], after: { try await allProducts(sandbox).count < before }, generator: &generator)
            left.append(try await allProducts(sandbox).count)
        }
        #expect(left.contains { $0 > 0 && $0 < 120 }, "a kill landed in the middle of the undo: \(left)")
        let finished = try await CLIProcess.run(undo, timeout: slow)
        #expect(finished.status == 0, "\(finished.stdout)\(finished.stderr)")
        #expect(finished.stdout.contains("deleted"), "\(finished.stdout)")
        #expect(try await allProducts(sandbox).isEmpty, "every product the import made is gone")
        let again = try await CLIProcess.run(undo)
        #expect(again.status == 0 && again.stdout.contains("already undone"), "\(again.stdout)\(again.stderr)")

        // Take the undo back: the 120 made again from the saved photos, killed three times.
        let redo = ["undo", created.appendingPathComponent("undo").path] + Self.account(sandbox)
        for _ in 1...3 {
            let before = try await allProducts(sandbox).count
            try await Self.kill(redo + ["--rate", "60"], after: { try await allProducts(sandbox).count > before }, generator: &generator)
            let names = try await allProducts(sandbox).map(\.name)
            #expect(Set(names).count == names.count, "no product made twice after a kill")
        }
        let remade = try await CLIProcess.run(redo, timeout: slow)
        #expect(remade.status == 0, "\(remade.stdout)\(remade.stderr)")
        let products = try await allProducts(sandbox)
        #expect(products.count == 120 && Set(products.map(\.name)).count == 120, "\(products.count) products")
        for product in products {
            let i = try #require(Int(product.name.dropFirst("Item number ".count)))
            #expect(product.price == Money(1000 + i) && product.stock == i % 7)
        }
        // The keys are linked to the products made again: the sheet changes nothing.
        let sync = try await CLIProcess.run(importArguments(manifest, sandbox))
        #expect(sync.status == 0 && sync.stdout.contains("120 unchanged"), "\(sync.stdout)\(sync.stderr)")

        let runs = try await CLIProcess.run(["runs"] + Self.account(sandbox))
        #expect(runs.status == 0)
        let lines = runs.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }
        #expect(lines.count == 4, "\(runs.stdout)")
        #expect(lines.first?.contains("import  products.csv: 120 unchanged") == true, "newest first: \(runs.stdout)")
        #expect(lines.dropFirst().first?.contains("undo    undo of undo: 120 created") == true, "\(runs.stdout)")
        #expect(lines.last?.contains("import  products.csv: 120 created") == true, "\(runs.stdout)")
        #expect(!runs.stdout.contains(sandbox.demo.secret) && !runs.stdout.contains(sandbox.demo.identifier))
        await sandbox.stop()
    }

    @Test("undo refuses a folder without a record and another account; --delete-missing over the cap exits 1 with the count")
    func refusals() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let none = try await CLIProcess.run(["undo", files.directory.path] + Self.account(sandbox))
        #expect(none.status == 2 && none.stderr.contains("has no record of a run"), "\(none.stderr)")

        let manifest = try writeManifest(files, rows: 4)
        let report = files.directory.appendingPathComponent("report-a")
        _ = try await CLIProcess.run(["import", manifest.path, "--no-cache", "--report", report.path] + Self.account(sandbox))
        let other = ["--server", sandbox.url, "--identifier", sandbox.other.identifier, "--secret", sandbox.other.secret]
        let wrong = try await CLIProcess.run(["undo", report.path] + other)
        #expect(wrong.status == 2 && wrong.stderr.contains("another account"), "\(wrong.stderr)")

        let two = try writeManifest(files, rows: 2, name: "two.csv")
        let refused = try await CLIProcess.run(importArguments(two, sandbox, ["--delete-missing"]))
        #expect(refused.status == 1 && refused.stderr.contains("would delete 2 products") && refused.stderr.contains("--max-deletes 0"),
                "\(refused.stdout)\(refused.stderr)")
        #expect(try await allProducts(sandbox).count == 4)
        await sandbox.stop()
    }
}
