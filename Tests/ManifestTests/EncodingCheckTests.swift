import Foundation
@testable import Manifest
import Testing
import TestSupport

/// `validate` reads a file past a megabyte on its first megabyte's word that it is UTF-8, and
/// checks the rest as it reads it (`EncodingCheck`): what a file with a bad byte far in, a NUL
/// far in, or CP949 text after a megabyte of ASCII comes to is what reading it whole first
/// said (`TextEncoding.detect`), in CSV, JSON Lines and JSON.
// Serialized: each case reads 1.2 MB on the test process's threads, which the timing tests
// (a kill in the middle of a run) share.
@Suite("The encoding checked as the rows are read", .serialized)
struct EncodingCheckTests {
    /// Rows of Korean UTF-8 text, `count` of them, in each format.
    static func rows(_ count: Int, format: String, from first: Int = 0) -> String {
        (first..<(first + count)).map { index in
            switch format {
            case "csv": "SKU-\(index),\"녹차 라떼 \(index), 선물\",Row \(index),\(1000 + index),KRW,\(index % 9),a.jpg\n"
            case "jsonl": "{\"key\": \"SKU-\(index)\", \"name\": \"녹차 라떼 \(index)\", \"price\": \"\(1000 + index)\", \"currency\": \"KRW\", \"stock\": \(index % 9), \"images\": \"a.jpg\"}\n"
            default: "{\"key\": \"SKU-\(index)\", \"name\": \"녹차 라떼 \(index)\", \"price\": \"\(1000 + index)\", \"currency\": \"KRW\", \"stock\": \(index % 9), \"images\": \"a.jpg\"},\n"
            }
        }.joined()
    }

    static let header = "key,name,description,price,currency,stock,images\n"

    /// A file of about 1.25 MB: `middle` bytes put in after about 1.2 MB of rows.
    static func file(format: String, middle: [UInt8]) -> (bytes: [UInt8], offset: Int) {
        var bytes = Array((format == "csv" ? header : format == "json" ? "[\n" : "").utf8)
        var index = 0
        while bytes.count < 1_200_000 {
            bytes += Array(rows(100, format: format, from: index).utf8)
            index += 100
        }
        // Inside a row's name, so that each format reads it as text.
        let marker = Array(rows(1, format: format, from: index).utf8)
        let at = marker.firstIndex(of: "녹".utf8.first!)!
        let offset = bytes.count + at
        bytes += Array(marker[..<at]) + middle + Array(marker[at...])
        index += 1
        bytes += Array(rows(300, format: format, from: index).utf8)
        if format == "json" {
            bytes.removeLast(2)
            bytes += Array("\n]\n".utf8)
        }
        return (bytes, offset)
    }

    /// On a thread of its own: the check waits for its workers, and a test process's shared
    /// threads held so starved the tests that wait on servers and children.
    static func check(_ url: URL, encoding: TextEncoding? = nil) async throws -> ValidationSummary {
        try await blocking {
            var options = ValidationOptions()
            options.checkImageFiles = false
            return try ManifestCheck.run(url, encoding: encoding, options: options, onFileIssue: { _ in }, onRow: { _, _, _ in })
        }
    }

    @Test("a byte that is not UTF-8 far into the file: the error reading it whole gives, at its offset", arguments: ["csv", "jsonl", "json"])
    func badByte(_ format: String) async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let (bytes, offset) = Self.file(format: format, middle: [0xFF])
        let url = URL(fileURLWithPath: try files.write(bytes, named: "products.\(format)"))
        let sniffed = try #require(try TextEncoding.sniff(url, file: url.lastPathComponent))
        #expect(sniffed.encoding == .utf8 && sniffed.speculative)
        var whole: ManifestError?
        do { _ = try TextEncoding.detect(url, file: url.lastPathComponent) } catch let error as ManifestError { whole = error }
        let expected = try #require(whole)
        #expect(expected.message.contains("offset \(offset)"), "\(expected)")
        do {
            let summary = try await Self.check(url)
            Issue.record("\(format): read \(summary.rows) rows without an error")
        } catch let error as ManifestError {
            #expect(error == expected, "\(format): \(error)")
        }
    }

    @Test("a NUL byte far into the file: refused as a binary file, naming it", arguments: ["csv", "jsonl"])
    func nulByte(_ format: String) async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let (bytes, offset) = Self.file(format: format, middle: [0])
        let url = URL(fileURLWithPath: try files.write(bytes, named: "products.\(format)"))
        do {
            _ = try await Self.check(url)
            Issue.record("\(format): read without an error")
        } catch let error as ManifestError {
            #expect(error.message.contains("binary") && error.message.contains("offset \(offset)"), "\(error)")
        }
    }

    @Test("a file UTF-8 to its end is read whole, every row as with the encoding given", arguments: ["csv", "jsonl", "json"])
    func utf8ToTheEnd(_ format: String) async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let (bytes, _) = Self.file(format: format, middle: Array("말차".utf8))
        let url = URL(fileURLWithPath: try files.write(bytes, named: "products.\(format)"))
        let speculated = try await Self.check(url)
        let given = try await Self.check(url, encoding: .utf8)
        #expect(speculated == given && speculated.rows > 10_000 && speculated.withErrors == 0, "\(speculated) / \(given)")
    }

    @Test("CP949 text after a megabyte of ASCII rows is read as CP949, as before (the head tells nothing)")
    func cp949AfterASCII() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        var text = Self.header
        var index = 0
        while text.utf8.count < 1_100_000 {
            text += "SKU-\(index),Green tea \(index),Row,\(1000 + index),KRW,3,a.jpg\n"
            index += 1
        }
        text += "SKU-KO,녹차 라떼,설명,1000,KRW,3,a.jpg\n"
        let utf8 = URL(fileURLWithPath: try files.write(Array(text.utf8), named: "utf8.csv"))
        let url = files.directory.appendingPathComponent("products.csv")
        try #require(try runTool("/usr/bin/iconv", ["-f", "UTF-8", "-t", "CP949", utf8.path, "-o", url.path]) == 0)
        #expect(try TextEncoding.sniff(url, file: "products.csv") == nil)
        var names: [String] = []
        var options = ValidationOptions()
        options.checkImageFiles = false
        _ = try ManifestCheck.run(url, options: options, onFileIssue: { _ in }, onRow: { raw, _, _ in
            if raw.values[.key] == "SKU-KO" { names.append(raw.values[.name] ?? "") }
        })
        #expect(names == ["녹차 라떼"])
    }
}
