import Foundation
import OpenMarketAPI
import Sandbox
import Testing
import TestSupport

/// A manifest of `count` rows, each with its own name and key and one small photo.
/// Every product on the server, by paging (what a person would count).
func allProducts(_ sandbox: TestSandbox, ca: URL? = nil) async throws -> [ProductSummary] {
    try await allProducts(at: sandbox.url, ca: ca)
}

/// Every product listed at the sandbox at `url`, page after page.
func allProducts(at url: String, ca: URL? = nil) async throws -> [ProductSummary] {
    var products: [ProductSummary] = []
    var page = 1
    let trust = ca.map { ["--cacert", $0.path] } ?? []
    while true {
        // A sandbox with --fail-rate fails reads too: ask again until the page comes.
        var answer = try await curl(trust + ["\(url)/api/products?page_no=\(page)&items_per_page=500"])
        for _ in 0..<20 where answer.status != 200 {
            answer = try await curl(trust + ["\(url)/api/products?page_no=\(page)&items_per_page=500"])
        }
        let result = try answer.decode(ProductPage.self)
        products += result.pages
        guard result.hasNext else { return products }
        page += 1
    }
}

func importArguments(_ manifest: URL, _ sandbox: TestSandbox, _ extra: [String] = []) -> [String] {
    ["import", manifest.path, "--server", sandbox.url, "--identifier", sandbox.demo.identifier,
     "--secret", sandbox.demo.secret, "--no-cache", "--report", manifest.deletingLastPathComponent().appendingPathComponent("report").path] + extra
}

