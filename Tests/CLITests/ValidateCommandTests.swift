import Foundation
import Testing
import TestSupport

@Suite("openmarket validate")
struct ValidateCommandTests {
    static var samples: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("samples")
    }

    @Test("the samples are valid: exit 0 and a summary")
    func samples() async throws {
        let result = try await CLIProcess.run(["validate", Self.samples.appendingPathComponent("products.csv").path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("20 rows, 20 valid, 0 with errors"))
    }

    @Test("broken.csv: every mistake reported by row, exit 1; --format json for scripts")
    func broken() async throws {
        let path = Self.samples.appendingPathComponent("broken.csv").path
        let text = try await CLIProcess.run(["validate", path])
        #expect(text.status == 1)
        #expect(text.stdout.contains("row 2:\n  error name 'ab': must be 3 to 100 characters, has 2 [name-length]"))
        // The row without photos is not counted valid: import would fail it as a new product.
        #expect(text.stdout.contains("14 rows, 1 valid, 12 with errors, 2 with warnings, 1 only as updates of products already in the shop (as new products they fail: images-count 1)"), "\(text.stdout)")
        // A row without photos could still update a product: what a new one needs is a warning.
        #expect(text.stdout.contains("row 12:\n  warning images: a new product needs 1 to 5 photos"))

        let json = try await CLIProcess.run(["validate", path, "--format", "json"])
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let summary = try #require(object["summary"] as? [String: Any])
        #expect(summary["rows"] as? Int == 14 && summary["with_errors"] as? Int == 12)
        let issues = try #require(object["issues"] as? [[String: Any]])
        let first = try #require(issues.first)
        #expect(first["row"] as? Int == 2 && first["column"] as? String == "name" && first["value"] as? String == "ab")
        #expect(first["severity"] as? String == "error" && first["rule"] as? String == "name-length")
        let rules = Set(issues.compactMap { $0["rule"] as? String })
        for rule in ["price-format", "price-negative", "discount-over-price", "currency-unknown", "price-fraction", "stock-integer",
                     "image-missing", "image-format", "images-count", "image-path-escape", "key-duplicate", "name-duplicate"] {
            #expect(rules.contains(rule), "\(rule) missing")
        }
    }

    @Test("an unreadable file is exit 2 with the reason")
    func unreadable() async throws {
        let missing = try await CLIProcess.run(["validate", "/nonexistent/products.csv"])
        #expect(missing.status == 2 && missing.stderr.contains("no such file"))
        let files = try Scratch()
        defer { files.cleanup() }
        let binary = try files.write(Fixtures.png(), named: "products.csv")
        let result = try await CLIProcess.run(["validate", binary])
        #expect(result.status == 2 && result.stderr.contains("binary"))
    }
}
