import Foundation
import Testing
import TestSupport

/// `openmarket console --state postgres://…`: every shop the page opens keeps its state where
/// the command was told, the profiles picked from the menu and the feeds run from the page
/// included, so that another machine sharing the database sees their runs, links and undo.
@Suite("The console under a shared state", .serialized)
struct ConsoleStateTests {
    /// A config file with two profiles, readable by its owner only (as `load` asks).
    static func writeConfig(_ home: [String: String], sandbox: TestSandbox, state: String? = nil) throws {
        let folder = URL(fileURLWithPath: home["XDG_CONFIG_HOME"]!).appendingPathComponent("openmarket")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let own = state.map { "state = \"\($0)\"\n" } ?? ""
        let text = """
            [profiles.p]
            server = "\(sandbox.url)"
            identifier = "\(sandbox.demo.identifier)"
            secret = "\(sandbox.demo.secret)"

            [profiles.q]
            server = "\(sandbox.url)"
            identifier = "\(sandbox.other.identifier)"
            secret = "\(sandbox.other.secret)"
            \(own)
            """
        let file = folder.appendingPathComponent("config.toml")
        try Data(text.utf8).write(to: file)
        chmod(file.path, 0o600)
    }

    /// An empty home (as another machine has) with the config file of both profiles.
    static func home(_ name: String, _ files: Scratch, _ sandbox: TestSandbox, state: String? = nil) throws -> [String: String] {
        let home = SharedStateTests.home(name, in: files)
        try writeConfig(home, sandbox: sandbox, state: state)
        return home
    }

    /// The console's address and its two cookies once the token is traded and `profile` picked.
    struct Page {
        let base: String
        let cookie: String
        var origin: String { String(base.dropLast()) }

        func post(_ path: String, _ form: String) async throws -> CurlResult {
            try await curl(["-H", "Cookie: \(cookie)", "-H", "Origin: \(origin)", "--data", form, base + path])
        }

        func get(_ path: String) async throws -> CurlResult { try await curl(["-H", "Cookie: \(cookie)", base + path]) }

        /// A job started by a form, followed until its page has no Stop.
        func run(_ path: String, _ form: String) async throws -> String {
            let started = try await post(path, form)
            let job = try #require(started.headers["location"], "\(path): \(started.status) \(started.text.prefix(400))")
            for _ in 0..<1200 {
                let page = try await get(String(job.dropFirst())).text
                if !page.contains("id=\"stop\"") { return page }
                try await Task.sleep(for: .milliseconds(100))
            }
            throw CLIFailure("\(path) did not end in 120 s")
        }
    }

    static func open(_ console: CLIProcess, profile: String) async throws -> Page {
        let line = try await console.waitForOutput { $0.contains("?token=") }
        let entry = try #require(line.split(separator: " ").first { $0.contains("?token=") }.map(String.init))
        let base = String(entry.prefix { $0 != "?" })
        let traded = try await curl([entry])
        let token = try #require(traded.headers["set-cookie"]?.split(separator: ";").first.map(String.init), "\(traded.status)")
        let picked = try await curl(["-H", "Cookie: \(token)", base + "shop?name=\(profile)"])
        let shop = try #require(picked.headers["set-cookie"]?.split(separator: ";").first.map(String.init), "\(picked.status)")
        return Page(base: base, cookie: "\(token); \(shop)")
    }