@Suite("openmarket import", .serialized)
struct ImportCommandTests {
    static var samples: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("samples")
    }

    /// The README's import of `samples/`, into `sandbox`, with the report and journal kept in a scratch folder.
    static func sampleImport(_ sandbox: TestSandbox, report: URL, journal: URL) -> [String] {
        ["import", samples.appendingPathComponent("products.csv").path, "--server", sandbox.url,
         "--identifier", sandbox.demo.identifier, "--secret", sandbox.demo.secret,
         "--report", report.path, "--journal", journal.path, "--no-cache"]
    }

    /// Every picture of the report is a small JPEG in its folder; none points at a server.
    static func expectStandalone(_ html: String, in folder: URL, pictures: Int) throws {
        let sources = html.components(separatedBy: "<img src=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(sources.count == pictures, "\(sources.count) pictures in the report")
        for source in sources {
            #expect(source.hasPrefix("thumbnails/"), "\(source)")
            let data = try Data(contentsOf: folder.appendingPathComponent(String(source)))
            #expect(data.starts(with: [0xFF, 0xD8]) && data.count < 20_000, "\(source): \(data.count) bytes")
        }
        #expect(!html.contains("src=\"http"))
    }

    @Test("a full disk under the report: the import is done and says so, the report is named incomplete, exit 1, no crash")
    func reportOnFullDisk() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let report = files.directory.appendingPathComponent("report")
        try FileManager.default.createDirectory(at: report, withIntermediateDirectories: true)
        // Every write to report.csv fails as on a full disk.
        try FileManager.default.createSymbolicLink(atPath: report.appendingPathComponent("report.csv").path, withDestinationPath: "/dev/full")
        let arguments = Self.sampleImport(sandbox, report: report, journal: files.directory.appendingPathComponent("journal"))
        let result = try await CLIProcess.run(arguments)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("20 rows: 20 created"), "\(result.stdout)")
        #expect(result.stderr.contains("the report in \(report.path) is incomplete"), "\(result.stderr)")
        #expect(result.stderr.contains("No space left on device"), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("NSCocoaErrorDomain"), "\(result.stderr)")
        #expect(try await allProducts(sandbox).count == 20)
        // The same command again, with room: nothing is done twice.
        try FileManager.default.removeItem(at: report.appendingPathComponent("report.csv"))
        let again = try await CLIProcess.run(arguments)
        #expect(again.status == 0 && again.stdout.contains("20 rows: 20 unchanged"), "\(again.stdout)\(again.stderr)")
        #expect(try await allProducts(sandbox).count == 20)
    }

    @Test("all samples imported; every product matches its row; a re-run changes nothing")
    func samples() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let report = files.directory.appendingPathComponent("report")
        let journal = files.directory.appendingPathComponent("journal")
        let arguments = Self.sampleImport(sandbox, report: report, journal: journal)
        let result = try await CLIProcess.run(arguments)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("20 rows: 20 created"))
        let products = try await allProducts(sandbox)
        #expect(products.count == 20)
        // Compare with the manifest, row by row.
        let csv = try String(contentsOf: Self.samples.appendingPathComponent("products.csv"), encoding: .utf8)
        let report_json = try JSONSerialization.jsonObject(with: Data(contentsOf: report.appendingPathComponent("report.json"))) as! [String: Any]
        let rows = report_json["rows"] as! [[String: Any]]
        #expect(rows.count == 20 && rows.allSatisfy { $0["status"] as? String == "created" })
        for line in csv.split(separator: "\n").dropFirst() {
            let name = String(line.split(separator: ",", maxSplits: 2)[1]).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            let product = try #require(products.first { $0.name == name }, "\(name) missing")
            let detail = try await curl(["\(sandbox.url)/api/products/\(product.id)"]).decode(ProductDetail.self)
            let fields = line.components(separatedBy: "\",")
            let tail = fields.last!.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            // tail: price, currency, discounted_price, stock, images
            #expect(detail.summary.price == Money(exactly: tail[0]), "\(name) price")
            #expect(detail.summary.currency == tail[1], "\(name) currency")
            #expect(detail.summary.discountedPrice == Money(exactly: tail[2]), "\(name) discount")
            #expect(detail.summary.stock == Int(tail[3]), "\(name) stock")
            #expect(detail.images?.count == tail[4].split(separator: ";").count, "\(name) images")
            for image in detail.images ?? [] {
                #expect(try await curl([image.url]).body.count <= 307_200)
            }
        }
        // The photo-sized and rotated sample became an upright landscape JPEG.
        let cup = try #require(products.first { $0.name.hasPrefix("백자 찻잔") })
        let cupDetail = try await curl(["\(sandbox.url)/api/products/\(cup.id)"]).decode(ProductDetail.self)
        let first = try await curl([try #require(cupDetail.images?.first?.url)])
        #expect(first.body.count <= 307_200 && first.body.count > 100_000)
        // The HTML report lists the products with thumbnails kept in its own folder: it
        // stands alone (no server, any folder).
        let html = try String(contentsOf: report.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("녹차 라떼") && html.contains("<meta charset=\"utf-8\">"))
        #expect(!html.contains(sandbox.demo.secret) && !html.contains(sandbox.demo.identifier))
        try Self.expectStandalone(html, in: report, pictures: 20)

        // A re-run's report (nothing prepared: the thumbnails come from the server) stands alone too.
        let again = try await CLIProcess.run(arguments)
        #expect(again.status == 0 && again.stdout.contains("20 unchanged"))
        let edited = csv.replacingOccurrences(of: ",4500,KRW,", with: ",4400,KRW,")
        let editedURL = files.directory.appendingPathComponent("edited.csv")
        try edited.write(to: editedURL, atomically: true, encoding: .utf8)
        let updateReport = files.directory.appendingPathComponent("report-edited")
        let update = try await CLIProcess.run(["import", editedURL.path, "--images", Self.samples.path, "--server", sandbox.url,
                                               "--identifier", sandbox.demo.identifier, "--secret", sandbox.demo.secret,
                                               "--report", updateReport.path, "--no-cache"])
        #expect(update.status == 0 && update.stdout.contains("1 updated"), "\(update.stdout)\(update.stderr)")
        try Self.expectStandalone(try String(contentsOf: updateReport.appendingPathComponent("report.html"), encoding: .utf8),
                                  in: updateReport, pictures: 1)
        #expect(try await allProducts(sandbox).count == 20)
        await sandbox.stop()
    }

    @Test("built-in sandbox, as a merchant works: the sheet again under a new name, one price edited, a stock file")
    func merchantMonth() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let shop = files.directory.appendingPathComponent("shop")
        try FileManager.default.copyItem(at: Self.samples, to: shop)
        let first = try await CLIProcess.run(["import", "products.csv", "--quiet"], directory: shop)
        #expect(first.status == 0 && first.stdout.contains("20 created"), "\(first.stdout)\(first.stderr)")
        // Without --no-cache, the caches are in the test run's XDG_CACHE_HOME.
        let cache = CLIProcess.stateHome.appendingPathComponent("cache/openmarket")
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent("photo-hashes.sqlite").path))
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent("images").path))
        // A copy under a new name, one price edited: one PATCH, no duplicate (the sandbox
        // listens on a new port each run; the account is the same).
        let sheet = try String(contentsOf: shop.appendingPathComponent("products.csv"), encoding: .utf8)
        let edited = sheet.replacingOccurrences(of: "첫물 찻잎.\",32000,", with: "첫물 찻잎.\",31000,")
        #expect(edited != sheet)
        try edited.write(to: shop.appendingPathComponent("products-november.csv"), atomically: true, encoding: .utf8)
        let november = try await CLIProcess.run(["import", "products-november.csv", "--quiet"], directory: shop)
        #expect(november.status == 0 && november.stdout.contains("1 updated, 19 unchanged"), "\(november.stdout)\(november.stderr)")
        #expect(november.stdout.contains("fields changed: price 1"))
        try "key,stock\nTEA-001,0\nTEA-002,+5\n".write(to: shop.appendingPathComponent("stock.csv"), atomically: true, encoding: .utf8)
        let stock = try await CLIProcess.run(["import", "stock.csv", "--quiet", "--report", "stock-report"], directory: shop)
        #expect(stock.status == 0 && stock.stdout.contains("2 updated") && stock.stdout.contains("stock set to 0: 1"), "\(stock.stdout)")
        let report = try String(contentsOf: shop.appendingPathComponent("stock-report/report.csv"), encoding: .utf8)
        #expect(report.contains("stock 25 → 0") && report.contains("stock 12 → 17"), "\(report)")
        let list = try await CLIProcess.run(["list", "--all", "--format", "json"], directory: shop)
        let products = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(products.count == 20, "no duplicate: \(products.count) products")
    }

    @Test("faults: 20 % failures, 10 % dropped answers, 20 requests/s: 200 rows, each created exactly once")
    func faults() async throws {
        let sandbox = try await TestSandbox.start {
            $0.faults.failRate = 0.2
            $0.faults.dropRate = 0.1
            $0.faults.rateLimitPerSecond = 20
        }
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 200)
        var result = try await CLIProcess.run(importArguments(manifest, sandbox, ["--jobs", "8"]))
        // A row can run out of retries under heavy faults; a re-run finishes it, never doubles it.
        var runs = 1
        while result.status != 0 && runs < 4 {
            result = try await CLIProcess.run(importArguments(manifest, sandbox, ["--jobs", "8"]))
            runs += 1
        }
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        await sandbox.stop(removeData: false)
        let check = try await TestSandbox.start(directory: sandbox.directory)
        let products = try await allProducts(check)
        let names = products.map(\.name)
        #expect(names.count == 200, "\(names.count) products for 200 rows after \(runs) runs")
        #expect(Set(names).count == names.count, "duplicates: \(names.count - Set(names).count)")
        await check.stop()
    }

    /// Connections are reused for every request, registers included. A server closes an idle
    /// keep-alive connection (here after 40–120 ms, while requests come about as often), so
    /// some registers are sent on a connection the server is closing, and 5 % of answers are
    /// dropped after the product is stored: libcurl would send such a register again by
    /// itself; the client refuses, and the import looks it up instead.
    @Test("connections the server closes when idle, at random moments, over HTTP/1.1 and HTTPS with HTTP/2: each key exactly one product",
          arguments: [false, true])
    func idleConnections(https: Bool) async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        var generator = SplitMix(seed: https ? 7 : 3)
        let idle = 0.04 + Double(generator.next() % 80) / 1000
        let certificates = https ? try TestCertificates.make(in: files.directory.appendingPathComponent("tls")) : nil
        let sandbox = try await TestSandbox.start {
            $0.idleTimeout = idle
            $0.faults.dropRate = 0.05
            if let certificates { $0.tls = (certificates.certificate, certificates.key) }
        }
        let manifest = try writeManifest(files, rows: 150)
        let extra = ["--jobs", "4", "--rate", "\(Int(4 / idle))"] + (certificates.map { ["--cacert", $0.ca.path, "--http2"] } ?? [])
        var result = try await CLIProcess.run(importArguments(manifest, sandbox, extra))
        var runs = 1
        while result.status != 0 && runs < 3 {
            result = try await CLIProcess.run(importArguments(manifest, sandbox, extra))
            runs += 1
        }
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let names = try await allProducts(sandbox, ca: certificates?.ca).map(\.name)
        #expect(names.count == 150, "\(names.count) products for 150 rows after \(runs) runs (idle timeout \(idle) s)")
        #expect(Set(names).count == names.count, "duplicates: \(names.count - Set(names).count)")
        await sandbox.stop()
    }

    @Test("kill -9 at 5 different moments, then resume: nothing missing, nothing doubled")
    func crashes() async throws {
        let sandbox = try await TestSandbox.start { $0.faults.latencyMilliseconds = 15 }
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 300)
        var generator = SplitMix(seed: 42)
        for round in 1...5 {
            let child = try CLIProcess(importArguments(manifest, sandbox, ["--jobs", "4"]))
            // Wait until this run has written something, then kill it at a random moment.
            let before = try await allProducts(sandbox).count
            let delay = 150 + Int(generator.next() % 900)
            try await Task.sleep(for: .milliseconds(delay))
            try await child.kill()
            let after = try await allProducts(sandbox).count
            #expect(after >= before, "round \(round)")
            let names = try await allProducts(sandbox).map(\.name)
            #expect(Set(names).count == names.count, "round \(round): duplicates after a kill")
        }
        let final = try await CLIProcess.run(importArguments(manifest, sandbox))
        #expect(final.status == 0, "\(final.stdout)\(final.stderr)")
        let names = try await allProducts(sandbox).map(\.name)
        #expect(names.count == 300, "\(names.count) products for 300 rows")
        #expect(Set(names).count == 300)
        await sandbox.stop(removeData: false)

        // Next month, the same shop behind a flaky network (20 % failures, 10 % dropped answers):
        // the sheet under a new name with every price and stock edited, killed at 3 random moments.
        let flaky = try await TestSandbox.start(directory: sandbox.directory) {
            $0.port = sandbox.server.port   // the same server: the same account, the same link store
            $0.faults.failRate = 0.2
            $0.faults.dropRate = 0.1
            $0.faults.latencyMilliseconds = 15
        }
        var edited = "key,name,price,currency,discounted_price,stock,images\n"
        for i in 1...300 { edited += "K\(i),Item number \(i),\(1200 + i),KRW,\(i % 3 == 0 ? 100 : 0),\(i % 11),p.jpg\n" }
        let november = files.directory.appendingPathComponent("november.csv")
        try edited.write(to: november, atomically: true, encoding: .utf8)
        let arguments = importArguments(november, flaky, ["--jobs", "4"])
        #expect(flaky.url == sandbox.url)
        for _ in 1...3 {
            let child = try CLIProcess(arguments)
            try await Task.sleep(for: .milliseconds(200 + Int(generator.next() % 800)))
            try await child.kill()
        }
        var last = try await CLIProcess.run(arguments)
        for _ in 0..<3 where last.status != 0 { last = try await CLIProcess.run(arguments) }   // rows the faults failed
        #expect(last.status == 0, "\(last.stdout)\(last.stderr)")
        let synced = try await allProducts(flaky)
        #expect(synced.count == 300 && Set(synced.map(\.name)).count == 300, "every key exactly one product")
        for product in synced {
            let i = try #require(Int(product.name.dropFirst("Item number ".count)))
            #expect(product.price == Money(1200 + i) && product.stock == i % 11, "\(product.name): the sheet's values")
        }
        await flaky.stop()
    }

    @Test("dry run writes nothing; a row with a missing image fails alone; exit 1 lists it")
    func dryRunAndBadRow() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 5)
        var text = try String(contentsOf: manifest, encoding: .utf8)
        text = text.replacingOccurrences(of: "K3,Item number 3,1003,KRW,100,3,p.jpg", with: "K3,Item number 3,1003,KRW,100,3,gone.jpg")
        try text.write(to: manifest, atomically: true, encoding: .utf8)
        let dry = try await CLIProcess.run(importArguments(manifest, sandbox, ["--dry-run"]))
        #expect(dry.stdout.contains("4 would-create") && dry.stdout.contains("1 failed") && dry.stdout.contains("dry run"))
        #expect(try await allProducts(sandbox).isEmpty)
        let real = try await CLIProcess.run(importArguments(manifest, sandbox))
        #expect(real.status == 1)
        #expect(real.stdout.contains("row 4 failed") && real.stdout.contains("gone.jpg"))
        #expect(try await allProducts(sandbox).count == 4)
        let csv = try String(contentsOf: manifest.deletingLastPathComponent().appendingPathComponent("report/report.csv"), encoding: .utf8)
        #expect(csv.contains("4,K3,Item number 3,failed"))

        // report.xlsx: the merchant puts the photo in place and imports the failed rows again.
        let workbook = manifest.deletingLastPathComponent().appendingPathComponent("report/report.xlsx")
        let check = try await CLIProcess.run(["validate", workbook.path, "--images", files.directory.path])
        #expect(check.stdout.contains("report.xlsx: 1 row,"), "\(check.stdout)\(check.stderr)")
        try FileManager.default.copyItem(at: files.directory.appendingPathComponent("p.jpg"), to: files.directory.appendingPathComponent("gone.jpg"))
        let again = try await CLIProcess.run(importArguments(workbook, sandbox))
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        let products = try await allProducts(sandbox)
        #expect(products.count == 5 && products.contains { $0.name == "Item number 3" && $0.price == 1003 })
        await sandbox.stop()
    }

    @Test("update and upsert (sync) round trips; a large price change needs --force")
    func updateAndUpsert() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 3)
        #expect(try await CLIProcess.run(importArguments(manifest, sandbox)).status == 0)
        let products = try await allProducts(sandbox)
        let first = try #require(products.first { $0.name == "Item number 1" })
        // update: a row with an id (linked to its key in the account) changes the product; photos
        // cannot change and the report says so.
        let update = files.directory.appendingPathComponent("update.csv")
        try "id,key,name,price,currency,stock,images\n\(first.id),K1,Item number 1 (new),5555,KRW,9,p.jpg;p.jpg\n"
            .write(to: update, atomically: true, encoding: .utf8)
        // 1001 → 5555 is +455 %: refused without --force, nothing changes.
        let guarded = try await CLIProcess.run(importArguments(update, sandbox, ["--mode", "update"]))
        #expect(guarded.status == 1 && guarded.stdout.contains("--max-price-change 50"), "\(guarded.stdout)")
        #expect(try await curl(["\(sandbox.url)/api/products/\(first.id)"]).decode(ProductDetail.self).summary.price == 1001)
        let updated = try await CLIProcess.run(importArguments(update, sandbox, ["--mode", "update", "--force"]))
        #expect(updated.status == 0 && updated.stdout.contains("1 updated"), "\(updated.stdout)\(updated.stderr)")
        #expect(updated.stdout.contains("1 row has photos that differ from its product's (the report names them): the API cannot replace photos. "
                                        + "--replace-photos makes that product again with the new photos: a new product id"), "\(updated.stdout)")
        let detail = try await curl(["\(sandbox.url)/api/products/\(first.id)"]).decode(ProductDetail.self)
        #expect(detail.summary.name == "Item number 1 (new)" && detail.summary.price == 5555 && detail.summary.stock == 9)
        let report = try String(contentsOf: files.directory.appendingPathComponent("report/report.csv"), encoding: .utf8)
        #expect(report.contains("photos differ") && report.contains("price 1001 → 5555"), "\(report)")
        // update of a row that matches no product fails that row
        let noID = files.directory.appendingPathComponent("noid.csv")
        try "name,price,images\nNo id here,1000,p.jpg\n".write(to: noID, atomically: true, encoding: .utf8)
        let refused = try await CLIProcess.run(importArguments(noID, sandbox, ["--mode", "update"]))
        #expect(refused.status == 1 && refused.stdout.contains("--mode update only changes existing products"), "\(refused.stdout)")
        // upsert (another name for sync): an existing name is updated, a new name is created.
        let upsert = files.directory.appendingPathComponent("upsert.csv")
        try "name,price,currency,stock,images\nItem number 2,1200,KRW,1,p.jpg\nBrand new item,100,KRW,1,p.jpg\n"
            .write(to: upsert, atomically: true, encoding: .utf8)
        let upserted = try await CLIProcess.run(importArguments(upsert, sandbox, ["--mode", "upsert"]))
        #expect(upserted.status == 0 && upserted.stdout.contains("1 created") && upserted.stdout.contains("1 updated"),
                "\(upserted.stdout)\(upserted.stderr)")
        let after = try await allProducts(sandbox)
        #expect(after.count == 4)
        #expect(after.first { $0.name == "Item number 2" }?.price == 1200)
        await sandbox.stop()
    }

    @Test("Ctrl-C stops gracefully and leaves a journal that a resume completes")
    func interrupt() async throws {
        // 120 rows, 2 at a time at 100 ms a request: 6 s or more, so the interrupt lands part way.
        let sandbox = try await TestSandbox.start { $0.faults.latencyMilliseconds = 100 }
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 120)
        let child = try CLIProcess(importArguments(manifest, sandbox, ["--jobs", "2"]))
        // Until some products are made, however long a loaded machine takes to start the run.
        let deadline = ContinuousClock.now + .seconds(60)
        while try await allProducts(sandbox).count < 4, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        child.signal(SIGINT)
        let status = try await child.exit()
        #expect(status == 1)
        #expect(child.stdout.contains("Stopped") && child.stdout.contains("Run the same command again"), "\(child.stdout)")
        let partial = try await allProducts(sandbox).count
        #expect(partial > 0 && partial < 120)
        let resumed = try await CLIProcess.run(importArguments(manifest, sandbox))
        #expect(resumed.status == 0)
        let names = try await allProducts(sandbox).map(\.name)
        #expect(names.count == 120 && Set(names).count == 120)
        await sandbox.stop()
    }

    @Test("unreachable server or refused credentials: exit 3 before anything is written")
    func preflight() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 2)
        let refused = try await CLIProcess.run(["import", manifest.path, "--server", sandbox.url, "--identifier", sandbox.demo.identifier,
                                                "--secret", "wrong-secret-value"])
        #expect(refused.status == 3, "\(refused.stderr)")
        #expect(!refused.stderr.contains("wrong-secret-value"))
        #expect(try await allProducts(sandbox).isEmpty)
        let url = sandbox.url
        await sandbox.stop()
        let down = try await CLIProcess.run(["import", manifest.path, "--server", url, "--identifier", "x", "--secret", "y"])
        #expect(down.status == 3)
    }
}

