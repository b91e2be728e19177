import Foundation
import Testing
import TestSupport

/// A merchant's day in a language that is only a file: under a pseudo-language's catalogue
/// (every message marked `[!! … !!]`), every line the commands print is marked but for data
/// (keys, names, paths, the server's address, numbers): a line that is not passed through the
/// catalogue stands out.
@Suite("A merchant's day in a pseudo-language: no text outside the catalogue", .serialized)
struct PseudoLanguageDayTests {
    @Test("validate, import, import again, runs, doctor, export, undo, images shrink, backup, snapshots, diff, history, restore, forget, check, template, list: every line marked")
    func day() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let pseudo = try PseudoLanguage.install(in: files.directory)
        _ = try files.write(Fixtures.jpeg(width: 900, height: 700), named: "p.jpg")
        var csv = "key,name,price,stock,images\n"
        for i in 1...4 { csv += "K\(i),녹차 라떼 \(i),\(12000 + i),\(i),p.jpg\n" }
        let sheet = URL(fileURLWithPath: try files.write(Array(csv.utf8), named: "shop.csv"))
        let broken = URL(fileURLWithPath: try files.write(Array((csv + "K5,녹,abc,1,없는.jpg\n").utf8), named: "broken.csv"))
        let shop = sandbox.demoAccount
        let report = files.directory.appendingPathComponent("report")
        let repo = files.directory.appendingPathComponent("backups")
        let data = [files.directory.path, sandbox.url, sandbox.demo.identifier, sandbox.demo.secret, "shop.csv", "broken.csv", "p.jpg", "없는.jpg", "'abc'"]
        let steps: [[String]] = [
            ["validate", sheet.path],
            ["validate", broken.path],
            ["import", sheet.path, "--jobs", "0"],
            ["import", sheet.path, "--report", report.path] + shop,
            ["import", sheet.path] + shop,
            ["import", broken.path, "--dry-run"] + shop,
            ["runs"] + shop,
            ["doctor", "--server", sandbox.url],
            ["list"] + shop,
            ["show", "K1"] + shop,
            ["health", "--server", sandbox.url],
            ["sandbox", "--add-vendor", "녹차가게", "--data", files.directory.appendingPathComponent("sandbox").path],
            ["export", "--out", files.directory.appendingPathComponent("export").path, "--images", "none"] + shop,
            ["backup", "--repo", repo.path] + shop,
            ["snapshots", "--repo", repo.path],
            ["undo", report.path] + shop,
            ["backup", "--repo", repo.path] + shop,
            ["diff", "--repo", repo.path, "2000", "latest"],
            ["history", "--repo", repo.path, "K1"],
            ["restore", "--repo", repo.path, "--snapshot", "latest", "--dry-run"] + shop,
            ["forget", "--repo", repo.path, "--keep-last", "1", "--dry-run"],
            ["check", "--repo", repo.path],
            ["images", "shrink", files.directory.appendingPathComponent("p.jpg").path, "--out", files.directory.appendingPathComponent("small").path],
            ["template", "--out", files.directory.appendingPathComponent("template.csv").path],
            ["import", sheet.path, "--server", sandbox.url, "--identifier", sandbox.demo.identifier, "--secret", "wrong-secret"],
        ]
        var leaks: [String] = []
        for step in steps {
            let run = try await CLIProcess.run(step, environment: pseudo)
            let said = PseudoLanguage.unmarked(run.stdout + "\n" + run.stderr, data: data + ["wrong-secret", "녹차가게", "sandbox", "demo-shop"])
            leaks += said.map { "\(step.prefix(2).joined(separator: " ")): \($0)" }
        }
        #expect(leaks.isEmpty, "\(leaks.count) lines outside the catalogue:\n\(leaks.joined(separator: "\n"))")
        await sandbox.stop()
    }
}
