import Support
import Foundation
import OpenMarketAPI
import Testing
import TestSupport

@Suite("openmarket backup, snapshots, restore, check, export --snapshot", .serialized)
struct BackupCommandTests {
    /// A sandbox with `count` products imported (keys K1…), and a scratch folder.
    static func shop(_ count: Int, latency: Int = 0) async throws -> (TestSandbox, Scratch, [String]) {
        let files = try Scratch()
        var rows = "key,name,price,currency,stock,images\n"
        for i in 1...count {
            _ = try files.write(try Fixtures.jpeg(width: 40 + i % 17, height: 30, seed: UInt64(i)), named: "p\(i).jpg")
            rows += "K\(i),Item \(i),\(1000 + i),KRW,\(i),p\(i).jpg\n"
        }
        let sheet = files.directory.appendingPathComponent("products.csv")
        try Data(rows.utf8).write(to: sheet)
        let sandbox = try await TestSandbox.start { $0.faults.latencyMilliseconds = latency }
        let shop = sandbox.demoAccount
        let imported = try await CLIProcess.run(["import", sheet.path, "--no-cache", "--report", files.directory.appendingPathComponent("r").path] + shop)
        try #require(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        return (sandbox, files, shop)
    }

    @Test("backup, change the shop, restore one key then all: deleted products come back with the same photo bytes, keys relinked; undo takes the restore back")
    func restore() async throws {
        let (sandbox, files, shop) = try await Self.shop(4)
        let repo = files.directory.appendingPathComponent("repo").path
        let backup = try await CLIProcess.run(["backup", "--repo", repo] + shop)
        #expect(backup.status == 0 && backup.stdout.contains("4 products (4 new, 4 photos added)"), "\(backup.stdout)\(backup.stderr)")
        let before = try await allProducts(sandbox)
        let k1 = try #require(before.first { $0.name == "Item 1" })
        let k2 = try #require(before.first { $0.name == "Item 2" })
        let photos = try await Self.photoHashes(sandbox, k2.id)

        // The shop changes: a price edited by hand, a product deleted, a new one.
        _ = try await curl(["-X", "PATCH", "\(sandbox.url)/api/products/\(k1.id)", "-H", "identifier: \(sandbox.demo.identifier)",
                            "-H", "Content-Type: application/json", "-d", "{\"secret\": \"\(sandbox.demo.secret)\", \"price\": 9999}"])
        let client = try TestSupport.client(sandbox, sandbox.demo)
        try await blocking { try client.delete(id: k2.id) }
        let extra = try files.write(try Fixtures.jpeg(width: 50, height: 50, seed: 99), named: "x.jpg")
        let newer = files.directory.appendingPathComponent("newer.csv")
        try Data("key,name,price,currency,stock,images\nK9,Item 9,900,KRW,9,\(extra)\n".utf8).write(to: newer)
        #expect(try await CLIProcess.run(["import", newer.path, "--no-cache", "--report", files.directory.appendingPathComponent("r9").path] + shop).status == 0)

        let plan = try await CLIProcess.run(["restore", "--repo", repo, "--snapshot", "latest", "--dry-run"] + shop)
        #expect(plan.status == 0 && plan.stdout.contains("4 rows: 1 would-create, 1 would-update, 2 unchanged"), "\(plan.stdout)\(plan.stderr)")

        let one = try await CLIProcess.run(["restore", "--repo", repo, "--snapshot", "latest", "--key", "K1"] + shop)
        #expect(one.status == 0 && one.stdout.contains("1 row: 1 updated"), "\(one.stdout)\(one.stderr)")
        #expect(try await allProducts(sandbox).first { $0.id == k1.id }?.price == 1001)

        let all = try await CLIProcess.run(["restore", "--repo", repo, "--at", "2099-01-01"] + shop)
        #expect(all.status == 0 && all.stdout.contains("4 rows: 1 created, 3 unchanged"), "\(all.stdout)\(all.stderr)")
        let after = try await allProducts(sandbox)
        let back = try #require(after.first { $0.name == "Item 2" })
        #expect(back.id != k2.id && back.price == k2.price && back.stock == k2.stock)
        #expect(try await Self.photoHashes(sandbox, back.id) == photos, "the photos byte for byte")
        #expect(after.contains { $0.name == "Item 9" }, "a product made after the snapshot is kept")

        // The key follows the product made again: a sheet edit of K2 updates it.
        let edit = files.directory.appendingPathComponent("edit.csv")
        try Data("key,stock\nK2,77\n".utf8).write(to: edit)
        let edited = try await CLIProcess.run(["import", edit.path, "--report", files.directory.appendingPathComponent("r10").path] + shop)
        #expect(edited.stdout.contains("1 row: 1 updated"), "\(edited.stdout)")
        // The restore is a run: undo takes it back (--force: K2 was edited since).
        let folder = try #require(all.stdout.split(separator: "\n").first { $0.hasPrefix("To take this run back: openmarket undo ") })
            .dropFirst("To take this run back: openmarket undo ".count).split(separator: " ")[0]
        let undo = try await CLIProcess.run(["undo", String(folder), "--force"] + shop)
        #expect(undo.status == 0, "\(undo.stdout)\(undo.stderr)")
        #expect(try await allProducts(sandbox).contains { $0.id == back.id } == false, "undo deletes what the restore made")
        let runs = try await CLIProcess.run(["runs"] + shop)
        #expect(runs.stdout.contains("restore snapshot ") && runs.stdout.contains(": 1 created, 3 unchanged")
                && runs.stdout.contains("undo    undo of restore-"), "\(runs.stdout)")
        await sandbox.stop()
        files.cleanup()
    }

    @Test("kill -9 during a backup: no half snapshot; the next backup reuses the stored photos and check --read-data is clean")
    func killed() async throws {
        let (sandbox, files, shop) = try await Self.shop(24, latency: 150)
        let repo = files.directory.appendingPathComponent("repo")
        let backup = try CLIProcess(["backup", "--repo", repo.path, "--jobs", "2"] + shop)
        let photos = repo.appendingPathComponent("photos")
        @Sendable func stored() -> Int {
            ((try? FileManager.default.subpathsOfDirectory(atPath: photos.path)) ?? [])
                .filter { $0.hasSuffix(".jpg") && !$0.contains("/.tmp-") }.count
        }
        // Watched from a thread of its own: a cooperative thread held by another test's blocking
        // call would kill it late, after the whole backup.
        try await blocking {
            let deadline = Date().addingTimeInterval(60)
            while stored() < 4 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            backup.signal(SIGKILL)
        }
        try await backup.killed()
        let storedBefore = stored()
        #expect(storedBefore >= 4 && storedBefore < 24, "killed half way (\(storedBefore) photos)")
        let list = try await CLIProcess.run(["snapshots", "--repo", repo.path, "--format", "json"])
        let none = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [Any])
        #expect(none.isEmpty, "no half snapshot: \(list.stdout)")

        let again = try await CLIProcess.run(["backup", "--repo", repo.path] + shop)
        #expect(again.status == 0 && again.stdout.contains("24 products"), "\(again.stdout)\(again.stderr)")
        // Products whose photos the killed run stored and recorded are not fetched again; no stored photo is stored again.
        #expect(again.stdout.contains(" photos added)") && again.stdout.contains("new, \(24 - storedBefore) photos added)"),
                "\(storedBefore) stored before: \(again.stdout)")
        let check = try await CLIProcess.run(["check", "--repo", repo.path, "--read-data"])
        #expect(check.status == 0 && check.stdout.contains("1 snapshot, 24 photos checked (data read): no problems"), "\(check.stdout)")
        // A photo the repository lost: check names it (1 problem), and the next backup fetches it again.
        let photosFolder = repo.appendingPathComponent("photos")
        let folder = try #require(try FileManager.default.contentsOfDirectory(atPath: photosFolder.path).sorted().first)
        let lost = try #require(try FileManager.default.contentsOfDirectory(atPath: photosFolder.appendingPathComponent(folder).path).first)
        try FileManager.default.removeItem(at: photosFolder.appendingPathComponent(folder).appendingPathComponent(lost))
        let damaged = try await CLIProcess.run(["check", "--repo", repo.path])
        #expect(damaged.status != 0 && damaged.stdout.contains(": 1 problem") && damaged.stdout.contains("fetches it again"),
                "\(damaged.stdout)")
        let refetched = try await CLIProcess.run(["backup", "--repo", repo.path] + shop)
        #expect(refetched.status == 0, "\(refetched.stdout)\(refetched.stderr)")
        let clean = try await CLIProcess.run(["check", "--repo", repo.path, "--read-data"])
        #expect(clean.status == 0 && clean.stdout.contains("24 photos checked (data read): no problems"), "\(clean.stdout)")
        let json = try await CLIProcess.run(["snapshots", "--repo", repo.path, "--format", "json"])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(array.count == 2 && array[0]["products"] as? Int == 24 && array[0]["id"] is String && array[0]["time"] is String)

        // A snapshot as the spreadsheet import reads, with no server.
        let out = files.directory.appendingPathComponent("portable")
        let exported = try await CLIProcess.run(["export", "--snapshot", "latest", "--repo", repo.path, "--out", out.path])
        #expect(exported.status == 0, "\(exported.stderr)")
        let validated = try await CLIProcess.run(["validate", out.appendingPathComponent("products.csv").path])
        #expect(validated.stdout.contains("24 rows, 24 valid, 0 with errors"), "\(validated.stdout)")
        await sandbox.stop()
        files.cleanup()
    }

    @Test("backup --daily writes a timer whose service runs the backup with the profile, never a secret; systemd-analyze accepts it")
    func schedule() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let config = files.directory.appendingPathComponent("config")
        let repo = files.directory.appendingPathComponent("shop backup").path
        let environment = ["XDG_CONFIG_HOME": config.path]
        let daily = try await CLIProcess.run(["backup", "--repo", repo, "--profile", "shop", "--daily", "02:15"], environment: environment)
        #expect(daily.status == 0, "\(daily.stdout)\(daily.stderr)")
        let units = config.appendingPathComponent("systemd/user")
        let names = try FileManager.default.contentsOfDirectory(atPath: units.path).sorted()
        #expect(names.count == 2 && names.allSatisfy { $0.hasPrefix("openmarket-backup-shop backup-") || $0.hasPrefix("openmarket-backup-shop_backup-") }, "\(names)")
        let service = try String(contentsOf: units.appendingPathComponent(names.first { $0.hasSuffix(".service") }!), encoding: .utf8)
        #expect(service.contains("backup --repo \"\(repo)\" --profile shop"), "\(service)")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") {
            #expect(try FeedRunCommandTests.verify(names.map { units.appendingPathComponent($0) }) == 0)
        }
        let secret = try await CLIProcess.run(["backup", "--repo", repo, "--secret", "s3cret", "--daily", "02:15"], environment: environment)
        #expect(secret.status == 64 && !secret.stdout.contains("s3cret"))
        let removed = try await CLIProcess.run(["backup", "--repo", repo, "--profile", "shop", "--remove"], environment: environment)
        let left = try FileManager.default.contentsOfDirectory(atPath: units.path)
        #expect(removed.status == 0 && left.isEmpty, "\(left)")
    }

    static func photoHashes(_ sandbox: TestSandbox, _ id: Int) async throws -> [String] {
        let detail = try await curl(["\(sandbox.url)/api/products/\(id)"]).decode(ProductDetail.self)
        var hashes: [String] = []
        for image in detail.images ?? [] {
            let bytes = try await curl([image.url]).body
            hashes.append(SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined())
        }
        return hashes
    }
}
