import CatalogSync
import Foundation
import Glibc
import ShopState
import Support
import Testing
import TestSupport

@Suite("Photos not read again")
struct PhotoHashTests {
    @Test("a sync of an unchanged sheet reads no photo; a photo edited in place (same size, date set back) or replaced is seen")
    func unchangedPhotosAreNotRead() async throws {
        let shop = try await Shop.open()
        for (name, seed) in [("a.jpg", 3), ("b.jpg", 4), ("c.jpg", 5)] {
            _ = try shop.files.write(Fixtures.jpeg(width: 64, height: 48, seed: UInt64(seed)), named: name)
        }
        // A photo written less than 2 s ago is never trusted by its fingerprint.
        try await Task.sleep(for: .milliseconds(2_200))
        let hashes = try PhotoHashes(url: shop.files.directory.appendingPathComponent("cache/photo-hashes.sqlite"))
        let header = "key,name,price,currency,stock,images\n"
        let rows = "A1,Alpha vase,5000,KRW,1,a.jpg\nB1,Beta vase,6000,KRW,2,b.jpg\nC1,Gamma vase,7000,KRW,3,c.jpg\n"
        let first = try await shop.run(try shop.sheet("products.csv", header + rows)) { $0.photoHashes = hashes }
        #expect(first.summary.counts == ["created": 3])

        // The same sheet under another name: every photo's hash comes from the cache.
        let again = try await shop.run(try shop.sheet("products copy.csv", header + rows)) { $0.photoHashes = hashes }
        #expect(again.summary.counts == ["unchanged": 3] && again.summary.photosDiffer == 0)
        #expect(hashes.statistics.hits == 3 && hashes.statistics.misses == 0, "\(hashes.statistics)")

        // b.jpg: one byte changed in place, same size, its modification date put back as
        // a careful photo tool would. c.jpg: replaced by another file of the same size.
        let b = shop.files.directory.appendingPathComponent("b.jpg")
        var before = stat()
        #expect(stat(b.path, &before) == 0)
        var bytes = try Data(contentsOf: b)
        bytes[bytes.count / 2] ^= 0x5A
        let handle = try FileHandle(forWritingTo: b)
        try handle.write(contentsOf: bytes)
        try handle.close()
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, b.path, &times, 0) == 0, "the modification time put back to the nanosecond")
        var after = stat()
        #expect(stat(b.path, &after) == 0)
        #expect(after.st_size == before.st_size && after.st_ino == before.st_ino
                && after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
        let c = shop.files.directory.appendingPathComponent("c.jpg")
        var other = try Data(contentsOf: c)
        other[other.count / 2] ^= 0x5A
        let replacement = shop.files.directory.appendingPathComponent("c.new")
        try other.write(to: replacement)
        #expect(rename(replacement.path, c.path) == 0, "rename(2) over c.jpg")

        let edited = try await shop.run(try shop.sheet("products.csv", header + rows)) { $0.photoHashes = hashes }
        #expect(edited.summary.photosDiffer == 2, "\(edited.rows.map { $0.note ?? "" })")
        let differ = edited.rows.filter { $0.note?.contains("the API cannot replace photos") == true }.map(\.key)
        #expect(differ.sorted() == ["B1", "C1"], "\(edited.rows.map { "\($0.key): \($0.note ?? "")" })")
        #expect(hashes.statistics.hits == 4 && hashes.statistics.misses == 2, "\(hashes.statistics)")

        // Without the cache the same answer, by reading every photo.
        let uncached = try await shop.run(try shop.sheet("products.csv", header + rows))
        #expect(uncached.summary.photosDiffer == 2)
        await shop.close()
    }

    @Test("a fingerprint is recorded only when the file did not change while read and is older than 2 s")
    func recordingRules() throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let path = try files.write([1, 2, 3, 4], named: "p.jpg")
        let hashes = try PhotoHashes(url: files.directory.appendingPathComponent("hashes.sqlite"))
        let fresh = try #require(FileFingerprint(path: path))
        #expect(FileFingerprint(path: files.directory.path) == nil, "a folder has no fingerprint")
        #expect(!fresh.settled(), "just written")

        hashes.record(path: path, before: fresh, after: fresh, hash: "h1")
        #expect(hashes.hash(path: path, fingerprint: fresh) == nil, "too fresh to trust")

        let later = Date().addingTimeInterval(3)
        var changedWhileRead = fresh
        changedWhileRead.size += 1
        hashes.record(path: path, before: fresh, after: changedWhileRead, hash: "h2", now: later)
        #expect(hashes.hash(path: path, fingerprint: fresh) == nil, "changed while it was read")

        hashes.record(path: path, before: fresh, after: fresh, hash: "h3", now: later)
        #expect(hashes.hash(path: path, fingerprint: fresh) == "h3")
        var touched = fresh
        touched.changed += 1
        #expect(hashes.hash(path: path, fingerprint: touched) == nil, "any other fingerprint is a miss")
        #expect(hashes.hash(path: path + ".other", fingerprint: fresh) == nil)

        // The cache lives on: a second opening sees what the first recorded.
        let reopened = try PhotoHashes(url: hashes.url)
        #expect(reopened.hash(path: path, fingerprint: fresh) == "h3")
    }
}
