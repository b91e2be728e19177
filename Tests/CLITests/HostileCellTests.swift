import Foundation
import OpenMarketAPI
import Sandbox
import Testing
import TestSupport

/// A sheet with one cell of megabytes (a pasted file, a broken export): that row fails naming
/// the cell, the others go on, and neither the terminal nor the report carries the cell.
@Suite("A cell of megabytes", .serialized)
struct HostileCellTests {
    @Test("CSV and JSON Lines: a 3 MB description fails its row [cell-too-long] naming the column; validate and import agree; the other rows are made; output and report stay small")
    func megabyteCell() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        _ = try files.write(try Fixtures.jpeg(width: 40, height: 30, seed: 7), named: "p.jpg")
        let huge = String(repeating: "설명이 아주 긴 칸 ", count: 3 << 20 / 24)
        #expect(huge.utf8.count > 3_000_000)
        let csv = files.directory.appendingPathComponent("huge.csv")
        try ("key,name,price,stock,images,description\r\n" + "H1,Big cell tea,1000,1,p.jpg,short\r\n"
             + "H2,Big cell coffee,1200,1,p.jpg,\"\(huge)\"\r\n" + "H3,Big cell cocoa,1500,1,p.jpg,fine\r\n")
            .write(to: csv, atomically: true, encoding: .utf8)
        let lines = files.directory.appendingPathComponent("huge.jsonl")
        let objects: [[String: Any]] = [
            ["key": "J1", "name": "Big line tea", "price": 1000, "stock": 1, "images": "p.jpg", "description": "short"],
            ["key": "J2", "name": "Big line coffee", "price": 1200, "stock": 1, "images": "p.jpg", "description": huge],
        ]
        try objects.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }.joined(separator: "\n")
            .write(to: lines, atomically: true, encoding: .utf8)

        for (sheet, rows, made) in [(csv, "3 rows, 2 valid, 1 with errors", "3 rows: 2 created, 1 failed"), (lines, "2 rows, 1 valid, 1 with errors", "2 rows: 1 created, 1 failed")] {
            let checked = try await CLIProcess.run(["validate", sheet.path])
            #expect(checked.status == 1 && checked.stdout.contains(rows) && checked.stdout.contains("[cell-too-long]")
                        && checked.stdout.contains("description") && checked.stdout.contains("openmarket reads cells up to 1 MB"), "\(checked.stdout.prefix(3000))")
            #expect(checked.stdout.utf8.count < 20_000, "validate printed \(checked.stdout.utf8.count) bytes")
            let report = files.directory.appendingPathComponent("report-" + sheet.pathExtension)
            let run = try await CLIProcess.run(["import", sheet.path, "--server", sandbox.url, "--identifier", sandbox.demo.identifier,
                                                "--secret", sandbox.demo.secret, "--no-cache", "--report", report.path])
            #expect(run.status == 1 && run.stdout.contains(made) && run.stdout.contains("cell-too-long"), "\(run.stdout.prefix(3000))\(run.stderr.prefix(2000))")
            #expect(run.stdout.utf8.count + run.stderr.utf8.count < 20_000, "import printed \(run.stdout.utf8.count) bytes")
            for name in ["report.csv", "report.json", "report.html", "report.xlsx"] {
                let size = try FileManager.default.attributesOfItem(atPath: report.appendingPathComponent(name).path)[.size] as? Int ?? 0
                #expect(size > 0 && size < 200_000, "\(name): \(size) bytes")
            }
        }
        let names = Set(try await allProducts(sandbox).map(\.name))
        #expect(names == ["Big cell tea", "Big cell cocoa", "Big line tea"], "\(names)")
    }
}