@Suite("openmarket import: URLs, rate, machine output")
struct ImportExtrasTests {
    @Test("images given as http(s) URLs are downloaded and prepared like files; a bad URL fails its row alone")
    func imageURLs() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        // A photo served over HTTP: the first product's image.
        let seed = try await Register(sandbox, name: "Seed product", images: [try files.write(Fixtures.jpeg(width: 700, height: 500, quality: 75), named: "s.jpg")])
            .send().decode(ProductDetail.self)
        let url = try #require(seed.images?.first?.url)
        let manifest = files.directory.appendingPathComponent("urls.csv")
        try "name,price,stock,images\nFrom a URL,1000,1,\(url)\nBroken URL,1000,1,\(sandbox.url)/images/999999.jpg\n"
            .write(to: manifest, atomically: true, encoding: .utf8)
        let result = try await CLIProcess.run(importArguments(manifest, sandbox, ["--max-bytes", "40000"]))
        #expect(result.status == 1)
        #expect(result.stdout.contains("1 created") && result.stdout.contains("1 failed") && result.stdout.contains("404"))
        let products = try await allProducts(sandbox)
        let made = try #require(products.first { $0.name == "From a URL" })
        let detail = try await curl(["\(sandbox.url)/api/products/\(made.id)"]).decode(ProductDetail.self)
        let image = try await curl([try #require(detail.images?.first?.url)])
        #expect(image.body.count <= 40_000 && image.body.count > 1_000)
        await sandbox.stop()
    }

    @Test("--rate caps requests per second across workers")
    func rate() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 12)
        let clock = ContinuousClock()
        let start = clock.now
        let result = try await CLIProcess.run(importArguments(manifest, sandbox, ["--rate", "8", "--jobs", "4"]))
        let elapsed = clock.now - start
        #expect(result.status == 0)
        // 12 writes at 8 per second take at least 11/8 s, whatever the number of workers.
        #expect(elapsed >= .milliseconds(1375), "\(elapsed)")
        await sandbox.stop()
    }

    @Test("--log-format json: progress and summary as JSON objects")
    func jsonLog() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 3)
        let result = try await CLIProcess.run(importArguments(manifest, sandbox, ["--log-format", "json"]))
        #expect(result.status == 0)
        let summaryLine = try #require(result.stdout.split(separator: "\n").last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(summaryLine.utf8)) as? [String: Any])
        #expect(object["event"] as? String == "summary")
        let summary = try #require(object["summary"] as? [String: Any])
        #expect((summary["counts"] as? [String: Int])?["created"] == 3)
        #expect(result.stderr.contains("\"event\":\"progress\""))
        #expect(!result.stdout.contains(sandbox.demo.secret) && !result.stderr.contains(sandbox.demo.secret))
    }
}

