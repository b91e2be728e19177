import CSV
import Foundation
@testable import Manifest
import Testing
import TestSupport

@Suite("CSV read in pieces of whole records")
struct CSVChunksTests {
    /// Rows as CSV.swift reads the whole text at once.
    func whole(_ text: String, delimiter: Character) throws -> [[String]] {
        let reader = try CSVReader(string: text, hasHeaderRow: false, trimFields: false, delimiter: delimiter.unicodeScalars.first!)
        var rows: [[String]] = []
        while let row = reader.next() { rows.append(row) }
        return rows
    }

    /// Rows read piece by piece, with pieces of at most about `size` bytes.
    func pieces(_ text: String, delimiter: Character, size: Int) throws -> [[String]] {
        let scratch = try Scratch()
        defer { scratch.cleanup() }
        let url = URL(fileURLWithPath: try scratch.write(Array(text.utf8), named: "f.csv"))
        let chunks = try CSVChunks(url: url, delimiter: delimiter, chunkBytes: size)
        var rows: [[String]] = []
        while let piece = chunks.next() {
            let reader = try CSVReader(string: piece.text, hasHeaderRow: false, trimFields: false, delimiter: delimiter.unicodeScalars.first!)
            var count = 0
            while let row = reader.next() { rows.append(row); count += 1 }
            // The count given with the piece is the library's, so row numbers can be known before parsing.
            #expect(count == piece.records, "piece of \(piece.text.utf8.count) bytes")
        }
        return rows
    }

    @Test("pieces split exactly where the library splits records, whatever the piece size")
    func sameRows() throws {
        let samples = [
            "a,b,c\r\n1,\"two, with comma\",3\r\n4,\"line\nbreak\",6\r\n",
            "a;b\n\"quote \"\"inside\"\"\";x\n12\" pan;y\n\"closed\"then;z\n;\n\n\"\r\n\";end",
            "name\rlone CR\r\"cr inside \r quoted\"\r\"x\"\"\r\nlast without newline",
            "h\n\"unterminated quote to the end\nand more\n",
            "k,v\n녹차 라떼,\"😀 emoji, and 한글\"\r\n\"\",\"\"\"\"\n",
        ]
        var generator = SplitMix(seed: 11)
        var random = ""
        let alphabet: [String] = ["a", "b", ",", ";", "\"", "\"\"", "\n", "\r", "\r\n", "한", " "]
        for _ in 0..<3000 { random += alphabet[Int(generator.next() % UInt64(alphabet.count))] }
        for text in samples + [random] {
            for delimiter: Character in [",", ";"] {
                let expected = try whole(text, delimiter: delimiter)
                for size in [1, 2, 3, 7, 64, 1 << 20] {
                    #expect(try pieces(text, delimiter: delimiter, size: size) == expected, "size \(size): \(text.prefix(40).debugDescription)")
                }
            }
        }
    }
}
