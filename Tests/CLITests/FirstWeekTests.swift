import Foundation
import OpenMarketAPI
import Sandbox
import Support
import Testing
import TestSupport

/// A merchant's first week, path by path (issue #42): one key is one product whichever
/// way the products came, the printed undo works as printed, and nothing runs twice at once.
@Suite("A merchant's first week", .serialized)
struct FirstWeekTests {
    static func account(_ sandbox: TestSandbox, _ vendor: SandboxVendor) -> [String] {
        ["--server", sandbox.url, "--identifier", vendor.identifier, "--secret", vendor.secret]
    }

    static func products(_ sandbox: TestSandbox, vendor: Int) async throws -> [ProductSummary] {
        try await allProducts(sandbox).filter { $0.vendorId == vendor }
    }

    /// Three products with photos: without a key column, or with one.
    static func sheet(_ files: Scratch, keys: Bool, name: String, price: (Int) -> String = { "\(1000 + $0)" },
                      currency: String? = "KRW") throws -> URL {
        _ = try files.write(Fixtures.jpeg(width: 64, height: 48, seed: 9), named: "p.jpg")
        var csv = (keys ? "판매자상품코드," : "") + "상품명,가격," + (currency == nil ? "" : "통화,") + "재고,이미지\n"
        for i in 1...3 {
            csv += (keys ? "00\(i)," : "") + "Week product \(i),\(price(i)),"
            csv += (currency.map { "\($0)," } ?? "") + "\(i),p.jpg\n"
        }
        let url = files.directory.appendingPathComponent(name)
        try Data(csv.utf8).write(to: url)
        return url
    }

    @Test("a sheet without keys, then the same products with keys: 3 linked, not 3 more; then unchanged (each server generation)",
          arguments: [SandboxAPI.v2022October, .v2022January, .v2021])
    func keysAddedLater(api: SandboxAPI) async throws {
        let sandbox = try await TestSandbox.start { $0.api = api }
        defer { Task { await sandbox.stop() } }
        let files = try Scratch()
        defer { files.cleanup() }
        // A 2021 shop is the items one password opens.
        let a = api == .v2021 ? ["--server", sandbox.url, "--secret", "week-password"] : Self.account(sandbox, sandbox.demo)
        func count() async throws -> Int {
            if api != .v2021 { return try await Self.products(sandbox, vendor: sandbox.demo.id).count }
            let page = try await curl(["\(sandbox.url)/items/1"]).json()
            return (page["items"] as? [Any])?.count ?? -1
        }
        let names = try Self.sheet(files, keys: false, name: "names.csv")
        let first = try await CLIProcess.run(["import", names.path, "--quiet", "--no-cache"] + a)
        #expect(first.status == 0 && first.stdout.contains("3 rows: 3 created"), "\(first.stdout)\(first.stderr)")
        let keyed = try Self.sheet(files, keys: true, name: "keyed.csv")
        let plan = try await CLIProcess.run(["import", keyed.path, "--quiet", "--no-cache", "--dry-run"] + a)
        #expect(plan.status == 0 && !plan.stdout.contains("would-create"), "\(plan.stdout)\(plan.stderr)")
        let second = try await CLIProcess.run(["import", keyed.path, "--quiet", "--no-cache"] + a)
        #expect(second.status == 0 && second.stdout.contains("3 rows: 3 linked"), "\(second.stdout)\(second.stderr)")
        #expect(try await count() == 3)
        let third = try await CLIProcess.run(["import", keyed.path, "--quiet", "--no-cache"] + a)
        #expect(third.status == 0 && third.stdout.contains("3 rows: 3 unchanged"), "\(third.stdout)\(third.stderr)")
        #expect(!third.stdout.contains("photos that differ"), "\(third.stdout)")
        // The export carries the keys the products gained.
        let out = files.directory.appendingPathComponent("export")
        let export = try await CLIProcess.run(["export", "--out", out.path, "--images", "none", "--quiet"] + a)
        #expect(export.status == 0, "\(export.stderr)")
        let csv = try String(contentsOf: out.appendingPathComponent("products.csv"), encoding: .utf8)
        #expect(csv.contains(",001,Week product 1,") && csv.contains(",003,Week product 3,"), "\(csv)")
    }

