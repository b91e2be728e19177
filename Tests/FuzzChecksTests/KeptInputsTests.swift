import Foundation
import FuzzChecks
import XCTest

/// Every input a fuzz target ever crashed, leaked or hung on (kept by `scripts/fuzz` in
/// Tests/Fixtures/fuzz/TARGET/), and every seed of Fuzz/targets, through the target's checks:
/// a fix stays fixed without the fuzzer.
final class KeptInputsTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Fuzz/targets: name, dictionary, seed globs.
    static func targetsFile() throws -> [(name: String, seeds: [String])] {
        let text = try String(contentsOf: root.appendingPathComponent("Fuzz/targets"), encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            return fields.isEmpty ? nil : (fields[0], Array(fields.dropFirst(2)))
        }
    }

    /// The files a glob of Fuzz/targets names (a folder and `*`, or one file).
    static func files(_ pattern: String) -> [URL] {
        let url = root.appendingPathComponent(pattern)
        let folder = url.deletingLastPathComponent()
        let name = url.lastPathComponent
        guard name.contains("*") else { return FileManager.default.fileExists(atPath: url.path) ? [url] : [] }
        let suffix = name.drop { $0 != "*" }.dropFirst()
        let prefix = name.prefix { $0 != "*" }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) && !$0.hasPrefix(".") }.sorted()
            .map { folder.appendingPathComponent($0) }
    }

    func testTheTargetsFileAndTheChecksNameTheSameTargets() throws {
        XCTAssertEqual(try Self.targetsFile().map(\.name), FuzzTarget.all.map(\.name))
    }

    func testEverySeedAndEveryKeptInputPassesItsTargetsChecks() throws {
        var checked = 0
        for (name, seeds) in try Self.targetsFile() {
            let target = try XCTUnwrap(FuzzTarget.named(name))
            let inputs = seeds.flatMap(Self.files) + Self.files("Tests/Fixtures/fuzz/\(name)/*")
            XCTAssertFalse(inputs.isEmpty, "\(name) has no seed input")
            for input in inputs {
                let started = ContinuousClock.now
                do {
                    try target.check(try Data(contentsOf: input))
                } catch {
                    XCTFail("\(name): \(input.path.dropFirst(Self.root.path.count + 1)): \(error)")
                }
                let took = ContinuousClock.now - started
                XCTAssertLessThan(took, .seconds(5), "\(name): \(input.lastPathComponent) took \(took)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 30)
    }
}
