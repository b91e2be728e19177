import CatalogSync
import Foundation
import Manifest
import OpenMarketAPI
import ShopState
import Support
import Testing
import TestSupport

@Suite("Crashes, full disks and lost answers")
struct CrashTests {
    @Test("a torn last line is cut off on open, and the next line starts clean")
    func tornTail() throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let url = files.directory.appendingPathComponent("log.jsonl")
        try Data("{\"a\":1}\n{\"b\":2}\n{\"c\":".utf8).write(to: url)
        var seen: [String] = []
        let log = try AppendLog(url: url) { seen.append(String(decoding: $0, as: UTF8.self)) }
        #expect(seen == ["{\"a\":1}", "{\"b\":2}"])
        try log.append(Data("{\"d\":4}".utf8), sync: true)
        #expect(try String(contentsOf: url, encoding: .utf8) == "{\"a\":1}\n{\"b\":2}\n{\"d\":4}\n")
    }

    @Test("disk full: the run stops cleanly before another request is sent; the next run finishes with no duplicate")
    func diskFull() async throws {
        let shop = try await Shop.open()
        let sheet = try shop.sheet("products.csv", Shop.sheetText(rows: 60))
        let journal = shop.state.appendingPathComponent("journals/products.csv.journal")
        try FileManager.default.createDirectory(at: journal.deletingLastPathComponent(), withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: journal.path, contents: nil))
        // Room for about 20 journal lines (sent + done of ~10 rows), then ENOSPC mid-line.
        let full = FullDisk(path: journal, capacity: 20 * 150 + 37)
        let stopped = try await shop.run(sheet, sink: full) { $0.jobs = 2 }
        #expect(stopped.summary.stopped?.contains("No space left on device") == true, "\(stopped.summary.stopped ?? "nil")")
        let created = stopped.summary.counts["created"] ?? 0
        #expect(created > 0 && created < 60, "\(stopped.summary.counts)")
        // Nothing was sent after the failure: the server has exactly what the run reported (at most the
        // writes in flight when the disk filled, which the journal could announce).
        let onServer = try await shop.products()
        #expect(onServer.count == created, "\(onServer.count) on the server, \(created) reported created")
        // The journal ends in a torn line; the next run repairs it and completes.
        let tail = try Data(contentsOf: journal)
        #expect(tail.last != 0x0A, "the full disk left a torn last line")
        let again = try await shop.run(sheet)
        #expect(again.summary.stopped == nil && again.summary.failed == 0, "\(again.rows.filter(\.isFailure).map { $0.error ?? "" })")
        let after = try await shop.products()
        #expect(after.count == 60 && after.values.allSatisfy { $0.count == 1 }, "every key exactly one product")
        let lines = try String(contentsOf: journal, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.dropLast().allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil },
                "every line of the repaired journal is whole")
        await shop.close()
    }

    @Test("a create whose answer was lost, under another file name: found by the pending link, not created twice")
    func lostAnswerUnderNewName() async throws {
        let shop = try await Shop.open()
        // As if a run sent K1 and crashed before the answer came back: the link is pending,
        // the product exists.
        let ids = try await seed(shop.sandbox, shop.sandbox.demo, count: 1, prefix: "Seeded")
        let links = try LinkStore.open(shop.links)
        try links.save(ProductLink(key: "K1", byName: false, productID: nil, state: .pending, pushed: nil, photos: nil))
        let result = try await shop.run(try shop.sheet("renamed.csv",
            "key,name,description,price,currency,stock,images\nK1,Seeded 0,seeded 0,1000,KRW,0,p.jpg\n"))
        #expect(result.row(2)?.productID == ids[0] && result.summary.counts["created"] == nil, "\(result.rows)")
        let link = try links.link("K1")
        #expect(link?.state == .linked && link?.productID == ids[0])
        #expect(try await shop.products()["Seeded 0"]?.count == 1)
        await shop.close()
    }
}
