import Foundation
import Sandbox
import Testing
import TestSupport

/// `--state postgres://…`: what an account remembers lives in a shared PostgreSQL database, so
/// that a machine with an empty home (a fresh pod) knows the account's products as the one
/// that made them does.
@Suite("Shared state in PostgreSQL", .serialized)
struct SharedStateTests {
    /// An empty home, as a fresh pod or another machine has: its own state, cache and config.
    static func home(_ name: String, in files: Scratch) -> [String: String] {
        let folder = files.directory.appendingPathComponent("home-\(name)")
        return ["HOME": folder.path, "XDG_STATE_HOME": folder.appendingPathComponent("state").path,
                "XDG_CACHE_HOME": folder.appendingPathComponent("cache").path, "XDG_CONFIG_HOME": folder.appendingPathComponent("config").path]
    }

    @Test("an import from one home; from another empty home the same sheet is unchanged and runs lists it; without it a fresh home has to find them again by name")
    func freshHomes() async throws {
        let postgres = try await TestPostgres.start()
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 20)
        let account = sandbox.demoAccount
        func home(_ name: String) -> [String: String] { Self.home(name, in: files) }
        let state = ["--state", postgres.address.absoluteString]
        let first = try await CLIProcess.run(["import", manifest.path, "--report", files.directory.appendingPathComponent("r1").path] + state + account,
                                             environment: home("a"))
        #expect(first.status == 0 && first.stdout.contains("20 created"), "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("--state \(postgres.address.absoluteString)"), "the undo line names the shared state: \(first.stdout)")
        // Another machine: an empty home, the state given by the environment.
        let again = try await CLIProcess.run(["import", manifest.path, "--report", files.directory.appendingPathComponent("r2").path] + account,
                                             environment: home("b").merging(["OPENMARKET_STATE": postgres.address.absoluteString]) { $1 })
        #expect(again.status == 0 && again.stdout.contains("20 unchanged"), "\(again.stdout)\(again.stderr)")
        let runs = try await CLIProcess.run(["runs"] + state + account, environment: home("c"))
        #expect(runs.status == 0 && runs.stdout.contains("import") && runs.stdout.components(separatedBy: "products.csv").count - 1 == 2,
                "both runs, listed from a third home: \(runs.stdout)\(runs.stderr)")
        // The same on a fresh home without the shared state: it knows no key, and links each row
        // to the shop's product of its name again (a renamed product would be made anew).
        let alone = try await CLIProcess.run(["import", manifest.path, "--dry-run"] + account, environment: home("d"))
        #expect(alone.stdout.contains("20 linked"), "\(alone.stdout)\(alone.stderr)")
        #expect(try await allProducts(sandbox).count == 20)
        // An address with a password: used, never shown (not in the output, the undo line or the report).
        var withPassword = URLComponents(url: postgres.address, resolvingAgainstBaseURL: false)!
        withPassword.password = "pw-never-shown-42"
        let report = files.directory.appendingPathComponent("r3")
        let grown = try writeManifest(files, rows: 21)  // one more row: a run with something to undo prints its undo line
        let hidden = try await CLIProcess.run(["import", grown.path, "--report", report.path, "--state", withPassword.string!] + account,
                                              environment: home("f"))
        let reportText = (try? String(contentsOf: report.appendingPathComponent("report.json"), encoding: .utf8)) ?? ""
        #expect(hidden.status == 0 && hidden.stdout.contains("1 created, 20 unchanged") && hidden.stdout.contains("OPENMARKET_STATE"), "\(hidden.stdout)\(hidden.stderr)")
        #expect(!(hidden.stdout + hidden.stderr + reportText).contains("pw-never-shown-42") && !reportText.isEmpty)
        let wrong = try await CLIProcess.run(["runs", "--state", "mysql://x/y"] + account, environment: home("e"))
        #expect(wrong.status == 2 && wrong.stderr.contains("give a PostgreSQL address"), "\(wrong.stderr)")
        await sandbox.stop()
        await postgres.stop()
    }

    @Test("two machines, one account: the second is refused (exit 5) naming the first; the first killed with kill -9, the second runs at once and each row is one product")
    func oneRunAcrossMachines() async throws {
        let postgres = try await TestPostgres.start()
        // 80 rows, 2 at a time, 300 ms a request: the first run lasts 12 s or more, so the refused
        // second run (a process start on a loaded CI machine) still finds it part way.
        let sandbox = try await TestSandbox.start { $0.faults.latencyMilliseconds = 300 }
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 80)
        let account = ["--server", sandbox.url, "--identifier", sandbox.demo.identifier, "--secret", sandbox.demo.secret,
                       "--state", postgres.address.absoluteString, "--no-cache"]
        func home(_ name: String) -> [String: String] { Self.home(name, in: files) }
        let first = try CLIProcess(["import", manifest.path, "--jobs", "2", "--report", files.directory.appendingPathComponent("a").path] + account,
                                   environment: home("a"))
        let deadline = ContinuousClock.now + .seconds(60)
        while try await allProducts(sandbox).count < 6, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        let refused = try await CLIProcess.run(["import", manifest.path] + account, environment: home("b"))
        #expect(refused.status == 5 && refused.stderr.contains("another run of this account is running (pid \(first.pid)"), "\(refused.stdout)\(refused.stderr)")
        try await first.kill()
        let made = try await allProducts(sandbox).count
        #expect(made > 0 && made < 80, "killed part way: \(made)")
        let second = try await CLIProcess.run(["import", manifest.path, "--report", files.directory.appendingPathComponent("b").path] + account,
                                              environment: home("b"))
        #expect(second.status == 0, "the lock died with the killed run: \(second.stdout)\(second.stderr)")
        let names = try await allProducts(sandbox).map(\.name)
        #expect(names.count == 80 && Set(names).count == 80, "each row one product: \(names.count)")
        await sandbox.stop()
        await postgres.stop()
    }

    @Test("PostgreSQL restarted under a 600-row import at 150 ms (a managed database's failover): the run waits for the database and goes on; exit 0, 600 products, none twice")
    func databaseRestarted() async throws {
        let postgres = try await TestPostgres.start()
        let sandbox = try await TestSandbox.start { $0.faults.latencyMilliseconds = 150 }
        let files = try Scratch()
        defer { files.cleanup() }
        let rows = 600
        let manifest = try writeManifest(files, rows: rows)
        let account = ["--server", sandbox.url, "--identifier", sandbox.demo.identifier, "--secret", sandbox.demo.secret,
                       "--state", postgres.address.absoluteString, "--no-cache"]
        let child = try CLIProcess(["import", manifest.path] + account, environment: Self.home("pod", in: files))
        func done() -> Int { child.stderr.matches(of: /([0-9]+)\/[0-9]+ rows \(/).compactMap { Int($0.1) }.max() ?? 0 }
        let deadline = ContinuousClock.now + .seconds(90)
        while done() < 20, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(done() >= 20 && done() < rows, "under way when the database goes: \(done()) rows")
        try await postgres.restart(down: 2)
        let status = try await child.exit()
        #expect(status == 0 && child.stdout.contains("\(rows) rows: \(rows) created"), "exit \(status): \(child.stdout.suffix(600))\(child.stderr.suffix(600))")
        let names = try await allProducts(sandbox).map(\.name)
        #expect(names.count == rows && Set(names).count == rows, "each row once: \(names.count) products, \(Set(names).count) names")
        // The state is whole: the same sheet again from another empty home sends nothing.
        let again = try await CLIProcess.run(["import", manifest.path] + account, environment: Self.home("other", in: files))
        #expect(again.status == 0 && again.stdout.contains("\(rows) rows: \(rows) unchanged"), "\(again.stdout.suffix(400))\(again.stderr.suffix(400))")
        await sandbox.stop()
        await postgres.stop()
    }

    @Test("four shards of one run, each from an empty home, one killed with kill -9 and started again from another: every row one product; another run meanwhile refused; runs shows one run; undo --run from another home takes all of it back")
    func shards() async throws {
        let postgres = try await TestPostgres.start()
        // Once shard 2 is under way the sandbox holds every register until it has been killed: it is
        // killed in the middle however late the test's polls come back (a loaded CI saw it finish first).
        let gate = RequestGate(kind: .registers, holdAtMost: .seconds(600))
        let sandbox = try await TestSandbox.start { $0.faults.gate = gate }
        defer { gate.open() }
        let files = try Scratch()
        defer { files.cleanup() }
        let rows = 120
        let manifest = try writeManifest(files, rows: rows)
        let account = ["--server", sandbox.url, "--identifier", sandbox.demo.identifier, "--secret", sandbox.demo.secret,
                       "--state", postgres.address.absoluteString, "--no-cache"]
        func home(_ name: String) -> [String: String] { Self.home(name, in: files) }
        func shard(_ index: Int, home name: String, extra: [String] = []) throws -> CLIProcess {
            // No held write given up as a silent server's (30 s by default).
            try CLIProcess(["import", manifest.path, "--shard", "\(index)/4", "--run", "night-1", "--jobs", "2"] + extra + account,
                           environment: home(name).merging(["OPENMARKET_ANSWER_TIMEOUT": "900"]) { $1 })
        }
        // Shard 2 held to a request a second, then at the gate: still running when it is killed.
        var running = try (0..<4).map { try shard($0, home: "pod-\($0)", extra: $0 == 2 ? ["--rate", "1"] : []) }
        // Until shard 2 has made some of its products (its progress lines say so).
        let deadline = ContinuousClock.now + .seconds(90)
        func shard2Done() -> Int { running[2].stderr.matches(of: /([0-9]+)\/[0-9]+ rows \(/).compactMap { Int($0.1) }.max() ?? 0 }
        while shard2Done() < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        gate.shut(after: 0)
        #expect(shard2Done() >= 3, "shard 2 under way: \(running[2].stderr)")
        let other = try await CLIProcess.run(["import", manifest.path] + account, environment: home("other"))
        #expect(other.status == 5 && other.stderr.contains("(run night-1, shard 2 of 4)"), "a run that is not the shards' is refused: \(other.stderr)")
        let twice = try await CLIProcess.run(["import", manifest.path, "--shard", "2/4", "--run", "night-1"] + account, environment: home("twice"))
        #expect(twice.status == 5, "the same shard twice at once: \(twice.stderr)")
        try await running[2].kill()
        gate.open()
        running[2] = try shard(2, home: "pod-2-again")
        var statuses: [Int32] = []
        for child in running { statuses.append(try await child.exit()) }
        #expect(statuses == [0, 0, 0, 0], "\(statuses) \(running.map { $0.stderr.suffix(300) })")
        let names = try await allProducts(sandbox).map(\.name)
        #expect(names.count == rows && Set(names).count == rows, "each row once: \(names.count) products, \(Set(names).count) names")
        let counted = running.compactMap { $0.stdout.firstMatch(of: /([0-9]+) rows:/).flatMap { Int($0.1) } }
        #expect(counted.count == 4 && counted.allSatisfy { $0 > 0 && $0 < rows }, "each shard took a part: \(counted)")
        let runs = try await CLIProcess.run(["runs"] + account.dropLast(), environment: home("desk"))
        #expect(runs.stdout.components(separatedBy: "run night-1 (").count - 1 == 1 && runs.stdout.contains("(5 shard runs, 1 did not finish): ")
                && runs.stdout.contains("openmarket undo --run night-1"), "one run, its shards summed: \(runs.stdout)\(runs.stderr)")
        // The whole run taken back from yet another empty home.
        let undo = try await CLIProcess.run(["undo", "--run", "night-1"] + account.dropLast(), environment: home("desk"))
        #expect(undo.status == 0 && undo.stdout.contains("night-1, shard 3/4 ") && undo.stdout.components(separatedBy: "night-1, shard 2/4 ").count - 1 == 2,
                "each shard, the killed attempt too: \(undo.stdout)\(undo.stderr)")
        #expect(try await allProducts(sandbox).isEmpty, "every product of every shard deleted")
        let again = try await CLIProcess.run(["undo", "--run", "night-1"] + account.dropLast(), environment: home("desk"))
        #expect(again.status == 0 && again.stdout.components(separatedBy: "already undone").count - 1 == 5, "\(again.stdout)\(again.stderr)")
        let unknown = try await CLIProcess.run(["undo", "--run", "night-2"] + account.dropLast(), environment: home("desk"))
        #expect(unknown.status == 2 && unknown.stderr.contains("no run named night-2"), "\(unknown.stderr)")
        let wrong = try await CLIProcess.run(["import", manifest.path, "--shard", "4/4", "--run", "x"] + account, environment: home("x"))
        #expect(wrong.status != 0 && wrong.stderr.contains("--shard is I/N"), "\(wrong.stderr)")
        await sandbox.stop()
        await postgres.stop()
    }

    @Test("a journal is in the shared state: a shard, then a whole import, killed and started again from another empty home with --mode create, know the rows the dead attempt finished (not created again) and finish the rest once")
    func sharedJournal() async throws {
        let postgres = try await TestPostgres.start()
        let sandbox = try await TestSandbox.start { $0.faults.latencyMilliseconds = 30 }
        let files = try Scratch()
        defer { files.cleanup() }
        let rows = 40
        let manifest = try writeManifest(files, rows: rows)
        let account = ["--server", sandbox.url, "--identifier", sandbox.demo.identifier, "--secret", sandbox.demo.secret,
                       "--state", postgres.address.absoluteString, "--no-cache", "--mode", "create"]
        func home(_ name: String) -> [String: String] { Self.home(name, in: files) }
        let first = try CLIProcess(["import", manifest.path, "--shard", "0/1", "--run", "j-1", "--jobs", "1", "--rate", "6"] + account,
                                   environment: home("pod-a"))
        let deadline = ContinuousClock.now + .seconds(60)
        while try await allProducts(sandbox).count < 6, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(40)) }
        try await first.kill()
        let made = try await allProducts(sandbox).count
        #expect(made >= 6 && made < rows, "killed part way: \(made)")
        let report = files.directory.appendingPathComponent("again")
        let again = try await CLIProcess.run(["import", manifest.path, "--shard", "0/1", "--run", "j-1", "--report", report.path] + account,
                                             environment: home("pod-b"))
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        let json = (try? String(contentsOf: report.appendingPathComponent("report.json"), encoding: .utf8)) ?? ""
        let known = json.components(separatedBy: "already done in an earlier run").count - 1
        #expect(known >= made - 1 && known <= made, "the dead attempt's finished rows, known from the shared journal: \(known) of \(made)")
        let names = try await allProducts(sandbox).map(\.name)
        #expect(names.count == rows && Set(names).count == rows, "each row once: \(names.count)")

        // The same for an import that is not sharded: its journal is the account's too.
        let whole = files.directory.appendingPathComponent("whole.csv")
        try Data(("key,name,price,stock,images\n" + (1...rows).map { "W\($0),Whole number \($0),\(3000 + $0),1,p.jpg\n" }.joined()).utf8).write(to: whole)
        let killed = try CLIProcess(["import", whole.path, "--jobs", "1", "--rate", "6"] + account, environment: home("pod-c"))
        while try await allProducts(sandbox).count < rows + 6, ContinuousClock.now < deadline + .seconds(60) { try await Task.sleep(for: .milliseconds(40)) }
        try await killed.kill()
        let madeWhole = try await allProducts(sandbox).count - rows
        #expect(madeWhole >= 6 && madeWhole < rows, "killed part way: \(madeWhole)")
        let wholeReport = files.directory.appendingPathComponent("whole-again")
        let finished = try await CLIProcess.run(["import", whole.path, "--report", wholeReport.path] + account, environment: home("pod-d"))
        #expect(finished.status == 0, "\(finished.stdout)\(finished.stderr)")
        let wholeJSON = (try? String(contentsOf: wholeReport.appendingPathComponent("report.json"), encoding: .utf8)) ?? ""
        let knownWhole = wholeJSON.components(separatedBy: "already done in an earlier run").count - 1
        #expect(knownWhole >= madeWhole - 1 && knownWhole <= madeWhole, "known from the shared journal: \(knownWhole) of \(madeWhole)")
        #expect(try await allProducts(sandbox).count == 2 * rows)
        await sandbox.stop()
        await postgres.stop()
    }

    @Test("an import's undo line, copied from the screen, works on another machine whose disk never saw the report folder: the run's record is in the shared state; again there, already undone")
    func undoElsewhere() async throws {
        let postgres = try await TestPostgres.start()
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 12)
        let account = sandbox.demoAccount
        let made = try await CLIProcess.run(["import", manifest.path, "--no-cache", "--state", postgres.address.absoluteString,
                                             "--report", files.directory.appendingPathComponent("first-run").path] + account,
                                            environment: Self.home("a", in: files))
        #expect(made.status == 0 && made.stdout.contains("12 created"), "\(made.stdout)\(made.stderr)")
        let printed = try FirstWeekTests.undoLine(made.stdout)
        #expect(printed.arguments.first == "undo" && printed.arguments.contains("--state"), "\(printed)")
        // The record is in the shared state only: the report folder has the report, no record.
        let kept = try FileManager.default.contentsOfDirectory(atPath: printed.arguments[1])
        #expect(kept.contains("report.html") && !kept.contains("run.jsonl"), "\(kept)")
        // The report folder was on the first machine's disk only (a pod's, gone with it).
        try FileManager.default.removeItem(atPath: printed.arguments[1])
        let elsewhere = Self.home("b", in: files).merging(["OPENMARKET_IDENTIFIER": sandbox.demo.identifier,
                                                            "OPENMARKET_SECRET": sandbox.demo.secret]) { $1 }
        let undo = try await CLIProcess.run(printed.arguments, environment: elsewhere)
        #expect(undo.status == 0 && undo.stdout.contains("12 deleted"), "\(undo.stdout)\(undo.stderr)")
        #expect(try await allProducts(sandbox).isEmpty)
        let again = try await CLIProcess.run(printed.arguments, environment: elsewhere)
        #expect(again.status == 0 && again.stdout.contains("already undone"), "\(again.stdout)\(again.stderr)")
        // A run that deleted: its undo on another machine makes the products again, with their photos.
        let four = files.directory.appendingPathComponent("four.csv")
        try Data(("key,name,price,stock,images\n" + (1...4).map { "D\($0),Deleted later \($0),\(500 + $0),1,d\($0).jpg\n" }.joined()).utf8).write(to: four)
        for i in 1...4 { try Data(Fixtures.jpeg(width: 200, height: 150, seed: UInt64(70 + i))).write(to: files.directory.appendingPathComponent("d\(i).jpg")) }
        let state = ["--state", postgres.address.absoluteString, "--no-cache"]
        _ = try await CLIProcess.run(["import", four.path] + state + account, environment: Self.home("a", in: files))
        let photosBefore = try await SharedCacheTests.photoHashes(sandbox, ids: try await allProducts(sandbox).map(\.id))
        let two = files.directory.appendingPathComponent("two.csv")
        try Data("key,name,price,stock,images\nD1,Deleted later 1,501,1,d1.jpg\nD2,Deleted later 2,502,1,d2.jpg\n".utf8).write(to: two)
        let pruned = try await CLIProcess.run(["import", two.path, "--delete-missing", "--max-deletes", "2", "--report", files.directory.appendingPathComponent("prune-run").path] + state + account, environment: Self.home("a", in: files))
        #expect(pruned.status == 0 && pruned.stdout.contains("2 deleted"), "\(pruned.stdout)\(pruned.stderr)")
        let pruneLine = try FirstWeekTests.undoLine(pruned.stdout)
        // The photos saved before the deletes are with the shared record, not in the folder.
        #expect(!FileManager.default.fileExists(atPath: pruneLine.arguments[1] + "/deleted"))
        try FileManager.default.removeItem(atPath: pruneLine.arguments[1])
        let back = try await CLIProcess.run(pruneLine.arguments, environment: elsewhere)
        #expect(back.status == 0 && back.stdout.contains("2 created"), "the deleted products made again: \(back.stdout)\(back.stderr)")
        let after = try await allProducts(sandbox)
        #expect(after.count == 4 && Set(after.map(\.name)).count == 4)
        let photosAfter = try await SharedCacheTests.photoHashes(sandbox, ids: after.map(\.id))
        #expect(photosAfter == photosBefore, "each photo as it was: \(photosAfter.count) of \(photosBefore.count)")
        // Without the shared state the folder is simply unknown.
        let alone = try await CLIProcess.run(["undo", printed.arguments[1]] + account, environment: Self.home("c", in: files))
        #expect(alone.status == 2 && alone.stderr.contains("has no record of a run"), "\(alone.status) \(alone.stdout) \(alone.stderr)")
        await sandbox.stop()
        await postgres.stop()
    }
}
