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
        let stored = try await s3.keys("openmarket-photos", prefix: "agency/")
        #expect(stored.count == rows && stored.allSatisfy { $0.hasPrefix("agency/images/") }, "\(stored)")
        let firstIDs = try await allProducts(sandbox).map(\.id)

        // Another account, another machine: an empty home, the cache named by the environment.
        let second = try await CLIProcess.run(["import", sheet.path] + photos + account(sandbox.other),
                                              environment: home("b").merging(["OPENMARKET_CACHE": "s3://openmarket-photos/agency"]) { $1 })
        #expect(second.status == 0 && second.stdout.contains("\(rows) created"), "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains(": \(rows) found there, 0 prepared here and stored"), "\(second.stdout)")
        #expect(try await s3.keys("openmarket-photos", prefix: "agency/").count == rows, "nothing stored twice")
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
        // doctor says whether the bucket answers and takes the credentials.
        let cacheEnv = ["OPENMARKET_CACHE": "s3://openmarket-photos/agency"]
        let healthy = try await CLIProcess.run(["doctor"] + account(sandbox.other), environment: home("e").merging(cacheEnv) { $1 })
        #expect(healthy.status == 0 && healthy.stdout.contains("ok    shared photo cache s3://openmarket-photos/agency: the bucket answers"), "\(healthy.stdout)")
        let refused = try await CLIProcess.run(["doctor"] + account(sandbox.other),
                                               environment: home("e").merging(cacheEnv.merging(["AWS_SECRET_ACCESS_KEY": "wrong-s3-secret-42"]) { $1 }) { $1 })
        #expect(refused.status == 1 && refused.stdout.contains("FAIL  shared photo cache: ") && refused.stdout.contains("SignatureDoesNotMatch")
                && !refused.stdout.contains("wrong-s3-secret-42"), "\(refused.stdout)")
        await sandbox.stop()
        await s3.stop()
    }

    @Test("a sheet and its photos on S3: import and validate read s3://BUCKET/KEY; relative photo names are under the sheet's folder there; a missing object fails its row alone, naming it; a bad address is a validation error in both")
    func sheetOnStorage() async throws {
        let s3 = try await TestS3.start(buckets: ["merchant-sheets"])
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let upload = files.directory.appendingPathComponent("upload")
        try FileManager.default.createDirectory(at: upload, withIntermediateDirectories: true)
        for i in 1...3 { try Data(Fixtures.jpeg(width: 300, height: 200, seed: UInt64(40 + i))).write(to: upload.appendingPathComponent("p\(i).jpg")) }
        try Data("""
            key,name,price,stock,images
            B1,Bucket product 1,1100,2,p1.jpg
            B2,Bucket product 2,1200,2,p2.jpg;s3://merchant-sheets/shop/p3.jpg
            B3,Bucket product 3,1300,2,gone.jpg
            B4,Bucket product 4,1400,2,s3://NOT_A_BUCKET/p1.jpg

            """.utf8).write(to: upload.appendingPathComponent("products.csv"))
        try await s3.upload(upload, to: "merchant-sheets", prefix: "shop")
        let home = SharedStateTests.home("pod", in: files).merging(s3.environment) { $1 }
        let account = sandbox.demoAccount

        let checked = try await CLIProcess.run(["validate", "s3://merchant-sheets/shop/products.csv"], environment: home)
        #expect(checked.status == 1 && checked.stdout.contains("image-url") && checked.stdout.contains("row 5"), "\(checked.stdout)\(checked.stderr)")
        let report = files.directory.appendingPathComponent("report")
        let imported = try await CLIProcess.run(["import", "s3://merchant-sheets/shop/products.csv", "--report", report.path] + account, environment: home)
        #expect(imported.status == 1 && imported.stdout.contains("2 created") && imported.stdout.contains("2 failed"), "\(imported.stdout)\(imported.stderr)")
        let json = (try? String(contentsOf: report.appendingPathComponent("report.json"), encoding: .utf8)) ?? ""
        #expect(json.contains("s3://merchant-sheets/shop/gone.jpg") && json.contains("no such object"), "the missing photo named: \(json.prefix(2000))")
        #expect(json.contains("image-url"), "the bad address is the validation's error in import too")
        let names = try await allProducts(sandbox).map(\.name).sorted()
        #expect(names == ["Bucket product 1", "Bucket product 2"])
        let detail = try await curl(["\(sandbox.url)/api/products/\(try await allProducts(sandbox).first { $0.name == "Bucket product 2" }!.id)"]).decode(ProductDetail.self)
        #expect(detail.images?.count == 2, "a relative photo and an absolute s3:// one")
        // Run again: the same sheet is one product per key, nothing sent for the two made.
        let again = try await CLIProcess.run(["import", "s3://merchant-sheets/shop/products.csv"] + account, environment: home)
        #expect(again.stdout.contains("2 unchanged"), "\(again.stdout)\(again.stderr)")
        let noKeys = try await CLIProcess.run(["import", "s3://merchant-sheets/shop/products.csv"] + account,
                                              environment: home.merging(["AWS_ACCESS_KEY_ID": ""]) { $1 })
        #expect(noKeys.status == 2 && noKeys.stderr.contains("AWS_ACCESS_KEY_ID"), "\(noKeys.stderr)")
        await sandbox.stop()
        await s3.stop()
    }
}
