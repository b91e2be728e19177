import Foundation
import OpenMarketAPI
import Sandbox
import Support
import Testing
import TestSupport

/// `--cache s3://BUCKET/PREFIX`: prepared photos on S3-compatible storage (moto on 127.0.0.1,
/// signatures checked), found by every machine and every account.
@Suite("Shared photo cache on S3", .serialized)
struct SharedCacheTests {
    /// `count` rows, each with a photo of its own that has to be shrunk under --max-bytes 40000.
    static func photoSheet(_ files: Scratch, rows count: Int) throws -> URL {
        var csv = "key,name,price,stock,images\n"
        for i in 1...count {
            _ = try files.write(Fixtures.jpeg(width: 900, height: 700, quality: 92, seed: UInt64(i)), named: "photo-\(i).jpg")
            csv += "S\(i),Shared photo \(i),\(2000 + i),3,photo-\(i).jpg\n"
        }
        let url = files.directory.appendingPathComponent("photos.csv")
        try Data(csv.utf8).write(to: url)
        return url
    }

    /// The SHA-256 of every photo the products with these ids hold.
    static func photoHashes(_ sandbox: TestSandbox, ids: [Int]) async throws -> Set<String> {
        var hashes = Set<String>()
        for id in ids {
            let detail = try await curl(["\(sandbox.url)/api/products/\(id)"]).decode(ProductDetail.self)
            for image in detail.images ?? [] { hashes.insert(SHA256.hash(data: try await curl([image.url]).body).hex) }
        }
        return hashes
    }

    @Test("one account prepares and stores; a second account's import from an empty home takes every photo from the storage and sends the same bytes; a wrong secret stops the run before anything is sent")
    func secondAccount() async throws {
        let s3 = try await TestS3.start(buckets: ["openmarket-photos"])
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let rows = 10
        let sheet = try Self.photoSheet(files, rows: rows)
        func home(_ name: String) -> [String: String] { SharedStateTests.home(name, in: files).merging(s3.environment) { $1 } }
        func account(_ vendor: SandboxVendor) -> [String] { ["--server", sandbox.url, "--identifier", vendor.identifier, "--secret", vendor.secret] }
        let photos = ["--max-bytes", "40000"]

        let first = try await CLIProcess.run(["import", sheet.path, "--cache", "s3://openmarket-photos/agency"] + photos + account(sandbox.demo),
                                             environment: home("a"))
        #expect(first.status == 0 && first.stdout.contains("\(rows) created"), "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("Shared photo cache s3://openmarket-photos/agency: 0 found there, \(rows) prepared here and stored"), "\(first.stdout)")
        let stored = try s3.keys("openmarket-photos", prefix: "agency/")
        #expect(stored.count == rows && stored.allSatisfy { $0.hasPrefix("agency/images/") }, "\(stored)")
        let firstIDs = try await allProducts(sandbox).map(\.id)

        // Another account, another machine: an empty home, the cache named by the environment.
        let second = try await CLIProcess.run(["import", sheet.path] + photos + account(sandbox.other),
                                              environment: home("b").merging(["OPENMARKET_CACHE": "s3://openmarket-photos/agency"]) { $1 })
        #expect(second.status == 0 && second.stdout.contains("\(rows) created"), "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains(": \(rows) found there, 0 prepared here and stored"), "\(second.stdout)")
        #expect(try s3.keys("openmarket-photos", prefix: "agency/").count == rows, "nothing stored twice")
        let secondIDs = try await allProducts(sandbox).map(\.id).filter { !firstIDs.contains($0) }
        #expect(secondIDs.count == rows)
        let sent = try await Self.photoHashes(sandbox, ids: firstIDs)
        let sentAgain = try await Self.photoHashes(sandbox, ids: secondIDs)
        #expect(sent.count == rows && sent == sentAgain, "the same prepared bytes in both shops")
        let cached = try FileManager.default.contentsOfDirectory(atPath: files.directory.appendingPathComponent("home-b/cache/openmarket/images").path)
        #expect(cached.filter { !$0.hasPrefix(".") }.count == rows, "what came from the storage is kept in this machine's cache too")

        // A wrong secret: refused by the storage before any row is sent; the secret never shown.
        let wrong = try await CLIProcess.run(["import", sheet.path, "--cache", "s3://openmarket-photos/agency"] + photos + account(sandbox.other),
                                             environment: home("c").merging(["AWS_SECRET_ACCESS_KEY": "wrong-s3-secret-42"]) { $1 })
        #expect(wrong.status == 3 && wrong.stderr.contains("SignatureDoesNotMatch") && wrong.stderr.contains("shared photo cache"), "\(wrong.stdout)\(wrong.stderr)")
        #expect(!(wrong.stdout + wrong.stderr).contains("wrong-s3-secret-42") && !(first.stdout + first.stderr).contains(s3.secretKey))
        let bad = try await CLIProcess.run(["import", sheet.path, "--cache", "https://example.com/x"] + account(sandbox.other), environment: home("d"))
        #expect(bad.status == 2 && bad.stderr.contains("s3://BUCKET/PREFIX"), "\(bad.stderr)")
        let both = try await CLIProcess.run(["import", sheet.path, "--cache", "s3://openmarket-photos/agency", "--no-cache"] + account(sandbox.other), environment: home("d"))
        #expect(both.status == 64 && both.stderr.contains("choose one"), "\(both.stderr)")
        #expect(try await allProducts(sandbox).count == 2 * rows, "the refused runs sent nothing")
        await sandbox.stop()
        await s3.stop()
    }
}
