import Foundation
import ImagePrep
import Testing
import TestSupport

@Suite("openmarket images shrink")
struct ImagesCommandTests {
    @Test("one line per file, results written under --out, PNG over the limit becomes .jpg, bad files fail alone")
    func shrink() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let big = try files.write(Fixtures.jpeg(width: 1600, height: 1200, quality: 95), named: "big.jpg")
        let small = try files.write(Fixtures.jpeg(width: 64, height: 64), named: "small.jpg")
        let png = try files.write(Fixtures.png(width: 200, height: 150), named: "flat.png")
        let junk = try files.write(Array("not a photo".utf8), named: "junk.jpg")
        let out = files.directory.appendingPathComponent("out")
        let result = try await CLIProcess.run(["images", "shrink", big, small, png, junk, "--out", out.path,
                                               "--max-bytes", "40000"])
        #expect(result.status == 1, "junk.jpg fails, so the exit code says so")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("big.jpg: ") && $0.contains("resized") || $0.hasPrefix("big.jpg: ") && $0.contains("recompressed") })
        #expect(lines.contains { $0.hasPrefix("small.jpg: ") && $0.contains("kept") })
        #expect(lines.contains { $0.hasPrefix("flat.png: ") && $0.contains("(as flat.jpg)") })
        #expect(lines.contains { $0.hasPrefix("junk.jpg: failed: not a JPEG or PNG") })
        #expect(lines.last?.hasPrefix("3 of 4 files") == true)
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(written == ["big.jpg", "flat.jpg", "small.jpg"])
        let shrunk = try Data(contentsOf: out.appendingPathComponent("big.jpg"))
        #expect(shrunk.count <= 40_000)
        #expect(try Data(contentsOf: out.appendingPathComponent("small.jpg")) == Data(contentsOf: URL(fileURLWithPath: small)))
    }

    @Test("two inputs with the same name are refused before anything is written")
    func collision() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let a = try files.write(Fixtures.jpeg(width: 32, height: 32), named: "a.jpg")
        try FileManager.default.createDirectory(at: files.directory.appendingPathComponent("x"), withIntermediateDirectories: true)
        let b = try files.write(Fixtures.jpeg(width: 32, height: 32), named: "x/a.jpg")
        let result = try await CLIProcess.run(["images", "shrink", a, b, "--out", files.directory.appendingPathComponent("out").path])
        #expect(result.status == 64)
        #expect(result.stderr.contains("would both be written"))
    }
}