    @Test("console --profile p --state postgres://…; profile q picked from the menu: the sheet applied and the feed run from the page are q's runs in PostgreSQL, its links there too (another empty home sees both runs and finds the rows unchanged)")
    func profileFromMenuUnderState() async throws {
        let postgres = try await TestPostgres.start()
        let sandbox = try await TestSandbox.start()
        let supplier = try await FeedSourceServer.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let sheet = try writeManifest(files, rows: 5)
        let photo = supplier.servePhoto("s.jpg", try Fixtures.jpeg(width: 48, height: 36, seed: 4))
        supplier.serve("code,title,cost,qty,photo\n" + (1...3).map { "S\($0),Supplier tea \($0),\(1000 * $0),\($0),\(photo)\n" }.joined())
        let home = try Self.home("console", files, sandbox)
        let feeds = URL(fileURLWithPath: home["XDG_CONFIG_HOME"]!).appendingPathComponent("openmarket/feeds")
        try FileManager.default.createDirectory(at: feeds, withIntermediateDirectories: true)
        try Data(Fixtures.feedText(source: supplier.feedURL).utf8).write(to: feeds.appendingPathComponent("acme.toml"))
        let state = postgres.address.absoluteString

        let console = try CLIProcess(["console", files.directory.path, "--profile", "p", "--state", state, "--no-open"], environment: home)
        let page = try await Self.open(console, profile: "q")
        let applied = try await page.run("apply", "sheet=products.csv")
        #expect(applied.contains("5 rows: 5 created"), "\(applied.suffix(1500))")
        let fed = try await page.run("feeds/run", "feed=acme")
        #expect(fed.contains("acme: done: 3 rows: 3 created"), "\(fed.suffix(1500))")
        console.signal(SIGINT)
        _ = try await console.exit()

        // Another machine: an empty home with the same config, the same database.
        let other = try Self.home("other", files, sandbox)
        let runs = try await CLIProcess.run(["runs", "--profile", "q", "--state", state], environment: other)
        #expect(runs.status == 0 && runs.stdout.contains("import") && runs.stdout.contains("feed"), "q's runs, from the shared state: \(runs.stdout)\(runs.stderr)")
        let again = try await CLIProcess.run(["import", sheet.path, "--dry-run", "--profile", "q", "--state", state], environment: other)
        #expect(again.status == 0 && again.stdout.contains("5 unchanged"), "q's links are in the database: \(again.stdout)\(again.stderr)")
        // The profile p (the command's own) ran nothing.
        let own = try await CLIProcess.run(["runs", "--profile", "p", "--state", state], environment: other)
        #expect(own.stdout.contains("No runs recorded"), "\(own.stdout)\(own.stderr)")
        await supplier.stop()
        await sandbox.stop()
        await postgres.stop()
    }

    @Test("a profile's own `state = postgres://…` in the config file is where its runs go, from the command line and from the console's menu; --state wins over it; a wrong one is said naming the profile")
    func profileCarriesState() async throws {
        let postgres = try await TestPostgres.start()
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let sheet = try writeManifest(files, rows: 4)
        let state = postgres.address.absoluteString
        let home = try Self.home("a", files, sandbox, state: state)

        let console = try CLIProcess(["console", files.directory.path, "--profile", "p", "--no-open"], environment: home)
        let page = try await Self.open(console, profile: "q")
        let applied = try await page.run("apply", "sheet=products.csv")
        #expect(applied.contains("4 rows: 4 created"), "\(applied.suffix(1500))")
        console.signal(SIGINT)
        _ = try await console.exit()

        // Another home whose config names no state: the runs are found with --state alone.
        let other = try Self.home("b", files, sandbox)
        let runs = try await CLIProcess.run(["runs", "--profile", "q", "--state", state], environment: other)
        #expect(runs.status == 0 && runs.stdout.contains("import"), "\(runs.stdout)\(runs.stderr)")
        let here = try await CLIProcess.run(["runs", "--profile", "q"], environment: other)
        #expect(here.stdout.contains("No runs recorded"), "this machine's own state has none: \(here.stdout)\(here.stderr)")
        // From the first home, the profile's state is used without a flag.
        let dry = try await CLIProcess.run(["import", sheet.path, "--dry-run", "--profile", "q"], environment: home)
        #expect(dry.stdout.contains("4 unchanged"), "\(dry.stdout)\(dry.stderr)")

        let wrong = try Self.home("c", files, sandbox, state: "mysql://x/y")
        let refused = try await CLIProcess.run(["runs", "--profile", "q"], environment: wrong)
        #expect(refused.status == 2 && refused.stderr.contains("the profile's state: give a PostgreSQL address"), "\(refused.stderr)")
        let flagWins = try await CLIProcess.run(["runs", "--profile", "q", "--state", state], environment: wrong)
        #expect(flagWins.status == 0 && flagWins.stdout.contains("import"), "\(flagWins.stdout)\(flagWins.stderr)")
        await sandbox.stop()
        await postgres.stop()
    }
}
