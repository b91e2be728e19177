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
        #expect(lines.contains { $0.hasPrefix("junk.jpg: failed: not a JPEG, PNG, HEIC or WebP photo") })
        #expect(lines.last?.hasPrefix("3 of 4 files") == true)
        // The progress lines (not a terminal: one per 10 %) count the failure too.
        #expect(result.stderr.contains("4/4 files (100%), 1 failed"), "\(result.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(written == ["big.jpg", "flat.jpg", "small.jpg"])
        let shrunk = try Data(contentsOf: out.appendingPathComponent("big.jpg"))
        #expect(shrunk.count <= 40_000)
        #expect(try Data(contentsOf: out.appendingPathComponent("small.jpg")) == Data(contentsOf: URL(fileURLWithPath: small)))
    }

    @Test("HEIC and WebP photos (a Mac's decomposed Korean name among them) come out as JPEGs named in NFC")
    func converted() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let source = try files.write(Fixtures.jpeg(width: 900, height: 600, quality: 95), named: "source.jpg")
        let heic = files.directory.appendingPathComponent("녹차.HEIC".decomposedStringWithCanonicalMapping)
        let webp = files.directory.appendingPathComponent("web.webp")
        try ImageMagick.convert([source, "-quality", "90", heic.path])
        try ImageMagick.convert([source, "-quality", "90", webp.path])
        let out = files.directory.appendingPathComponent("out")
        let result = try await CLIProcess.run(["images", "shrink", heic.path, webp.path, "--out", out.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(Set(written.map { Array($0.utf8) }) == [Array("녹차.jpg".utf8), Array("web.jpg".utf8)], "\(written)")
        for name in written {
            let data = try Data(contentsOf: out.appendingPathComponent(name))
            #expect(data.starts(with: [0xFF, 0xD8, 0xFF]) && data.count <= 307_200)
        }
    }

    @Test("per-product folders whose files share names (samples/images/*/*) are written in their folders; one file given twice is refused")
    func sameNames() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let images = ImportCommandTests.samples.appendingPathComponent("images")
        let inputs = try ["TEA-001", "TEA-002"].flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: images.appendingPathComponent(folder).path).sorted()
                .map { images.appendingPathComponent(folder).appendingPathComponent($0).path }
        }
        let out = files.directory.appendingPathComponent("out")
        let result = try await CLIProcess.run(["images", "shrink"] + inputs + ["--out", out.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        for name in ["TEA-001/1.jpg", "TEA-002/1.jpg", "TEA-001/3.jpg"] {
            let data = try Data(contentsOf: out.appendingPathComponent(name))
            #expect(data.starts(with: [0xFF, 0xD8, 0xFF]) && data.count <= 307_200, "\(name)")
        }
        let twice = try await CLIProcess.run(["images", "shrink", inputs[0], inputs[0], "--out", out.path])
        #expect(twice.status == 64 && twice.stderr.contains("is given twice"), "\(twice.stderr)")
    }
}
