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

    /// Rows read piece by piece by `CSVRecords`, with pieces of at most about `size` bytes;
    /// each piece's record count checked against the library's parse of the same piece.
    func pieces(_ text: String, delimiter: Character, size: Int) throws -> [[String]] {
        let scratch = try Scratch()
        defer { scratch.cleanup() }
        let url = URL(fileURLWithPath: try scratch.write(Array(text.utf8), named: "f.csv"))
        let chunks = try CSVChunks(url: url, delimiter: delimiter.asciiValue!, chunkBytes: size)
        var rows: [[String]] = []
        while let piece = chunks.next() {
            let records = CSVRecords(piece.bytes, delimiter: delimiter.asciiValue!)
            var count = 0
            while let row = records.next() { rows.append(row); count += 1 }
            // The count given with the piece is the library's, so row numbers can be known before parsing.
            let library = try whole(String(decoding: piece.bytes, as: UTF8.self), delimiter: delimiter)
            #expect(count == piece.records && library.count == count, "piece of \(piece.bytes.count) bytes")
        }
        return rows
    }

    /// Text where CSV.swift loses nothing: no quote inside a quoted cell but `""` or a closing one.
    static let wellFormed: [(String, Character)] = [
        ("a,b,c\r\n1,\"two, with comma\",3\r\n4,\"line\nbreak\",6\r\n", ","),
        ("a;b\n\"quote \"\"inside\"\"\";x\n12\" pan;y\n;\n\n\"\r\n\";end", ";"),
        ("name\rlone CR\r\"cr inside \r quoted\"\r\"x\"\"\r\nlast without newline", ","),
        ("name\rlone CR\r\"cr inside \r quoted\"\r\"x\"\"\r\nlast without newline", ";"),
        ("h\n\"unterminated quote to the end\nand more\n", ","),
        ("k,v\n녹차 라떼,\"😀 emoji, and 한글\"\r\n\"\",\"\"\"\"\n", ","),
        ("k\tv\n녹차 라떼\t\"😀 emoji,\t한글\"\r\n\"\"\t\"\"\"\"\n", "\t"),
        ("trailing,delimiter,\nlast,one,", ","),
    ]

    @Test("cells as the library reads them, records cut where it cuts them, whatever the piece size")
    func sameRows() throws {
        for (text, delimiter) in Self.wellFormed {
            let expected = try whole(text, delimiter: delimiter)
            for size in [1, 2, 3, 7, 64, 1 << 20] {
                #expect(try pieces(text, delimiter: delimiter, size: size) == expected, "size \(size): \(text.prefix(40).debugDescription)")
            }
        }
    }

    @Test("random text with stray quotes: the same records whatever the piece size, as many as the library reads")
    func strayQuotes() throws {
        var generator = SplitMix(seed: 11)
        var random = ""
        let alphabet: [String] = ["a", "b", ",", ";", "\"", "\"\"", "\n", "\r", "\r\n", "한", " "]
        for _ in 0..<3000 { random += alphabet[Int(generator.next() % UInt64(alphabet.count))] }
        for delimiter: Character in [",", ";"] {
            let whole = try pieces(random, delimiter: delimiter, size: 1 << 20)
            #expect(whole.count == (try self.whole(random, delimiter: delimiter)).count)
            for size in [1, 2, 3, 7, 64] {
                #expect(try pieces(random, delimiter: delimiter, size: size) == whole, "size \(size)")
            }
        }
    }

    @Test("a stray quote in a quoted cell keeps what follows it (the library dropped a character)")
    func strayQuoteKept() {
        let records = CSVRecords(Array("\"12\"x pan\",b\n".utf8), delimiter: UInt8(ascii: ","))
        #expect(records.next() == ["12\"x pan", "b"])
        #expect(records.next() == nil)
        let invalid = CSVRecords([0x61, 0xFF, 0x2C, 0x62], delimiter: UInt8(ascii: ","))
        #expect(invalid.next() == ["a\u{FFFD}", "b"])
    }
}