    @Test("migrate from a shop without keys, then the merchant's keyed sheet in the target: nothing to create")
    func migrateThenKeyedSheet() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let files = try Scratch()
        defer { files.cleanup() }
        let names = try Self.sheet(files, keys: false, name: "names.csv")
        let first = try await CLIProcess.run(["import", names.path, "--quiet", "--no-cache"] + Self.account(sandbox, sandbox.demo))
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let moved = try await CLIProcess.run([
            "migrate", "--from", sandbox.url, "--from-identifier", sandbox.demo.identifier, "--from-secret", sandbox.demo.secret,
            "--to", sandbox.url, "--to-identifier", sandbox.other.identifier, "--to-secret", sandbox.other.secret, "--quiet",
            "--report", files.directory.appendingPathComponent("migrate").path])
        #expect(moved.status == 0 && moved.stdout.contains("3 rows: 3 created"), "\(moved.stdout)\(moved.stderr)")
        let keyed = try Self.sheet(files, keys: true, name: "keyed.csv")
        let b = Self.account(sandbox, sandbox.other)
        let plan = try await CLIProcess.run(["import", keyed.path, "--quiet", "--no-cache", "--dry-run"] + b)
        #expect(plan.status == 0 && !plan.stdout.contains("would-create") && !plan.stdout.contains("photos that differ"),
                "\(plan.stdout)\(plan.stderr)")
        let linked = try await CLIProcess.run(["import", keyed.path, "--quiet", "--no-cache"] + b)
        #expect(linked.status == 0 && linked.stdout.contains("3 rows: 3 linked"), "\(linked.stdout)\(linked.stderr)")
        #expect(try await Self.products(sandbox, vendor: sandbox.other.id).count == 3)
    }

    @Test("export backs up the credentials' own products unless --vendor all; its re-import into the shop sends nothing, photos the same")
    func exportIsOwnAndReimports() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let files = try Scratch()
        defer { files.cleanup() }
        let a = Self.account(sandbox, sandbox.demo)
        let sheet = ImportCommandTests.samples.appendingPathComponent("products.csv").path
        let imported = try await CLIProcess.run(["import", sheet, "--quiet", "--report", files.directory.appendingPathComponent("r").path] + a)
        #expect(imported.status == 0 && imported.stdout.contains("20 rows: 20 created"), "\(imported.stdout)\(imported.stderr)")
        let theirs = try writeManifest(files, rows: 2, name: "theirs.csv", prefix: "Other")
        let other = try await CLIProcess.run(["import", theirs.path, "--quiet", "--no-cache"] + Self.account(sandbox, sandbox.other))
        #expect(other.status == 0, "\(other.stdout)\(other.stderr)")

        let mine = files.directory.appendingPathComponent("mine")
        let export = try await CLIProcess.run(["export", "--out", mine.path, "--quiet"] + a)
        #expect(export.status == 0, "\(export.stdout)\(export.stderr)")
        let rows = try String(contentsOf: mine.appendingPathComponent("products.csv"), encoding: .utf8)
            .split(whereSeparator: \.isNewline).count - 1
        #expect(rows == 20, "\(rows) rows: only the demo vendor's 20")
        let everyone = files.directory.appendingPathComponent("all")
        let all = try await CLIProcess.run(["export", "--out", everyone.path, "--vendor", "all", "--images", "none", "--quiet"] + a)
        #expect(all.status == 0)
        let allText = try String(contentsOf: everyone.appendingPathComponent("products.csv"), encoding: .utf8)
        #expect(allText.split(whereSeparator: \.isNewline).count - 1 == 22)
        #expect(allText.hasPrefix("id,key,name,description,price,currency,discounted_price,stock,images,vendor"), "\(allText.prefix(120))")
        // Fed to one account, the export of every vendor takes that account's rows only, naming the others' vendor.
        let before = sandbox.server.requests.byMethod["GET"] ?? 0
        let mixed = try await CLIProcess.run(["import", everyone.appendingPathComponent("products.csv").path, "--quiet"] + a)
        #expect(mixed.status == 1 && mixed.stdout.contains("22 rows: 20 unchanged, 2 failed")
                && mixed.stdout.contains("vendor \(sandbox.other.id)'s product"), "\(mixed.stdout)\(mixed.stderr)")
        let comparing = (sandbox.server.requests.byMethod["GET"] ?? 0) - before
        #expect(comparing >= 50, "the first sync by URL compares the 50 photos' bytes: \(comparing) GETs")
        #expect(try await Self.products(sandbox, vendor: sandbox.other.id).count == 2)
        #expect(try await Self.products(sandbox, vendor: sandbox.demo.id).count == 20)

        // The backup's photos are the server's copies: the same photos.
        let back = try await CLIProcess.run(["import", mine.appendingPathComponent("products.csv").path, "--quiet", "--dry-run"] + a)
        #expect(back.status == 0 && back.stdout.contains("20 rows: 20 unchanged") && !back.stdout.contains("differ"),
                "\(back.stdout)\(back.stderr)")
        // And by URL (export --images none): the bytes at the URL are the photo sent.
        let urls = files.directory.appendingPathComponent("urls")
        let byURL = try await CLIProcess.run(["export", "--out", urls.path, "--images", "none", "--quiet"] + a)
        #expect(byURL.status == 0)
        let again = try await CLIProcess.run(["import", urls.appendingPathComponent("products.csv").path, "--quiet"] + a)
        #expect(again.status == 0 && again.stdout.contains("20 rows: 20 unchanged") && !again.stdout.contains("differ"),
                "\(again.stdout)\(again.stderr)")
        // Seen once by their bytes (above), the addresses are remembered: later syncs fetch no photo.
        let reads = sandbox.server.requests.byMethod["GET"] ?? 0
        let third = try await CLIProcess.run(["import", urls.appendingPathComponent("products.csv").path, "--quiet", "--dry-run"] + a)
        let photoReads = (sandbox.server.requests.byMethod["GET"] ?? 0) - reads
        #expect(third.stdout.contains("20 rows: 20 unchanged") && !third.stdout.contains("differ") && photoReads < 10,
                "\(photoReads) GETs: \(third.stdout)")
        // A photo that did change is still told, with what --replace-photos costs.
        let changed = try String(contentsOfFile: sheet, encoding: .utf8)
            .replacingOccurrences(of: "images/TEA-001/1.jpg;", with: "images/TEA-002/1.jpg;")
        let changedSheet = ImportCommandTests.samples.appendingPathComponent(".first-week-\(UUID().uuidString).csv")
        try Data(changed.utf8).write(to: changedSheet)
        defer { try? FileManager.default.removeItem(at: changedSheet) }
        // The report in the scratch folder: beside the sheet it would be left in the source tree's samples/.
        let differ = try await CLIProcess.run(["import", changedSheet.path, "--quiet", "--dry-run",
                                               "--report", files.directory.appendingPathComponent("r-differ").path] + a)
        #expect(differ.stdout.contains("1 row has photos that differ") && differ.stdout.contains("a new product id"), "\(differ.stdout)")
    }

    @Test("a wrong secret on a server that answers 404 before it checks credentials: doctor does not call it accepted; import sends one product, stops, exit 3")
    func wrongSecretUntested() async throws {
        let sandbox = try await TestSandbox.start { $0.notFoundBeforeCredentials = true }
        defer { Task { await sandbox.stop() } }
        let files = try Scratch()
        defer { files.cleanup() }
        let wrong = ["--server", sandbox.url, "--identifier", sandbox.demo.identifier, "--secret", "not-the-secret"]
        let doctor = try await CLIProcess.run(["doctor"] + wrong)
        #expect(!doctor.stdout.contains("credentials accepted") && doctor.stdout.contains("cannot be checked without writing"),
                "\(doctor.stdout)")
        let right = try await CLIProcess.run(["doctor"] + Self.account(sandbox, sandbox.demo))
        #expect(right.stdout.contains("cannot be checked without writing"), "\(right.stdout)")

        let manifest = try writeManifest(files, rows: 12)
        let run = try await CLIProcess.run(["import", manifest.path, "--quiet", "--no-cache", "--jobs", "4"] + wrong)
        #expect(run.status == 3, "\(run.status) \(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("refused the credentials at the first write") && run.stdout.contains("not sent"), "\(run.stdout)")
        #expect(sandbox.server.requests.byMethod["POST"] == 1, "\(sandbox.server.requests.byMethod)")
        #expect(!run.stdout.contains("not-the-secret") && !run.stderr.contains("not-the-secret"))

        // The normal sandbox checks credentials first: doctor says so, import refuses before any write.
        let checking = try await TestSandbox.start()
        defer { Task { await checking.stop() } }
        let accepted = try await CLIProcess.run(["doctor"] + Self.account(checking, checking.demo))
        #expect(accepted.stdout.contains("credentials accepted"), "\(accepted.stdout)")
        let refused = try await CLIProcess.run(["doctor", "--server", checking.url, "--identifier", checking.demo.identifier,
                                                "--secret", "not-the-secret"])
        #expect(refused.stdout.contains("refused the credentials"), "\(refused.stdout)")
    }

    /// The words of the printed undo line, and the note under it.
    static func undoLine(_ stdout: String) throws -> (arguments: [String], note: String?) {
        let lines = stdout.split(separator: "\n").map(String.init)
        let index = try #require(lines.firstIndex { $0.hasPrefix("To take this run back: ") })
        let words = lines[index].dropFirst("To take this run back: ".count).split(separator: " ").map(String.init)
        #expect(words.first == "openmarket")
        let note = index + 1 < lines.count && lines[index + 1].hasPrefix("  (") ? lines[index + 1] : nil
        return (Array(words.dropFirst()), note)
    }

    @Test("the printed undo line works as printed: after --server with credentials as options (their variables named), after --profile, after migrate")
    func undoAsPrinted() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 3)
        let run = try await CLIProcess.run(["import", manifest.path, "--quiet", "--no-cache"] + Self.account(sandbox, sandbox.demo))
        #expect(run.status == 0)
        let printed = try Self.undoLine(run.stdout)
        #expect(printed.arguments.contains("--server") && !printed.arguments.contains("--secret"), "\(printed)")
        #expect(printed.note?.contains("OPENMARKET_IDENTIFIER and OPENMARKET_SECRET") == true, "\(printed)")
        #expect(!run.stdout.contains(sandbox.demo.secret) && !run.stdout.contains(sandbox.demo.identifier))
        let undo = try await CLIProcess.run(printed.arguments + ["--quiet"], environment: [
            "OPENMARKET_IDENTIFIER": sandbox.demo.identifier, "OPENMARKET_SECRET": sandbox.demo.secret])
        #expect(undo.status == 0 && undo.stdout.contains("3 deleted"), "\(undo.stdout)\(undo.stderr)")

        // With a profile: the line names it, and nothing else is needed.
        let config = files.directory.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: config.appendingPathComponent("openmarket"), withIntermediateDirectories: true)
        let file = config.appendingPathComponent("openmarket/config.toml")
        try Data("[profiles.shop]\nserver = \"\(sandbox.url)\"\nidentifier = \"\(sandbox.demo.identifier)\"\nsecret = \"\(sandbox.demo.secret)\"\n".utf8)
            .write(to: file)
        chmod(file.path, 0o600)
        let home = ["XDG_CONFIG_HOME": config.path]
        let byProfile = try await CLIProcess.run(["import", manifest.path, "--quiet", "--no-cache", "--profile", "shop"], environment: home)
        #expect(byProfile.status == 0, "\(byProfile.stdout)\(byProfile.stderr)")
        let named = try Self.undoLine(byProfile.stdout)
        #expect(named.arguments.suffix(2) == ["--profile", "shop"] && named.note == nil, "\(named)")
        let undone = try await CLIProcess.run(named.arguments + ["--quiet"], environment: home)
        #expect(undone.status == 0 && undone.stdout.contains("3 deleted"), "\(undone.stdout)\(undone.stderr)")

        // migrate: the target's account.
        let seed = try await CLIProcess.run(["import", manifest.path, "--quiet", "--no-cache", "--profile", "shop"], environment: home)
        #expect(seed.status == 0)
        let moved = try await CLIProcess.run([
            "migrate", "--from-profile", "shop", "--to", sandbox.url, "--to-identifier", sandbox.other.identifier,
            "--to-secret", sandbox.other.secret, "--quiet", "--report", files.directory.appendingPathComponent("migrate").path],
            environment: home)
        #expect(moved.status == 0, "\(moved.stdout)\(moved.stderr)")
        let back = try Self.undoLine(moved.stdout)
        let migrateUndo = try await CLIProcess.run(back.arguments + ["--quiet"], environment: [
            "OPENMARKET_IDENTIFIER": sandbox.other.identifier, "OPENMARKET_SECRET": sandbox.other.secret])
        #expect(migrateUndo.status == 0 && migrateUndo.stdout.contains("3 deleted"), "\(migrateUndo.stdout)\(migrateUndo.stderr)")
        #expect(try await Self.products(sandbox, vendor: sandbox.other.id).isEmpty)
    }

    @Test("a key+price sheet gives a USD product cents; a KRW product's fraction is refused naming the product's currency")
    func currencyOfTheProduct() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let files = try Scratch()
        defer { files.cleanup() }
        let a = Self.account(sandbox, sandbox.demo)
        let usd = try Self.sheet(files, keys: true, name: "usd.csv", price: { "2\($0).50" }, currency: "USD")
        let made = try await CLIProcess.run(["import", usd.path, "--quiet", "--no-cache"] + a)
        #expect(made.status == 0 && made.stdout.contains("3 created"), "\(made.stdout)\(made.stderr)")
        let prices = files.directory.appendingPathComponent("prices.csv")
        try Data("key,price\n001,19.99\n002,22.75\n".utf8).write(to: prices)
        let validate = try await CLIProcess.run(["validate", prices.path])
        #expect(validate.status == 0, "\(validate.stdout)\(validate.stderr)")
        let priced = try await CLIProcess.run(["import", prices.path, "--quiet", "--no-cache"] + a)
        #expect(priced.status == 0 && priced.stdout.contains("2 rows: 2 updated"), "\(priced.stdout)\(priced.stderr)")
        let live = try await Self.products(sandbox, vendor: sandbox.demo.id)
        #expect(live.first { $0.name == "Week product 1" }?.price == 19.99)

        let krw = try Self.sheet(files, keys: true, name: "krw.csv", currency: "KRW")
        let other = try await CLIProcess.run(["import", krw.path, "--quiet", "--no-cache"] + Self.account(sandbox, sandbox.other))
        #expect(other.status == 0, "\(other.stdout)\(other.stderr)")
        let fraction = files.directory.appendingPathComponent("fraction.csv")
        try Data("key,price\n001,1000.5\n".utf8).write(to: fraction)
        let refused = try await CLIProcess.run(["import", fraction.path, "--quiet", "--no-cache"] + Self.account(sandbox, sandbox.other))
        #expect(refused.status == 1 && refused.stdout.contains("is in KRW") && refused.stdout.contains("[price-fraction]"),
                "\(refused.stdout)\(refused.stderr)")
    }

    @Test("template --out into a folder that does not exist yet makes it (the README's feed command on a new machine)")
    func templateFolder() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let target = files.directory.appendingPathComponent("config/openmarket/feeds/acme.toml")
        let made = try await CLIProcess.run(["template", "--format", "feed", "--out", target.path])
        #expect(made.status == 0 && FileManager.default.fileExists(atPath: target.path), "\(made.stdout)\(made.stderr)")
        let blocked = try await CLIProcess.run(["template", "--out", target.path + "/below/t.csv"])
        #expect(blocked.status == 2 && blocked.stderr.contains("cannot make the folder"), "\(blocked.stderr)")
    }

    @Test("a second run on an account that a run holds is refused at once, naming the holder (exit 5); free again, it runs")
    func oneRunPerAccount() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let files = try Scratch()
        defer { files.cleanup() }
        let state = files.directory.appendingPathComponent("state")
        let home = ["XDG_STATE_HOME": state.path]
        let manifest = try writeManifest(files, rows: 2)
        let a = Self.account(sandbox, sandbox.demo)
        let first = try await CLIProcess.run(["import", manifest.path, "--quiet", "--no-cache"] + a, environment: home)
        #expect(first.status == 0)
        let links = try #require(try FileManager.default.contentsOfDirectory(atPath: state.appendingPathComponent("openmarket/links").path)
            .first { $0.hasSuffix(".sqlite") })
        let lockURL = state.appendingPathComponent("openmarket/locks/\((links as NSString).deletingPathExtension).lock")
        let held = try RunLock(url: lockURL, holder: "feed acme")
        let busy = try await CLIProcess.run(["import", manifest.path, "--quiet", "--no-cache"] + a, environment: home)
        #expect(busy.status == 5 && busy.stderr.contains("feed acme"), "\(busy.status) \(busy.stdout)\(busy.stderr)")
        let deleting = try await CLIProcess.run(["delete", "K1"] + a, environment: home)
        #expect(deleting.status == 5, "\(deleting.stdout)\(deleting.stderr)")
        let plan = try await CLIProcess.run(["import", manifest.path, "--quiet", "--no-cache", "--dry-run"] + a, environment: home)
        #expect(plan.status == 0, "a dry run writes nothing and takes no lock: \(plan.stderr)")
        held.release()
        let free = try await CLIProcess.run(["delete", "K1"] + a, environment: home)
        #expect(free.status == 0, "\(free.stdout)\(free.stderr)")
    }

    @Test("feed test --live plans against the feed's [target] shop, and a feed run's undo line names that profile and works as printed")
    func feedTarget() async throws {
        let machine = try await FeedMachine.open()
        try machine.writeFeed("[target]\nprofile = \"shop\"")
        try machine.writeConfig()
        machine.supplier.serve(machine.sheet(rows: 3))
        let done = try await machine.run(["feed", "run", "acme"])
        #expect(done.status == 0 && done.stdout.contains("3 created"), "\(done.stdout)\(done.stderr)")
        let line = try #require(done.stdout.split(separator: "\n").first { $0.contains("to take it back: ") })
        let words = line.components(separatedBy: "to take it back: ")[1].split(separator: " ").map(String.init)
        #expect(words.suffix(2) == ["--profile", "shop"], "\(words)")

        let file = machine.files.directory.appendingPathComponent("supplier.csv")
        try Data(machine.sheet(rows: 3).utf8).write(to: file)
        let live = try await machine.run(["feed", "test", "acme", file.path, "--live"])
        #expect(live.status == 0, "\(live.stdout)\(live.stderr)")
        #expect(live.stdout.contains("shop      unchanged") && !live.stdout.contains("would-create"), "\(live.stdout)")

        let undo = try await machine.run(Array(words.dropFirst()) + ["--quiet"])
        #expect(undo.status == 0 && undo.stdout.contains("3 deleted"), "\(undo.stdout)\(undo.stderr)")
        await machine.close()
    }
}
