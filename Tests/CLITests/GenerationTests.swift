import Foundation
import OpenMarketAPI
import Sandbox
import Testing
import TestSupport

/// The merchant's whole round against each generation of the real server, with no --api:
/// the sandbox plays each one with its own JSON (not the client's models).
@Suite("Every generation of server, found without being told", .serialized)
struct GenerationTests {
    /// The samples, with the rows whose prices have cents left out for a 2021 server (which
    /// takes whole amounts only: those rows are refused by name, tested below).
    static func sheet(in files: Scratch, wholeOnly: Bool) throws -> (path: String, rows: Int) {
        let samples = ImportCommandTests.samples
        let text = try String(contentsOf: samples.appendingPathComponent("products.csv"), encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        if wholeOnly {
            lines = [lines[0]] + lines.dropFirst().filter { line in
                !line.split(separator: ",").contains { $0.contains(".") && Double($0) != nil }
            }
        }
        let folder = files.directory.appendingPathComponent("shop")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: folder.appendingPathComponent("images").path) {
            try FileManager.default.copyItem(at: samples.appendingPathComponent("images"), to: folder.appendingPathComponent("images"))
        }
        let path = folder.appendingPathComponent("products.csv").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return (path, lines.count - 1)
    }

    static func credentials(_ sandbox: TestSandbox, _ api: SandboxAPI, password: String = "merchant-pw-1") -> [String] {
        api == .v2021 ? ["--server", sandbox.url, "--secret", password]
            : sandbox.demoAccount
    }

