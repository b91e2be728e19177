import CatalogSync
import CatalogExport
import Foundation
import Manifest
import OpenMarketAPI
import Sandbox
import ShopState
import Testing
import TestSupport

@Suite("openmarket export against the sandbox")
struct ExportTests {
    @Test("a 1,000-product catalog with photos: every product once, in id order; checksums verify; no leftovers")
    func thousand() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let ids = try await seed(sandbox, sandbox.demo, count: 1000)
        let out = try Scratch()
        defer { out.cleanup() }
        var options = ExportOptions(directory: out.directory)
        options.perPage = 500
        let summary = try await export(options, try client(sandbox))
        #expect(summary.exported == 1000 && summary.failed.isEmpty && summary.stopped == nil)
        #expect(summary.seconds > 0 && summary.listed == 1000, "the summary says how long the export took")
        // Nothing moved during the pass: page 1 asked again confirms it, no second pass.
        #expect(summary.listed == 1000 && summary.passes == 1 && summary.appeared == 0 && summary.totalCount == 1000)
        let rows = try readManifest(out.directory.appendingPathComponent("products.csv"))
        #expect(rows.map { Int($0.values[.id] ?? "") ?? -1 } == ids)
        #expect(try verifyChecksums(in: out.directory) == 1000)
        // The photos are the server's bytes.
        for row in rows.prefix(5) {
            let detail = try await curl(["\(sandbox.url)/api/products/\(row.values[.id]!)"]).decode(ProductDetail.self)
            let saved = try Data(contentsOf: out.directory.appendingPathComponent(row.images[0]))
            #expect(saved == (try await curl([detail.images![0].url]).body))
        }
        // Only the manifest, the checksums and the photos: no state file, no partial file.
        let files = filesUnder(out.directory)
        #expect(files.count == 1002)
        #expect(files.filter { !$0.hasPrefix("images/") }.sorted() == ["checksums.sha256", "products.csv"])
        // A second export into the same folder is refused rather than mixed in.
        await #expect(throws: ExportError.self) { try await export(options, try client(sandbox)) }
    }

    @Test("round trip: export vendor A, import into vendor B, export B: the same but ids, vendor and dates")
    func roundTrip() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let a = try client(sandbox, sandbox.demo)
        let png = Fixtures.png(width: 5, height: 4)
        let tricky: [(String, String, Double, String, Double, Int)] = [
            ("녹차 라떼 🍵", "첫물 찻잎,\n\"따옴표\"와 줄바꿈", 32000, "KRW", 2000, 8),
            ("=SUM(A1:A2) not a formula", "-starts with a minus", 12.99, "USD", 0.99, 0),
            ("'=already quoted", "@at the start", 0, "USD", 0, 3),
            ("+plus", "", 1_800_000, "KRW", 0, 1),
            ("Plain name", "tab\there", 19.5, "USD", 19.5, 0),
        ]
        var idsA: [Int] = []
        for (index, row) in tricky.enumerated() {
            let photos = try (0...index % 3).map { UploadImage(data: Data(try Fixtures.jpeg(width: 30 + $0, height: 20, seed: UInt64(index * 10 + $0))), filename: "a.jpg", mimeType: "image/jpeg") }
            idsA.append(try await blocking {
                try a.register(Product(name: row.0, description: row.1, price: Money(row.2), currency: row.3, discountedPrice: Money(row.4), stock: row.5),
                               images: photos + (index == 4 ? [UploadImage(data: Data(png), filename: "b.png", mimeType: "image/png")] : []))
            }.summary.id)
        }
        _ = try await seed(sandbox, sandbox.other, count: 3, prefix: "B's own")
        let files = try Scratch()
        defer { files.cleanup() }

        // Merchant keys that a spreadsheet would change if it could: leading zeros, more than
        // 15 digits, a number with a point, something that looks like a date.
        let keys = ["007", "00123", "12345678901234567890", "1.50", "2024-03-05"]
        for format in [ManifestFormat.csv, .jsonl, .json, .xlsx] {
            // B starts from its 3 products each time; the imported ones are deleted after each format.
            let exportA = files.directory.appendingPathComponent("a-\(format)")
            var options = ExportOptions(directory: exportA)
            options.format = format
            options.filter.vendor = .me
            options.keys = Dictionary(uniqueKeysWithValues: zip(idsA, keys))
            let first = try await export(options, a)
            #expect(first.exported == tricky.count && first.failed.isEmpty)

            var importOptions = SyncOptions(manifest: exportA.appendingPathComponent(options.manifestName),
                                              journal: files.directory.appendingPathComponent("journal-\(format)"))
            importOptions.mode = .create
            let links = StoreAddress.file(files.directory.appendingPathComponent("links-\(format).sqlite"))
            importOptions.links = links
            let b = try client(sandbox, sandbox.other)
            let settings = importOptions
            let report = try RunReport(directory: files.directory.appendingPathComponent("report-\(format)"), manifest: try #require(settings.manifest))
            let imported = try await blocking { try SyncRun(options: settings, client: b, report: report).run() }
            #expect(imported.counts["created"] == tricky.count, "\(imported.counts) \(report.failures.map { $0.error ?? "" })")

            let exportB = files.directory.appendingPathComponent("b-\(format)")
            options.directory = exportB
            options.filter.vendor = .id(sandbox.other.id)
            options.filter.search = nil
            options.keys = try LinkStore.open(links).keysByProductID()
            let second = try await export(options, b)
            #expect(second.exported == tricky.count + 3)

            let rowsA = try readManifest(exportA.appendingPathComponent(options.manifestName))
            let rowsB = try readManifest(exportB.appendingPathComponent(options.manifestName)).filter { !($0.values[.name] ?? "").hasPrefix("B's own") }
            #expect(rowsA.count == rowsB.count)
            let byName = Dictionary(uniqueKeysWithValues: rowsB.map { ($0.values[.name] ?? "", $0) })
            for rowA in rowsA {
                let name = try #require(rowA.values[.name])
                let rowB = try #require(byName[name], "\(name) missing from B's export")
                for column in [Column.key, .name, .description, .price, .currency, .discountedPrice, .stock] {
                    #expect(rowA.values[column] == rowB.values[column], "\(format) \(name): \(column)")
                }
                #expect(rowA.values[.id] != rowB.values[.id])
                let imagesA = try rowA.images.map { try Data(contentsOf: exportA.appendingPathComponent($0)) }
                let imagesB = try rowB.images.map { try Data(contentsOf: exportB.appendingPathComponent($0)) }
                #expect(imagesA == imagesB, "\(name): photos differ")
            }
            // The exported cells came back exactly (formula-looking ones included).
            // CSV cells are neutralised in the file and restored by import's reading.
            let isCSV = format == .csv
            let names = Set(rowsA.map { row -> String in
                let value = row.values[.name] ?? ""
                return isCSV ? CSVCell.restore(value) : value
            })
            let descriptions = Set(rowsA.map { row -> String in
                let value = row.values[.description] ?? ""
                return isCSV ? CSVCell.restore(value) : value
            })
            #expect(names == Set(tricky.map(\.0)))
            #expect(descriptions == Set(tricky.map(\.1)))
            #expect(Set(rowsA.compactMap { $0.values[.key] }) == Set(keys), "\(format): keys as written")
            if format == .csv {
                let text = try String(contentsOf: exportA.appendingPathComponent("products.csv"), encoding: .utf8)
                #expect(text.contains(",'=SUM(A1:A2) not a formula,") && text.contains(",'+plus,") && !text.contains(",=SUM"))
            }

            // Clean B for the next format.
            for row in rowsB { try await blocking { try b.delete(id: Int(row.values[.id]!)!) } }
        }
    }

    @Test("filters: --vendor me finds the vendor by asking; --vendor-id, --search and --since")
    func filters() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let mine = try await seed(sandbox, sandbox.demo, count: 7, prefix: "Mine")
        let theirs = try await seed(sandbox, sandbox.other, count: 5, prefix: "Theirs")
        let files = try Scratch()
        defer { files.cleanup() }
        func ids(_ configure: (inout ExportOptions) -> Void, as vendor: SandboxVendor? = nil) async throws -> [Int] {
            var options = ExportOptions(directory: files.directory.appendingPathComponent(UUID().uuidString))
            options.images = .none
            options.perPage = 3
            configure(&options)
            _ = try await export(options, try client(sandbox, vendor))
            return try readManifest(options.directory.appendingPathComponent("products.csv")).map { Int($0.values[.id]!)! }
        }
        #expect(try await ids({ $0.filter.vendor = .me }, as: sandbox.demo) == mine)
        #expect(try await ids({ $0.filter.vendor = .me }, as: sandbox.other) == theirs)
        #expect(try await ids({ $0.filter.vendor = .id(sandbox.other.id) }) == theirs)
        let searched = try await ids({ $0.filter.search = "theirs 3" })
        let expected = try await searchIDs(sandbox, "Theirs 3")
        #expect(searched.count == 1 && searched == expected)
        #expect(try await ids({ $0.filter.since = Date().addingTimeInterval(3600) }).isEmpty)
        #expect(try await ids({ $0.filter.since = Date().addingTimeInterval(-3600) }).count == 12)
        // With --images none, the manifest keeps the server's URLs, which import can download.
        let rows = try readManifest(files.directory.appendingPathComponent(try #require(
            try FileManager.default.contentsOfDirectory(atPath: files.directory.path).first)).appendingPathComponent("products.csv"))
        #expect(rows.allSatisfy { $0.images.allSatisfy { $0.hasPrefix(sandbox.url + "/images/") } })
        // --vendor me without credentials says what is missing.
        await #expect(throws: ExportError.self) { try await ids({ $0.filter.vendor = .me }) }
    }

    @Test("a page size the server refuses is lowered until it is accepted")
    func pageSizeNegotiation() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let ids = try await seed(sandbox, sandbox.demo, count: 12)
        let files = try Scratch()
        defer { files.cleanup() }
        var options = ExportOptions(directory: files.directory)
        options.images = .thumbnails
        options.perPage = 2000  // the sandbox takes at most 500
        let summary = try await export(options, try client(sandbox))
        #expect(summary.exported == 12)
        let rows = try readManifest(files.directory.appendingPathComponent("products.csv"))
        #expect(rows.map { Int($0.values[.id]!)! } == ids)
        // Thumbnails are what the server's thumbnail URLs give.
        let detail = try await curl(["\(sandbox.url)/api/products/\(ids[0])"]).decode(ProductDetail.self)
        #expect(try Data(contentsOf: files.directory.appendingPathComponent(rows[0].images[0]))
                == (try await curl([detail.images![0].thumbnailURL]).body))
    }
}

/// Ids of products whose name contains `text`, by the server's own search.
func searchIDs(_ sandbox: TestSandbox, _ text: String) async throws -> [Int] {
    let encoded = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    return try await curl(["\(sandbox.url)/api/products?items_per_page=500&search_value=\(encoded)"])
        .decode(ProductPage.self).pages.map(\.id).sorted()
}
