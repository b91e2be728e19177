@testable import CatalogSync
import Foundation
import Support
import Testing

@Suite("The import report on a full disk")
struct ReportTests {
    @Test("buffered CSV output: few writes, and a full disk is an error with the system's reason, not a crash")
    func bufferedOutput() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("om-buffered-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("a.csv")
        let good = try BufferedFileOutput(url: file)
        var byte: UInt8 = 0x41
        for _ in 0..<200_000 { #expect(good.write(&byte, maxLength: 1) == 1) }
        try good.finish()
        #expect(try Data(contentsOf: file).count == 200_000)

        let full = try BufferedFileOutput(url: URL(fileURLWithPath: "/dev/full"))
        var accepted = 0
        for _ in 0..<200_000 where full.write(&byte, maxLength: 1) == 1 { accepted += 1 }
        #expect(accepted < 70_000, "a failed flush stops the writes")
        #expect(throws: (any Error).self) { try full.finish() }
        #expect(full.failure.map(fileErrorReason) == "No space left on device")
    }

    @Test("report.csv on a full disk: the rows go on, finish names the first missing row and the reason")
    func fullDisk() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("om-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("report.csv").path, withDestinationPath: "/dev/full")
        let report = try RunReport(directory: folder, source: "products.csv")
        let long = String(repeating: "a failure long enough to fill the buffer soon ", count: 4)
        for row in 2...3001 {
            report.add(RowOutcome(row: row, key: "k\(row)", name: "Product \(row)", status: .failed, error: long))
        }
        #expect(report.writeProblem?.hasPrefix("row ") == true, "\(report.writeProblem ?? "no problem")")
        #expect(report.writeProblem?.hasSuffix("missing from report.csv: No space left on device") == true)
        let summary = SyncSummary(server: "http://127.0.0.1:1", mode: .sync, dryRun: false, journal: "journal")
        #expect(throws: ReportWriteError.self) { try report.finish(summary) }
        do {
            try report.finish(summary)
        } catch {
            #expect(error.description.contains(folder.path) && error.description.contains("No space left on device"))
        }
        #expect(report.failures.count > 0, "the rows were still counted for the summary")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(".rows.partial").path))
    }
}

@Suite("Reports in the sheet's order")
struct ReportOrderTests {
    @Test("rows that fail at once and rows that wait for the server are reported in the sheet's order, in report.csv and report.json")
    func sheetOrder() async throws {
        let shop = try await Shop.open()
        var csv = "key,name,price,currency,discounted_price,stock,images\n"
        for i in 1...30 { csv += i % 3 == 0 ? "K\(i),Item \(i),not a price,KRW,0,1,p.jpg\n" : "K\(i),Item \(i),\(1000 + i),KRW,0,1,p.jpg\n" }
        let sheet = try shop.sheet("order.csv", csv)
        let result = try await shop.run(sheet)
        #expect(result.summary.count(.created) == 20 && result.summary.failed == 10)
        #expect(result.rows.map(\.row) == Array(2...31), "\(result.rows.map(\.row))")
        let text = try String(contentsOf: result.folder.appendingPathComponent("report.csv"), encoding: .utf8)
        let rows = text.split(whereSeparator: \.isNewline).dropFirst().compactMap { Int($0.prefix { $0 != "," }) }
        #expect(rows == Array(2...31), "\(rows)")
        await shop.close()
    }
}
