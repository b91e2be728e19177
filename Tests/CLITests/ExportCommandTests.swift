import Foundation
import OpenMarketAPI
import Sandbox
import Testing
import TestSupport

@Suite("openmarket export and migrate", .serialized)
struct ExportCommandTests {
    @Test("kill -9 during an export, then --resume: a complete backup whose checksums verify")
    func killAndResume() async throws {
        // A gate shuts the sandbox after 100 reads (a list page, then two photos and a product
        // per product or so): the export is held in the middle for as long as the test takes to
        // see it, however loaded the machine, and killed there.
        let gate = RequestGate(kind: .reads, holdAtMost: .seconds(600))
        let sandbox = try await TestSandbox.start { $0.faults.gate = gate }
        defer { gate.open(); Task { await sandbox.stop() } }
        let ids = try await seed(sandbox, sandbox.demo, count: 150, images: 2)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("backup")
        let state = out.appendingPathComponent(".openmarket-export.jsonl")
        let arguments = ["export", "--server", sandbox.url, "--out", out.path, "--jobs", "2"]

        gate.shut(after: 100)
        // Held longer than a loaded machine may delay the test's polls, and no read given up meanwhile.
        let first = try CLIProcess(arguments, environment: ["OPENMARKET_ANSWER_TIMEOUT": "900"])
        // Wait until the export is held at the gate with some products done, then kill without warning.
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOf: state, encoding: .utf8)) ?? ""
            if gate.held > 0, text.components(separatedBy: "\"t\":\"product\"").count > 20 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        try await first.kill()
        gate.open()
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("products.csv").path),
                "an interrupted export must not look finished")
        let doneBefore = try String(contentsOf: state, encoding: .utf8).components(separatedBy: "\"t\":\"product\"").count - 1
        #expect(doneBefore >= 20 && doneBefore < 150, "killed after \(doneBefore) products")

        // A plain re-run refuses to mix; --resume continues.
        let plain = try await CLIProcess.run(arguments)
        #expect(plain.status == 2 && plain.stderr.contains("--resume"), "\(plain.stderr)")
        let resumed = try await CLIProcess.run(arguments + ["--resume"])
        #expect(resumed.status == 0, "\(resumed.stdout)\(resumed.stderr)")
        #expect(resumed.stdout.contains("Exported 150 products"), "\(resumed.stdout)")
        // Photos of the products done before the kill are not downloaded again.
        func count(_ pattern: String) -> Int {
            guard let range = resumed.stdout.range(of: "[0-9]+ " + pattern, options: .regularExpression) else { return 0 }
            return Int(resumed.stdout[range].split(separator: " ")[0]) ?? 0
        }
        #expect(count("photos downloaded") + count("kept from") == 300 - 2 * doneBefore, "\(resumed.stdout)")

        let csv = try String(contentsOf: out.appendingPathComponent("products.csv"), encoding: .utf8)
        let exported = csv.split(separator: "\r\n").dropFirst().map { Int($0.split(separator: ",")[0])! }
        #expect(exported == ids, "every product once, in id order")
        #expect(!FileManager.default.fileExists(atPath: state.path))
        // sha256sum -c, as a person would check the backup.
        #expect(try await blocking { try runTool("/usr/bin/sha256sum", ["-c", "--quiet", "checksums.sha256"], directory: out) } == 0)
        let lines = try String(contentsOf: out.appendingPathComponent("checksums.sha256"), encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 300)
    }

    @Test("migrate between two vendors: everything copied once; a second run creates nothing; --dry-run writes nothing")
    func migrate() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let source = try await seed(sandbox, sandbox.demo, count: 25, prefix: "Moving", images: 2)
        _ = try await seed(sandbox, sandbox.other, count: 2, prefix: "Already there")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = ["migrate", "--from", sandbox.url, "--from-identifier", sandbox.demo.identifier, "--from-secret", sandbox.demo.secret,
                    "--to", sandbox.url, "--to-identifier", sandbox.other.identifier, "--to-secret", sandbox.other.secret,
                    "--journal", directory.appendingPathComponent("journal").path, "--quiet"]

        let dry = try await CLIProcess.run(base + ["--dry-run", "--report", directory.appendingPathComponent("dry").path])
        #expect(dry.status == 0 && dry.stdout.contains("25 would-create"), "\(dry.stdout)\(dry.stderr)")
        #expect(try await targetProducts(sandbox).count == 2)

        let first = try await CLIProcess.run(base + ["--report", directory.appendingPathComponent("r1").path])
        #expect(first.status == 0 && first.stdout.contains("25 rows: 25 created"), "\(first.stdout)\(first.stderr)")
        #expect(!first.stdout.contains(sandbox.demo.secret) && !first.stderr.contains(sandbox.other.secret))
        let moved = try await targetProducts(sandbox).filter { $0.name.hasPrefix("Moving") }
        #expect(moved.count == 25 && Set(moved.map(\.name)).count == 25)
        // Field by field and photo by photo against the source.
        for id in source.prefix(5) {
            let original = try await curl(["\(sandbox.url)/api/products/\(id)"]).decode(ProductDetail.self)
            let copy = try #require(moved.first { $0.name == original.summary.name })
            let detail = try await curl(["\(sandbox.url)/api/products/\(copy.id)"]).decode(ProductDetail.self)
            #expect(detail.summary.price == original.summary.price && detail.summary.stock == original.summary.stock
                    && detail.summary.description == original.summary.description && detail.summary.vendorId == sandbox.other.id)
            for (a, b) in zip(original.images ?? [], detail.images ?? []) {
                #expect(try await curl([a.url]).body == (try await curl([b.url]).body))
            }
        }

        let second = try await CLIProcess.run(base + ["--report", directory.appendingPathComponent("r2").path])
        #expect(second.status == 0 && second.stdout.contains("25 unchanged"), "\(second.stdout)\(second.stderr)")
        #expect(try await targetProducts(sandbox).count == 27)

        // Missing target credentials: a usage error that says what to give.
        let missing = try await CLIProcess.run(["migrate", "--from", sandbox.url, "--to", sandbox.url])
        #expect(missing.status == 2 && missing.stderr.contains("--to-identifier"), "\(missing.stderr)")
    }

    func targetProducts(_ sandbox: TestSandbox) async throws -> [ProductSummary] {
        try await curl(["\(sandbox.url)/api/products?items_per_page=500"]).decode(ProductPage.self).pages
            .filter { $0.vendorId == sandbox.other.id }
    }
}
