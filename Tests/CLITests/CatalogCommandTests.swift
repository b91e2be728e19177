import Foundation
import OpenMarketAPI
import Support
import Sandbox
import Testing
import TestSupport

@Suite("health, list, show, delete")
struct CatalogCommandTests {
    /// A sandbox with three products of the demo vendor; the ids newest first.
    func withCatalog(_ body: (TestSandbox, [Int]) async throws -> Void) async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let image = try files.write(Fixtures.jpeg(width: 64, height: 48), named: "a.jpg")
        var ids: [Int] = []
        for (name, price) in [("Green tea", 4500.0), ("녹차 라떼 (큰 컵)", 5200), ("Darjeeling", 12000)] {
            var request = Register(sandbox, name: name, price: price, images: [image])
            request.params["discounted_price"] = price == 5200 ? 200 : 0
            ids.insert(try await request.send().decode(ProductDetail.self).id, at: 0)
        }
        try await body(sandbox, ids)
        await sandbox.stop()
    }

    @Test("health: exit 0 with the answer, exit 3 when nothing listens")
    func health() async throws {
        let sandbox = try await TestSandbox.start()
        let ok = try await CLIProcess.run(["health", "--server", sandbox.url])
        #expect(ok.status == 0)
        #expect(ok.stdout.contains("answered OK"))
        let url = sandbox.url
        await sandbox.stop()
        let down = try await CLIProcess.run(["health", "--server", url])
        #expect(down.status == 3)
        #expect(down.stderr.contains("Couldn't connect") || down.stderr.contains("no answer"), "\(down.stderr)")
        // Something answers, but not an Open Market server: 3 as well, as the help says.
        let other = try await CaptureServer.start([:])
        let foreign = try await CLIProcess.run(["health", "--server", other.url])
        await other.stop()
        #expect(foreign.status == 3, "\(foreign.status) \(foreign.stderr)")
    }

    @Test("list: a readable table, json, csv, and --all across pages")
    func list() async throws {
        try await withCatalog { sandbox, ids in
            let table = try await CLIProcess.run(["list", "--server", sandbox.url])
            #expect(table.status == 0)
            let lines = table.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("ID") == true)
            #expect(lines[1].contains("Darjeeling") && lines[1].contains("₩12,000"))
            #expect(lines[2].contains("녹차 라떼") && lines[2].contains("-₩200"))
            // Columns line up even with double-width Korean text.
            let priceColumn = zip(lines[1...3], ["₩12,000", "₩5,200", "₩4,500"]).map { line, price in
                TerminalWidth.of(String(line[..<line.range(of: price)!.upperBound]))
            }
            #expect(Set(priceColumn).count == 1, "\(lines)")
            #expect(table.stdout.contains("page 1: 3 of 3 products"))

            let json = try await CLIProcess.run(["list", "--server", sandbox.url, "--format", "json"])
            let decoded = try JSONDecoder().decode([ProductSummary].self, from: Data(json.stdout.utf8))
            #expect(decoded.map(\.id) == ids)

            let csv = try await CLIProcess.run(["list", "--server", sandbox.url, "--format", "csv", "--search", "tea"])
            let rows = csv.stdout.split(separator: "\n")
            #expect(rows.first == "id,name,price,currency,discounted_price,stock,vendor_id,created_at")
            #expect(rows.count == 2 && rows[1].hasPrefix("\(ids[2]),Green tea,4500,KRW,0,1,"))

            let all = try await CLIProcess.run(["list", "--server", sandbox.url, "--all", "--per-page", "2", "--format", "json"])
            #expect(try JSONDecoder().decode([ProductSummary].self, from: Data(all.stdout.utf8)).map(\.id) == ids)

            let empty = try await CLIProcess.run(["list", "--server", sandbox.url, "--search", "nothing-like-this"])
            #expect(empty.stdout.contains("No products match"))
        }
    }

    @Test("show: the detail with image URLs; an unknown id is exit 1 with the server's message")
    func show() async throws {
        try await withCatalog { sandbox, ids in
            let shown = try await CLIProcess.run(["show", String(ids[1]), "--server", sandbox.url])
            #expect(shown.status == 0)
            #expect(shown.stdout.contains("녹차 라떼 (큰 컵)"))
            #expect(shown.stdout.contains("discount ₩200 → ₩5,000"))
            #expect(shown.stdout.contains("\(sandbox.url)/images/"))
            let missing = try await CLIProcess.run(["show", "999", "--server", sandbox.url])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("HTTP 404") && missing.stderr.contains("no product with id 999"))
        }
    }

    @Test("delete: #IDs and bare ids, one line each; a product not this vendor's fails by name, the rest go on; undo brings it back; runs lists it")
    func delete() async throws {
        try await withCatalog { sandbox, ids in
            let demo = sandbox.demo
            let files = try Scratch()
            defer { files.cleanup() }
            let report = files.directory.appendingPathComponent("deleted")
            let result = try await CLIProcess.run(["delete", "#\(ids[0])", "999", "--report", report.path, "--server", sandbox.url,
                                                   "--identifier", demo.identifier, "--secret", demo.secret])
            #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("  #\(ids[0]) Darjeeling deleted"), "\(result.stdout)")
            #expect(result.stdout.contains("row 2 failed: product #999 is not a product of this account"), "\(result.stdout)")
            #expect(result.stdout.contains("To take this run back: openmarket undo \(report.path)"))
            #expect(!result.stdout.contains(demo.secret) && !result.stderr.contains(demo.secret))

            let viaEnvironment = try await CLIProcess.run(
                ["delete", String(ids[1]), "--report", files.directory.appendingPathComponent("second").path],
                environment: ["OPENMARKET_SERVER": sandbox.url, "OPENMARKET_IDENTIFIER": demo.identifier,
                              "OPENMARKET_SECRET": demo.secret])
            #expect(viaEnvironment.status == 0, "\(viaEnvironment.stdout)\(viaEnvironment.stderr)")

            // Someone else's credentials: not that vendor's product, nothing deleted.
            let other = try await CLIProcess.run(["delete", String(ids[2]), "--server", sandbox.url,
                                                  "--identifier", sandbox.other.identifier, "--secret", sandbox.other.secret])
            #expect(other.status == 1 && other.stdout.contains("is not a product of this account"), "\(other.stdout)\(other.stderr)")

            let noCredentials = try await CLIProcess.run(["delete", String(ids[2]), "--server", sandbox.url])
            #expect(noCredentials.status == 2 && noCredentials.stderr.contains("needs vendor credentials"), "\(noCredentials.stderr)")

            let left = try await CLIProcess.run(["list", "--server", sandbox.url, "--format", "json"])
            #expect(try JSONDecoder().decode([ProductSummary].self, from: Data(left.stdout.utf8)).map(\.id) == [ids[2]])

            // The first delete taken back: Darjeeling again, with its photo.
            let account = ["--server", sandbox.url, "--identifier", demo.identifier, "--secret", demo.secret]
            let undo = try await CLIProcess.run(["undo", report.path] + account)
            #expect(undo.status == 0 && undo.stdout.contains("1 created"), "\(undo.stdout)\(undo.stderr)")
            let back = try await CLIProcess.run(["list", "--server", sandbox.url, "--format", "json"])
            #expect(try JSONDecoder().decode([ProductSummary].self, from: Data(back.stdout.utf8)).map(\.name).sorted() == ["Darjeeling", "Green tea"])
            let runs = try await CLIProcess.run(["runs"] + account)
            #expect(runs.stdout.contains("delete  #\(ids[0]) 999: 1 deleted, 1 failed") && runs.stdout.contains("undo    undo of deleted"), "\(runs.stdout)")
        }
    }

    @Test("config file: used when private, refused when others can read it, profiles by name")
    func configFile() async throws {
        try await withCatalog { sandbox, ids in
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("config.toml").path
            let demo = sandbox.demo, other = sandbox.other
            try """
            server = "\(sandbox.url)"
            identifier = "\(other.identifier)"
            secret = "\(other.secret)"

            [profiles.main-shop]
            server = "\(sandbox.url)"
            identifier = "\(demo.identifier)"
            secret = "\(demo.secret)"
            """.write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o644)
            let exposed = try await CLIProcess.run(["delete", String(ids[0]), "--config", path])
            #expect(exposed.status == 2)
            #expect(exposed.stderr.contains("chmod 600"))

            chmod(path, 0o600)
            // The top section is the other vendor: not that vendor's product, nothing deleted.
            let top = try await CLIProcess.run(["delete", String(ids[0]), "--config", path])
            #expect(top.status == 1 && top.stdout.contains("is not a product of this account"), "\(top.stdout)")
            // The profile is the owner.
            let profile = try await CLIProcess.run(["delete", String(ids[0]), "--config", path, "--profile", "main-shop"])
            #expect(profile.status == 0, "\(profile.stdout) \(profile.stderr)")
            // Flags win over the file.
            let flags = try await CLIProcess.run(["delete", String(ids[1]), "--config", path,
                                                  "--identifier", demo.identifier, "--secret", demo.secret])
            #expect(flags.status == 0)
            let unknown = try await CLIProcess.run(["list", "--config", path, "--profile", "nope"])
            #expect(unknown.status == 2 && unknown.stderr.contains("main-shop"))
            // The default path under XDG_CONFIG_HOME is read too.
            let home = directory.appendingPathComponent("xdg/openmarket")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: path, toPath: home.appendingPathComponent("config.toml").path)
            let viaDefault = try await CLIProcess.run(["list", "--format", "json"],
                                                     environment: ["XDG_CONFIG_HOME": directory.appendingPathComponent("xdg").path])
            #expect(viaDefault.status == 0)
            #expect(try JSONDecoder().decode([ProductSummary].self, from: Data(viaDefault.stdout.utf8)).map(\.id) == [ids[2]])
        }
    }

    @Test("with no server, commands use the built-in sandbox and its demo vendor")
    func embeddedSandbox() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let health = try await CLIProcess.run(["health"], directory: directory)
        #expect(health.status == 0)
        #expect(health.stderr.contains("Using the built-in sandbox at http://127.0.0.1:"))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent(".openmarket/sandbox/sandbox.sqlite").path))
        let list = try await CLIProcess.run(["list"], directory: directory)
        #expect(list.status == 0 && list.stdout.contains("No products"))
        // In the merchant's language: the first line a Korean merchant sees.
        let korean = try await CLIProcess.run(["health"], directory: directory, environment: ["LANG": "ko_KR.UTF-8"])
        #expect(korean.status == 0 && korean.stderr.contains("내장 샌드박스를 씁니다: http://127.0.0.1:") && !korean.stderr.contains("Using"), "\(korean.stderr)")
    }
}
