import Foundation
import Testing
import TestSupport

/// `--state postgres://…`: what an account remembers lives in a shared PostgreSQL database, so
/// that a machine with an empty home (a fresh pod) knows the account's products as the one
/// that made them does.
@Suite("Shared state in PostgreSQL", .serialized)
struct SharedStateTests {
    @Test("an import from one home; from another empty home the same sheet is unchanged and runs lists it; without it a fresh home has to find them again by name")
    func freshHomes() async throws {
        let postgres = try TestPostgres.start()
        defer { postgres.stop() }
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 20)
        let account = ["--server", sandbox.url, "--identifier", sandbox.demo.identifier, "--secret", sandbox.demo.secret]
        func home(_ name: String) -> [String: String] {
            let folder = files.directory.appendingPathComponent("home-\(name)")
            return ["HOME": folder.path, "XDG_STATE_HOME": folder.appendingPathComponent("state").path,
                    "XDG_CACHE_HOME": folder.appendingPathComponent("cache").path, "XDG_CONFIG_HOME": folder.appendingPathComponent("config").path]
        }
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
        let wrong = try await CLIProcess.run(["runs", "--state", "mysql://x/y"] + account, environment: home("e"))
        #expect(wrong.status == 2 && wrong.stderr.contains("give a PostgreSQL address"), "\(wrong.stderr)")
        await sandbox.stop()
    }
}