@Suite("Validation on all cores gives what one thread gives")
struct ParallelValidationTests {
    @Test("a file of many pieces: the same rows, numbers, drafts and issues, duplicates found across pieces")
    func sameAsSequential() throws {
        let workspace = try Workspace()
        defer { workspace.cleanup() }
        _ = try workspace.files.write(Fixtures.jpeg(width: 8, height: 8), named: "a.jpg")
        var csv = "key,name,description,price,currency,stock,images\n"
        var generator = SplitMix(seed: 5)
        for i in 1...25_000 {
            let roll = generator.next() % 100
            let key = roll == 0 ? "K\(i / 2)" : "K\(i)"            // some keys used twice, far apart
            let name = roll == 1 ? "Same name" : "Item \(i)"        // a repeated name: a warning
            let description = roll < 10 ? "\"spans\nlines, with \"\"quotes\"\"\"" : "plain \(i)"
            let price = roll == 2 ? "12.000,50" : "\(1000 + i)"     // an ambiguous price: an error
            let image = roll == 3 ? "missing.jpg" : "a.jpg"
            csv += "\(key),\(name),\(description),\(price),KRW,\(i % 9),\(image)\n"
            if roll == 4 { csv += ",,,,,,\n" }                      // a blank row: counted, skipped
        }
        let url = try workspace.write(csv)
        #expect(csv.utf8.count > 4 * (256 << 10), "the file must span several pieces")

        var parallel: [(Int, ProductDraft?, [RowIssue])] = []
        let summary = try ManifestCheck.run(url, options: ValidationOptions(), onFileIssue: { _ in },
                                            onRow: { raw, draft, issues in parallel.append((raw.number, draft, issues)) })
        let reader = try ManifestReader(url: url)
        let validator = ManifestValidator(reader: reader, options: ValidationOptions())
        var sequential: [(Int, ProductDraft?, [RowIssue])] = []
        while let raw = try reader.next() {
            let (draft, issues) = validator.validate(raw)
            sequential.append((raw.number, draft, issues))
        }
        #expect(parallel.count == 25_000 && summary.rows == 25_000)
        #expect(parallel.map(\.0) == sequential.map(\.0))
        #expect(parallel.map(\.1) == sequential.map(\.1))
        #expect(parallel.map(\.2) == sequential.map(\.2))
        #expect(parallel.contains { $0.2.contains { $0.rule == "key-duplicate" } })
        #expect(parallel.contains { $0.2.contains { $0.rule == "name-duplicate" } })
        // Row numbers are the spreadsheet's: quoted line breaks do not count, blank rows do.
        #expect(parallel.map(\.0).last! > 25_001)
    }
}