    @Test("import, again, one price, --delete-missing, export: against each generation, found from its answers",
          arguments: [SandboxAPI.v2021, .v2022January, .v2022October])
    func merchantRound(api: SandboxAPI) async throws {
        let sandbox = try await TestSandbox.start { $0.api = api }
        defer { Task { await sandbox.stop() } }
        let files = try Scratch()
        defer { files.cleanup() }
        let account = Self.credentials(sandbox, api)
        func folder(_ name: String) -> String { files.directory.appendingPathComponent(name).path }
        let (sheet, rows) = try Self.sheet(in: files, wholeOnly: api == .v2021)

        let health = try await CLIProcess.run(["health", "--server", sandbox.url])
        #expect(health.status == 0 && health.stdout.contains("server generation: \(api.rawValue) "), "\(health.stdout)\(health.stderr)")

        let first = try await CLIProcess.run(["import", sheet, "--report", folder("1"), "--quiet"] + account)
        #expect(first.status == 0 && first.stdout.contains("\(rows) rows: \(rows) created"), "\(first.stdout)\(first.stderr)")
        // The report links each product to where its server shows it.
        let html = try String(contentsOfFile: folder("1") + "/report.html", encoding: .utf8)
        #expect(html.contains(sandbox.url + (api == .v2021 ? "/item/" : "/api/products/")), "\(html.prefix(200))")

        // What the server holds, read with a client that finds the generation too: the
        // description kept (2022-01 reads only `descriptions`), the discount a discount.
        var configuration = ClientConfiguration(server: URL(string: sandbox.url)!)
        configuration.retry = .none
        let reader = try OpenMarketClient(configuration)
        #expect(try reader.generation().rawValue == api.rawValue)
        let page = try reader.page(1, perPage: 50)
        let latte = try #require(page.pages.first { $0.name.hasPrefix("녹차 라떼") })
        let detail = try reader.product(id: latte.id)
        #expect(detail.summary.description == "제주 녹차로 만든 라떼, 350 ml.")
        #expect(detail.summary.price == 4500 && detail.summary.discountedPrice == 500)
        if api == .v2021 {
            // On the wire, the 2021 server holds the sale price.
            let raw = try await curl(["\(sandbox.url)/item/\(latte.id)"]).json()
            #expect(raw["discounted_price"] as? Int == 4000 && raw["password"] == nil)
        }

        let again = try await CLIProcess.run(["import", sheet, "--report", folder("2"), "--quiet"] + account)
        #expect(again.status == 0 && again.stdout.contains("\(rows) rows: \(rows) unchanged"), "\(again.stdout)\(again.stderr)")

        var text = try String(contentsOfFile: sheet, encoding: .utf8)
        text = text.replacingOccurrences(of: ",32000,", with: ",31000,")
        try text.write(toFile: sheet, atomically: true, encoding: .utf8)
        let edited = try await CLIProcess.run(["import", sheet, "--report", folder("3"), "--quiet"] + account)
        #expect(edited.status == 0 && edited.stdout.contains("\(rows) rows: 1 updated, \(rows - 1) unchanged"), "\(edited.stdout)\(edited.stderr)")
        #expect(edited.stdout.contains("price 32000 → 31000"), "\(edited.stdout)")

        var lines = text.split(separator: "\n").map(String.init)
        let removed = try #require(lines.firstIndex { $0.hasPrefix("CUP-002,") })
        lines.remove(at: removed)
        try (lines.joined(separator: "\n") + "\n").write(toFile: sheet, atomically: true, encoding: .utf8)
        let pruned = try await CLIProcess.run(["import", sheet, "--delete-missing", "--max-deletes", "1", "--report", folder("4"), "--quiet"] + account)
        #expect(pruned.status == 0 && pruned.stdout.contains("1 deleted, \(rows - 1) unchanged"), "\(pruned.stdout)\(pruned.stderr)")

        let exported = try await CLIProcess.run(["export", "--vendor", "me", "--out", folder("export"), "--quiet"] + account)
        #expect(exported.status == 0, "\(exported.stdout)\(exported.stderr)")
        #expect(try await CaptureTests.rows(of: folder("export") + "/products.csv") == rows - 1)
        let manifest = try String(contentsOfFile: folder("export") + "/products.csv", encoding: .utf8)
        #expect(manifest.contains("TEA-003") && manifest.contains("31000") && !manifest.contains("CUP-002"))
        let readBack = try await CLIProcess.run(["import", folder("export") + "/products.csv", "--dry-run", "--report", folder("5"), "--quiet"] + account)
        #expect(readBack.status == 0 && readBack.stdout.contains("\(rows - 1) rows: \(rows - 1) unchanged"), "\(readBack.stdout)\(readBack.stderr)")

        // A snapshot, a product deleted by its key, the snapshot restored: made again with its
        // description and discount, the others unchanged.
        let repo = folder("repo")
        let backup = try await CLIProcess.run(["backup", "--repo", repo] + account)
        #expect(backup.status == 0 && backup.stdout.contains("\(rows - 1) products"), "\(backup.stdout)\(backup.stderr)")
        let deleted = try await CLIProcess.run(["delete", "TEA-001", "--report", folder("6")] + account)
        #expect(deleted.status == 0 && deleted.stdout.contains(" deleted"), "\(deleted.stdout)\(deleted.stderr)")
        let restored = try await CLIProcess.run(["restore", "--repo", repo, "--snapshot", "latest"] + account)
        #expect(restored.status == 0 && restored.stdout.contains("\(rows - 1) rows: 1 created, \(rows - 2) unchanged"), "\(restored.stdout)\(restored.stderr)")
        let back = try reader.page(1, perPage: 50).pages.first { $0.name.hasPrefix("녹차 라떼") }
        let backDetail = try reader.product(id: try #require(back).id)
        #expect(backDetail.summary.description == "제주 녹차로 만든 라떼, 350 ml." && backDetail.summary.discountedPrice == 500)
        #expect(backDetail.images?.count == 3)
    }

    @Test("2021: a price with cents is refused by validate --api 2021 and by import, naming the rule; another password's items are not this merchant's, and an item this password made elsewhere is")
    func wholeAmountsAndPasswords() async throws {
        let sandbox = try await TestSandbox.start { $0.api = .v2021 }
        defer { Task { await sandbox.stop() } }
        let files = try Scratch()
        defer { files.cleanup() }
        let full = try Self.sheet(in: files, wholeOnly: false).path
        let checked = try await CLIProcess.run(["validate", full, "--api", "2021"])
        #expect(checked.status == 1 && checked.stdout.contains("[price-whole]") && checked.stdout.contains("15 valid, 5 with errors"), "\(checked.stdout)")
        let plain = try await CLIProcess.run(["validate", full])
        #expect(plain.status == 0, "\(plain.stdout)")

        let other = Self.credentials(sandbox, .v2021, password: "someone-else")
        let theirs = try await CLIProcess.run(["import", full, "--report", files.directory.appendingPathComponent("theirs").path, "--quiet"] + other)
        #expect(theirs.status == 1 && theirs.stdout.contains("15 created, 5 failed") && theirs.stdout.contains("[price-whole]"), "\(theirs.stdout)\(theirs.stderr)")

        // The same names under another password: nothing of theirs is adopted, changed or deleted.
        let (sheet, rows) = try Self.sheet(in: files, wholeOnly: true)
        let mine = Self.credentials(sandbox, .v2021)
        let created = try await CLIProcess.run(["import", sheet, "--delete-missing", "--max-deletes", "0", "--report", files.directory.appendingPathComponent("mine").path, "--quiet"] + mine)
        #expect(created.status == 0 && created.stdout.contains("\(rows) rows: \(rows) created"), "\(created.stdout)\(created.stderr)")
        let listed = try await curl(["\(sandbox.url)/items/1"]).json()
        let second = try await curl(["\(sandbox.url)/items/2"]).json()
        #expect(((listed["items"] as? [Any])?.count ?? 0) + ((second["items"] as? [Any])?.count ?? 0) == 15 + rows)

        // An item this password made elsewhere (in an app) is the merchant's too: not in the
        // sheet, --delete-missing deletes it once the password opens it; the others' stay.
        let photo = ImportCommandTests.samples.appendingPathComponent("images/TEA-003/1.jpg").path
        let outside = try await curl(["-X", "POST", "\(sandbox.url)/item", "-F", "title=Made in the app", "-F", "descriptions=x",
                                      "-F", "price=1000", "-F", "currency=KRW", "-F", "stock=1", "-F", "password=merchant-pw-1",
                                      "-F", "images[]=@\(photo);type=image/jpeg"])
        #expect(outside.status == 200, "\(outside.text)")
        let pruned = try await CLIProcess.run(["import", sheet, "--delete-missing", "--max-deletes", "1",
                                               "--report", files.directory.appendingPathComponent("pruned").path, "--quiet"] + mine)
        #expect(pruned.status == 0 && pruned.stdout.contains("\(rows + 1) rows: 1 deleted, \(rows) unchanged"), "\(pruned.stdout)\(pruned.stderr)")
        let gone = try await curl(["\(sandbox.url)/item/\(try outside.json()["id"] as? Int ?? 0)"])
        #expect(gone.status == 404)
        let left = try await curl(["\(sandbox.url)/items/1"]).json()
        let left2 = try await curl(["\(sandbox.url)/items/2"]).json()
        #expect(((left["items"] as? [Any])?.count ?? 0) + ((left2["items"] as? [Any])?.count ?? 0) == 15 + rows)
    }

    @Test("found from the answers a run needs anyway: after the health check, the first list page says which 2022 server it is (no request of its own)",
          arguments: [SandboxAPI.v2022January, .v2022October])
    func foundForFree(api: SandboxAPI) async throws {
        let sandbox = try await TestSandbox.start { $0.api = api }
        defer { Task { await sandbox.stop() } }
        var configuration = ClientConfiguration(server: sandbox.server.url)
        configuration.retry = .none
        let client = try OpenMarketClient(configuration)
        _ = try await blocking { try client.health() }
        _ = try await blocking { try client.page(1, perPage: 5) }
        #expect(try client.generation().rawValue == api.rawValue)
        #expect(client.statistics.requests == 2, "health and one page, nothing more")
    }

    @Test("what a client found is its own: a 2021 server started where a 2022-10 one was (the same address) is found as 2021")
    func sameAddressAnotherServer() async throws {
        let first = try await TestSandbox.start { $0.api = .v2022October }
        let address = first.server.url
        let earlier = try OpenMarketClient(ClientConfiguration(server: address))
        _ = try await blocking { try earlier.health() }
        _ = try await blocking { try earlier.page(1, perPage: 1) }
        #expect(try earlier.generation() == .v2022October)
        await first.stop()
        let second = try await TestSandbox.start {
            $0.api = .v2021
            $0.port = address.port ?? 0
        }
        defer { Task { await second.stop() } }
        #expect(second.server.url == address)
        let later = try OpenMarketClient(ClientConfiguration(server: address))
        _ = try await blocking { try later.health() }
        #expect(try later.generation() == .v2021)
        let page = try await blocking { try later.page(1, perPage: 20) }
        #expect(!page.newestFirst && page.pages.isEmpty)
    }

    @Test("--api forces a generation; doctor says which was found; a 2022 server with a password alone is refused before anything is sent")
    func toldAndFound() async throws {
        let old = try await TestSandbox.start { $0.api = .v2021 }
        defer { Task { await old.stop() } }
        let new = try await TestSandbox.start { $0.api = .v2022January }
        defer { Task { await new.stop() } }
        let files = try Scratch()
        defer { files.cleanup() }

        let doctor = try await CLIProcess.run(["doctor", "--server", old.url, "--secret", "merchant-pw-1"])
        #expect(doctor.stdout.contains("generation 2021 (/items") && doctor.stdout.contains("a password and no identifier"), "\(doctor.stdout)")
        let doctor22 = try await CLIProcess.run(["doctor"] + Self.credentials(new, .v2022January))
        #expect(doctor22.stdout.contains("generation 2022-01 (") && doctor22.stdout.contains("credentials accepted"), "\(doctor22.stdout)")

        let forced = try await CLIProcess.run(["list", "--server", new.url, "--api", "2021"])
        #expect(forced.status != 0 && forced.stderr.contains("GET /items/1: HTTP 404"), "\(forced.stdout)\(forced.stderr)")
        let told = try await CLIProcess.run(["health", "--server", new.url, "--api", "2022-01"])
        #expect(told.status == 0 && told.stdout.contains("server generation: 2022-01"), "\(told.stdout)\(told.stderr)")
        let wrongName = try await CLIProcess.run(["health", "--server", new.url, "--api", "2023"])
        #expect(wrongName.status == 64 || wrongName.status == 2, "\(wrongName.stderr)")

        let (sheet, _) = try Self.sheet(in: files, wholeOnly: true)
        let refused = try await CLIProcess.run(["import", sheet, "--server", new.url, "--secret", new.demo.secret])
        #expect(refused.status == 2 && (refused.stdout + refused.stderr).contains("need the vendor's identifier as well as the secret"), "\(refused.stdout)\(refused.stderr)")
        let nothing = try await curl(["\(new.url)/api/products"]).json()
        #expect(nothing["total_count"] as? Int == 0)
    }

    @Test("migrate a 2021 shop's own products (not another password's) into a 2022-10 account: keys carried, photos moved, undoable")
    func migrate2021(  ) async throws {
        let old = try await TestSandbox.start { $0.api = .v2021 }
        defer { Task { await old.stop() } }
        let new = try await TestSandbox.start()
        defer { Task { await new.stop() } }
        let files = try Scratch()
        defer { files.cleanup() }
        func folder(_ name: String) -> String { files.directory.appendingPathComponent(name).path }
        let (sheet, rows) = try Self.sheet(in: files, wholeOnly: true)
        let mine = try await CLIProcess.run(["import", sheet, "--report", folder("mine"), "--quiet"] + Self.credentials(old, .v2021))
        #expect(mine.status == 0, "\(mine.stdout)\(mine.stderr)")
        let theirs = try await CLIProcess.run(["import", sheet, "--report", folder("theirs"), "--quiet"] + Self.credentials(old, .v2021, password: "not-mine"))
        #expect(theirs.status == 0, "\(theirs.stdout)\(theirs.stderr)")

        let moved = try await CLIProcess.run(["migrate", "--from", old.url, "--from-secret", "merchant-pw-1",
                                              "--to", new.url, "--to-identifier", new.demo.identifier, "--to-secret", new.demo.secret,
                                              "--journal", folder("migrate.journal"), "--report", folder("migrate"), "--quiet"])
        #expect(moved.status == 0 && moved.stdout.contains("\(rows) rows: \(rows) created"), "\(moved.stdout)\(moved.stderr)")
        let target = try await curl(["\(new.url)/api/products?items_per_page=100"]).decode(ProductPage.self)
        #expect(target.pages.count == rows)
        let latte = try #require(target.pages.first { $0.name.hasPrefix("녹차 라떼") })
        #expect(latte.price == 4500 && latte.discountedPrice == 500)
        let detail = try await curl(["\(new.url)/api/products/\(latte.id)"]).decode(ProductDetail.self)
        #expect(detail.images?.count == 3 && detail.summary.description == "제주 녹차로 만든 라떼, 350 ml.")

        // The keys came along: the sheet as the new account sends nothing.
        let asNew = try await CLIProcess.run(["import", sheet, "--dry-run", "--report", folder("as-new"), "--quiet",
                                              "--server", new.url, "--identifier", new.demo.identifier, "--secret", new.demo.secret])
        #expect(asNew.status == 0 && asNew.stdout.contains("\(rows) rows: \(rows) unchanged"), "\(asNew.stdout)\(asNew.stderr)")

        // And back: the 2022-10 account into a new password on the 2021 server (whole prices fit).
        let home = try await CLIProcess.run(["migrate", "--from", new.url, "--from-identifier", new.demo.identifier, "--from-secret", new.demo.secret,
                                             "--to", old.url, "--to-secret", "back-pw", "--journal", folder("back.journal"),
                                             "--report", folder("back"), "--quiet"])
        #expect(home.status == 0 && home.stdout.contains("\(rows) rows: \(rows) created"), "\(home.stdout)\(home.stderr)")
        let asOld = try await CLIProcess.run(["import", sheet, "--dry-run", "--report", folder("as-old"), "--quiet",
                                              "--server", old.url, "--secret", "back-pw"])
        #expect(asOld.status == 0 && asOld.stdout.contains("\(rows) rows: \(rows) unchanged"), "\(asOld.stdout)\(asOld.stderr)")

        let undone = try await CLIProcess.run(["undo", folder("migrate"), "--quiet",
                                               "--server", new.url, "--identifier", new.demo.identifier, "--secret", new.demo.secret])
        #expect(undone.status == 0 && undone.stdout.contains("\(rows) deleted"), "\(undone.stdout)\(undone.stderr)")
    }
}
