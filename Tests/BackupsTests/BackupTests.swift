import Backups
import CatalogSync
import Foundation
import OpenMarketAPI
import ShopState
import Support
import Testing
import TestSupport

/// A shop in the sandbox with a few products made by import (so that keys are linked),
/// and a repository in a scratch folder.
struct BackedShop {
    let files: Scratch
    let sandbox: TestSandbox
    var repository: BackupRepository { BackupRepository(url: files.directory.appendingPathComponent("repo")) }
    var links: StoreAddress { .file(files.directory.appendingPathComponent("state/links.sqlite")) }

    static func open(products: Int) async throws -> BackedShop {
        let files = try Scratch()
        for i in 1...products { _ = try files.write(try Fixtures.jpeg(width: 40 + i, height: 30, seed: UInt64(i)), named: "p\(i).jpg") }
        let shop = BackedShop(files: files, sandbox: try await TestSandbox.start())
        try await shop.importSheet((1...products).map { "K\($0),Item \($0),\(1000 + $0),KRW,\($0),p\($0).jpg" })
        return shop
    }

    func close() async {
        await sandbox.stop()
        files.cleanup()
    }

    /// Imports rows `key,name,price,currency,stock,images` as the demo vendor.
    func importSheet(_ rows: [String]) async throws {
        let sheet = files.directory.appendingPathComponent("sheet-\(UUID().uuidString).csv")
        try Data(("key,name,price,currency,stock,images\n" + rows.joined(separator: "\n") + "\n").utf8).write(to: sheet)
        var options = SyncOptions(manifest: sheet, journal: files.directory.appendingPathComponent("state/\(sheet.lastPathComponent).journal"))
        options.links = links
        let settings = options
        let writer = try client(sandbox, sandbox.demo)
        let summary = try await blocking { try SyncRun(options: settings, client: writer, report: nil).run() }
        try #require(summary.failed == 0, "\(summary.counts)")
    }

    func backup() async throws -> SnapshotInfo {
        let writer = try client(sandbox, sandbox.demo)
        let run = BackupRun(repository: repository, client: writer,
                            account: AccountState(shop: writer, sandboxData: nil).keeping(links: links))
        return try await blocking { try run.run() }
    }

    var vendor: OpenMarketClient { get throws { try client(sandbox, sandbox.demo) } }
    var gets: Int { sandbox.server.requests.byMethod["GET"] ?? 0 }
}

@Suite("Backups: snapshots that keep each photo once")
struct BackupTests {
    @Test("snapshot, change, snapshot: an unchanged night reads the list pages only; diff and history tell the change")
    func snapshots() async throws {
        let shop = try await BackedShop.open(products: 6)
        let first = try await shop.backup()
        #expect(first.products == 6 && first.newProducts == 6 && first.photosAdded == 6, "\(first)")
        let products = try shop.repository.products(of: first)
        #expect(Set(products.compactMap(\.key)) == Set((1...6).map { "K\($0)" }))
        let k1 = try #require(products.first { $0.key == "K1" })
        #expect(k1.fields.price == 1001 && k1.fields.name == "Item 1" && k1.fields.stock == 1 && k1.photos.count == 1)

        let gets = shop.gets
        let quiet = try await shop.backup()
        #expect(quiet.newProducts == 0 && quiet.photosAdded == 0 && quiet.products == 6)
        // The one list page, and a page of one (the newest product and the count: nothing moved); no details, no photos.
        #expect(shop.gets - gets == 2, "\(shop.gets - gets) GETs")
        #expect(quiet.bytesAdded < 1000, "an unchanged night adds its product list only (\(quiet.bytesAdded) B)")

        try await shop.importSheet(["K1,Item 1,1500,KRW,0,p1.jpg"])
        let id6 = try #require(products.first { $0.key == "K6" }?.id)
        let vendor = try shop.vendor
        try await blocking { try vendor.delete(id: id6) }
        try await shop.importSheet(["K7,Item 7,1007,KRW,7,p2.jpg"])
        let third = try await shop.backup()
        #expect(third.newProducts == 1 && third.photosAdded == 0, "K7's photo is K2's: stored once (\(third))")
        let diff = SnapshotDiff(from: try shop.repository.products(of: quiet), to: try shop.repository.products(of: third))
        #expect(diff.created.map(\.key) == ["K7"] && diff.deleted.map(\.key) == ["K6"] && diff.changed.count == 1)
        #expect(diff.lines.contains { $0.hasPrefix("~ K1 #") && $0.hasSuffix("price 1001 → 1500 (+49.9 %); stock 1 → 0") }, "\(diff.lines)")

        let history = try ProductHistory.of("K1", in: shop.repository)
        #expect(history.count == 2 && history[1].text == "price 1001 → 1500 (+49.9 %); stock 1 → 0", "\(history.map(\.text))")
        #expect(history[0].text.hasPrefix("K1 #") && history[0].text.contains("price 1001") && history[0].text.hasSuffix("1 photo"))
        let gone = try ProductHistory.of("K6", in: shop.repository)
        #expect(gone.last?.text.hasPrefix("gone from the shop") == true, "\(gone.map(\.text))")
        await shop.close()
    }