@Suite("JSON arrays read one element at a time")
struct JSONStreamTests {
    @Test("elements with brackets, commas and escapes in strings (backslashes before a closing quote, a quote after backslashes), across read chunks, match a whole-file parse")
    func elements() throws {
        let workspace = try Workspace()
        defer { workspace.cleanup() }
        var objects: [[String: Any]] = []
        for i in 0..<9_000 {
            objects.append([
                // Strings of every length ending in 0 to 3 backslashes, some with a quote after them:
                // the chunks' ends fall inside runs of backslashes and between a backslash and its quote.
                "name": "Item \(i) [with] {brackets}, commas and \"quotes\" \\ back\\slash" + String(repeating: "x", count: i % 13)
                    + String(repeating: "\\", count: i % 4) + (i % 5 == 0 ? "\"" : ""),
                "price": 1000 + i, "images": i % 2 == 0 ? ["a.jpg", "b.png"] : "a.jpg",
                "description": i % 3 == 0 ? "줄\n바꿈 ] , }" : "",
            ])
        }
        let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted])
        #expect(data.count > 1 << 20, "must span more than one read chunk")
        let url = workspace.directory.appendingPathComponent("big.json")
        try (Data([0xEF, 0xBB, 0xBF]) + data).write(to: url)
        let reader = try ManifestReader(url: url)
        var rows: [RawRow] = []
        while let row = try reader.next() { rows.append(row) }
        #expect(rows.count == objects.count)
        for (index, row) in rows.enumerated() {
            #expect(row.number == index + 1)
            #expect(row.values[.name] == objects[index]["name"] as? String)
            #expect(row.values[.description] == objects[index]["description"] as? String)
            #expect(row.values[.price] == String(1000 + index))
        }
    }

    @Test("an array's elements cut the same whatever the reads' size: strings ending in runs of backslashes, quotes after them, brackets and commas inside", arguments: [1, 2, 3, 5, 8, 9, 64, 1 << 20])
    func elementsAcrossAnyRead(chunkBytes: Int) throws {
        let workspace = try Workspace()
        defer { workspace.cleanup() }
        let names = (0..<400).map { i in
            "n\(i) " + String(repeating: "\\", count: i % 5) + (i % 3 == 0 ? "\"" : "") + (i % 7 == 0 ? "], {x}, " : "")
                + String(repeating: "\\", count: (i / 5) % 4)
        }
        let objects: [[String: Any]] = names.map { ["name": $0, "tags": [$0, "\\"], "n": 1] }
        let url = workspace.directory.appendingPathComponent("runs.json")
        try JSONSerialization.data(withJSONObject: objects).write(to: url)
        let elements = try JSONArrayElements(url: url, chunkBytes: chunkBytes)
        var read: [String] = []
        var piece: [UInt8] = []
        while let count = try elements.next(appendingTo: &piece) {
            let object = try JSONSerialization.jsonObject(with: Data(piece.suffix(count))) as? [String: Any]
            read.append(object?["name"] as? String ?? "?")
        }
        #expect(read == names)
    }

    @Test("broken arrays are refused with the item named; unknown keys are one warning", arguments: [
        ("[{\"name\": \"ok\"}, {\"name\": ", "not closed"),
        ("[{\"name\": \"ok\"}] trailing", "after the end"),
        ("[{\"name\": \"ok\"}, 42]", "item 2 is not a JSON object"),
        ("[{\"name\": \"ok\"}, {\"name\" \"x\"}]", "not valid JSON at item 2"),
        ("{\"name\": \"x\"}", "must be a JSON array"),
        ("   ", "JSON array"),
    ])
    func broken(text: String, message: String) throws {
        let workspace = try Workspace()
        defer { workspace.cleanup() }
        let url = try workspace.write(text, named: "p.json")
        do {
            _ = try workspace.check(url)
            Issue.record("expected an error for \(text)")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
        }
    }

    @Test("read on all cores, a long JSON array or JSON Lines file stops at its broken item with the rows before it checked, in order; an unknown key in a later piece is reported", arguments: [false, true])
    func brokenLater(lines: Bool) throws {
        let workspace = try Workspace()
        defer { workspace.cleanup() }
        var items = (1...1500).map { "{\"key\": \"K\($0)\", \"name\": \"Item \($0)\", \"price\": \($0), \"stock\": 1, \"images\": \"a.jpg\"\($0 == 900 ? ", \"colour\": \"red\"" : "")}" }
        items[1199] = lines ? "{\"name\": " : "42"
        let text = lines ? items.joined(separator: "\n") : "[" + items.joined(separator: ",\n") + "]"
        let url = try workspace.write(text, named: lines ? "p.jsonl" : "p.json")
        var options = ValidationOptions()
        options.checkImageFiles = false
        var numbers: [Int] = []
        var unknown: [String] = []
        do {
            _ = try ManifestCheck.run(url, options: options, onFileIssue: { if $0.rule == "column-unknown" { unknown.append($0.value ?? "") } }) { raw, draft, _ in
                if draft != nil { numbers.append(raw.number) }
            }
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".contains(lines ? "line 1200 is not valid JSON" : "item 1200 is not a JSON object"), "\(error)")
        }
        #expect(numbers == Array(1...1199))
        let fine = try workspace.write(lines ? items.prefix(1199).joined(separator: "\n") : "[" + items.prefix(1199).joined(separator: ",") + "]",
                                       named: lines ? "q.jsonl" : "q.json")
        unknown = []
        _ = try ManifestCheck.run(fine, options: options, onFileIssue: { if $0.rule == "column-unknown" { unknown.append($0.value ?? "") } }) { _, _, _ in }
        #expect(unknown == ["colour"])
    }

    @Test("JSON Lines read on all cores, a piece's lines in one buffer: a byte-order mark, blank and space-only lines, CRLF endings; each row numbered by its line, as the one-thread reader reads it")
    func linesInPieces() throws {
        let workspace = try Workspace()
        defer { workspace.cleanup() }
        var text = "\u{FEFF}"
        var expected: [Int: String] = [:]
        for line in 1...1_400 {
            switch line % 97 {
            case 5: text += "\r\n"
            case 6: text += "  \t \r\n"
            default:
                text += "{\"key\": \"K\(line)\", \"name\": \"녹차 \(line)\", \"price\": \(line), \"stock\": 1, \"images\": \"a.jpg\"}"
                text += line % 2 == 0 ? "\r\n" : "\n"
                expected[line] = "녹차 \(line)"
            }
        }
        let url = try workspace.write(text, named: "p.jsonl")
        var options = ValidationOptions()
        options.checkImageFiles = false
        var read: [Int: String] = [:]
        var order: [Int] = []
        _ = try ManifestCheck.run(url, options: options, onFileIssue: { Issue.record("\($0)") }) { raw, draft, issues in
            #expect(draft != nil, "\(raw.number): \(issues)")
            read[raw.number] = raw.values[.name]
            order.append(raw.number)
        }
        #expect(read == expected)
        #expect(order == order.sorted() && order.count == expected.count)
        let reader = try ManifestReader(url: url)
        var alone: [Int: String] = [:]
        while let row = try reader.next() { alone[row.number] = row.values[.name] }
        #expect(alone == expected)
    }

    @Test("an unknown key in a later object is still reported")
    func unknownLater() throws {
        let workspace = try Workspace()
        defer { workspace.cleanup() }
        let url = try workspace.write("""
        [{"name": "Green tea", "price": 1, "stock": 1, "images": "a.jpg"},
         {"name": "Black tea", "price": 2, "stock": 1, "images": "a.jpg", "colour": "black"}]
        """, named: "p.json")
        let result = try workspace.check(url)
        #expect(result.issues.map(\.rule) == ["column-unknown"] && result.issues.first?.value == "colour")
        #expect(result.drafts.count == 2)
    }
}