@Suite("openmarket import: stopping early")
struct ImportStopTests {
    @Test("--max-errors stops the run after N failed rows and says how to resume")
    func maxErrors() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        _ = try files.write(Fixtures.jpeg(width: 48, height: 36), named: "p.jpg")
        var csv = "key,name,price,images\n"
        for i in 1...40 { csv += i <= 5 ? "K\(i),x,1000,p.jpg\n" : "K\(i),Good item \(i),1000,p.jpg\n" }
        let manifest = files.directory.appendingPathComponent("products.csv")
        try csv.write(to: manifest, atomically: true, encoding: .utf8)
        let result = try await CLIProcess.run(importArguments(manifest, sandbox, ["--max-errors", "3"]))
        #expect(result.status == 1)
        #expect(result.stdout.contains("Stopped: stopped after 3 failed rows (--max-errors 3)"), "\(result.stdout)")
        #expect(result.stdout.contains("Run the same command again") && result.stdout.contains("--secret …"))
        #expect(!result.stdout.contains(sandbox.demo.secret) && !result.stdout.contains(sandbox.demo.identifier), "secrets in the hint")
        let made = try await allProducts(sandbox).count
        #expect(made < 35)
        // A stop is not a failure, and the counts add up to the rows read: the 5 bad rows
        // failed, what was made was made, every other row is `not sent` (not among the rows to fix).
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("40 rows: ") }, "\(result.stdout)")
        let counts = Dictionary(uniqueKeysWithValues: line.dropFirst("40 rows: ".count).split(separator: " in ")[0]
            .split(separator: ", ").map { part -> (String, Int) in
                let words = part.split(separator: " ", maxSplits: 1)
                return (String(words[1]), Int(words[0]) ?? -1)
            })
        #expect(counts["failed"] == 5 && (counts["created"] ?? 0) == made && counts["not sent"] == 35 - made, "\(line)")
        #expect(counts.values.reduce(0, +) == 40, "\(line)")
        #expect(!result.stdout.contains("row 7 failed"), "\(result.stdout)")
        struct Row: Decodable { var row: Int; var status: String }
        struct Report: Decodable { var rows: [Row] }
        let report = try JSONDecoder().decode(Report.self, from: Data(contentsOf: files.directory.appendingPathComponent("report/report.json")))
        #expect(report.rows.count == 40 && report.rows.filter { $0.status == "not-sent" }.count == 35 - made)
        #expect(report.rows.filter { $0.status == "failed" }.map(\.row) == [2, 3, 4, 5, 6])
        await sandbox.stop()
    }

    @Test("429s from the server slow every worker down, and the import still completes")
    func throttled() async throws {
        // 2 a second: 8 workers starting together are over it however slowly the machine
        // answers (requests are counted when they arrive).
        let sandbox = try await TestSandbox.start { $0.faults.rateLimitPerSecond = 2 }
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 12)
        let result = try await CLIProcess.run(importArguments(manifest, sandbox, ["--jobs", "8", "--verbose"]))
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stderr.contains("→ 429"), "the server did answer 429")
        // The count itself is subject to the rate limit: asked again after a 429.
        var listed = try await curl(["\(sandbox.url)/api/products?items_per_page=100"])
        for _ in 0..<5 where listed.status == 429 {
            try await Task.sleep(for: .milliseconds(1100))
            listed = try await curl(["\(sandbox.url)/api/products?items_per_page=100"])
        }
        #expect(try listed.decode(ProductPage.self).totalCount == 12)
        await sandbox.stop()
    }
}