    @Test("one backup of a repository at a time; another account's repository is refused")
    func oneAtATime() async throws {
        let shop = try await BackedShop.open(products: 1)
        let lock = try shop.repository.lock("backup")
        await #expect(throws: RunLock.Busy.self) { _ = try await shop.backup() }
        lock.release()
        _ = try await shop.backup()
        let otherClient = try client(shop.sandbox, shop.sandbox.other)
        let other = BackupRun(repository: shop.repository, client: otherClient,
                              account: AccountState(shop: otherClient, sandboxData: nil)
                                  .keeping(links: .file(shop.files.directory.appendingPathComponent("state/other.sqlite"))))
        await #expect(throws: BackupError.self) { _ = try await blocking { try other.run() } }
        await shop.close()
    }

    @Test("a snapshot's product list cut off or damaged is an error naming the file, at once (it used to hang)")
    func damagedProductList() async throws {
        let shop = try await BackedShop.open(products: 3)
        let snapshot = try await shop.backup()
        let file = shop.repository.url.appendingPathComponent("snapshots/\(snapshot.id).products.deflate")
        let whole = try Data(contentsOf: file)
        #expect(try shop.repository.products(of: snapshot).count == 3)
        for damaged in [whole.prefix(whole.count / 2), Data(whole.prefix(2)) + Data(repeating: 0xFF, count: 64)] {
            try damaged.write(to: file)
            let started = ContinuousClock.now
            #expect {
                _ = try shop.repository.products(of: snapshot)
            } throws: { error in
                "\(error)".contains("\(snapshot.id).products.deflate") && "\(error)".contains("the repository is damaged")
            }
            #expect(ContinuousClock.now - started < .seconds(2))
        }
    }

    @Test("check finds a damaged photo (--read-data) and a missing one, naming the products that use them")
    func check() async throws {
        let shop = try await BackedShop.open(products: 3)
        let snapshot = try await shop.backup()
        #expect(shop.repository.check(readData: true).isClean)
        let products = try shop.repository.products(of: snapshot).sorted { ($0.key ?? "") < ($1.key ?? "") }
        let damaged = shop.repository.photoURL(products[0].photos[0])
        var bytes = try Data(contentsOf: damaged)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: damaged)
        #expect(shop.repository.check(readData: false).isClean, "without --read-data, only presence is checked")
        let read = shop.repository.check(readData: true)
        #expect(read.problems.count == 1 && read.problems[0].contains("is damaged") && read.problems[0].contains("K1 in \(snapshot.id)"),
                "\(read.problems)")
        try FileManager.default.removeItem(at: shop.repository.photoURL(products[1].photos[0]))
        let missing = shop.repository.check(readData: false)
        #expect(missing.problems == ["photo \(products[1].photos[0]) is missing; used by K2 in \(snapshot.id). The next backup fetches it again while its product is in the shop"], "\(missing.problems)")
        // And it does: the missing photo is in the repository again after the next backup.
        _ = try await shop.backup()
        #expect(FileManager.default.fileExists(atPath: shop.repository.photoURL(products[1].photos[0]).path))
        await shop.close()
    }

    @Test("forget keeps what the policy says; --prune frees exactly the photos no kept snapshot uses")
    func forgetAndPrune() async throws {
        let shop = try await BackedShop.open(products: 3)
        let first = try await shop.backup()
        let k3 = try #require(try shop.repository.products(of: first).first { $0.key == "K3" })
        let vendor = try shop.vendor
        try await blocking { try vendor.delete(id: k3.id) }
        let second = try await shop.backup()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: shop.repository.photoURL(k3.photos[0]).path)[.size] as? Int)
        let plan = try shop.repository.forget(ForgetPolicy(last: 1), prune: true, dryRun: true)
        #expect(plan.removed.map(\.id) == [first.id] && plan.photosFreed == 1 && plan.bytesFreed == size)
        #expect(shop.repository.list().count == 2, "a dry run removes nothing")
        let done = try shop.repository.forget(ForgetPolicy(last: 1), prune: true)
        #expect(done.kept.map(\.0.id) == [second.id] && done.photosFreed == 1 && done.bytesFreed == size)
        #expect(!FileManager.default.fileExists(atPath: shop.repository.photoURL(k3.photos[0]).path))
        #expect(shop.repository.check(readData: true).isClean)
        await shop.close()
    }

    @Test("the policy: the newest of each of the last N days, weeks and months that have a snapshot")
    func policy() throws {
        let day = 86_400.0
        let start = try #require(ISO8601DateFormatter().date(from: "2026-09-01T03:00:00Z"))
        // Two snapshots a day for 80 days.
        let snapshots = (0..<160).map { index -> SnapshotInfo in
            let time = start.addingTimeInterval(Double(index / 2) * day + Double(index % 2) * 3600)
            return try! JSONDecoder.iso.decode(SnapshotInfo.self, from: Data("""
                {"id": "s\(String(format: "%03d", index))", "time": "\(ISO8601DateFormatter().string(from: time))", "products": 1,
                 "new_products": 0, "photos_added": 0, "bytes_added": 0, "seconds": 0}
                """.utf8))
        }
        let kept = ForgetPolicy(daily: 7, weekly: 4, monthly: 3).keep(snapshots)
        let daily = kept.filter { $0.value.contains { $0.key == "keep:daily" } }.keys.sorted()
        #expect(daily.count == 7 && daily.allSatisfy { Int($0.dropFirst())! % 2 == 1 }, "the later of each day: \(daily)")
        #expect(kept.filter { $0.value.contains { $0.key == "keep:weekly" } }.count == 4)
        #expect(kept.filter { $0.value.contains { $0.key == "keep:monthly" } }.count == 3)
        #expect(kept["s159"]?.count == 3, "the newest is the newest of its day, week and month")
        #expect(kept.count < 14)
    }
}

extension JSONDecoder {
    static var iso: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
