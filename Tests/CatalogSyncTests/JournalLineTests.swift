@testable import CatalogSync
import Foundation
import Support
import Testing
import TestSupport

@Suite("The journal's lines read without the decoder")
struct JournalLineTests {
    @Test("every line record writes reads back as the decoder reads it: escapes, Korean, emoji, no id, an error with a line break")
    func sameAsTheDecoder() throws {
        let awkward = "따옴표 \"q\" back\\slash / a/b\ttab\nline\r\u{01}\u{1F} é 🍵 \u{2028}"
        let entries: [Journal.Entry] = [
            .init(event: .sent, key: "TEA-001", hash: String(repeating: "ab", count: 32), row: 2, time: 1_795_890_487.879675),
            .init(event: .done, key: awkward, hash: awkward, row: 1_000_000, time: 0.1, id: 123_456_789),
            .init(event: .failed, key: "", hash: "", row: 0, time: -1.5e-7, error: awkward),
            .init(event: .done, key: "녹차 100g", hash: "x", row: 3, time: 1e21, id: -4),
        ]
        for entry in entries {
            let line = try JSONEncoder().encode(entry)
            #expect(Journal.Entry(line: line) == entry, "\(String(decoding: line, as: UTF8.self))")
            #expect(Journal.Entry(line: line) == (try JSONDecoder().decode(Journal.Entry.self, from: line)))
        }
        // Written another way (spaces, keys in another order, null): still read.
        let spaced = Data(#" { "row" : 5 , "id" : null, "time": 12, "key": "K\u00e9\ud83c\udf75", "hash": "h", "event": "sent" } "#.utf8)
        #expect(Journal.Entry(line: spaced) == .init(event: .sent, key: "Ké🍵", hash: "h", row: 5, time: 12))
    }

    @Test("what is not such a line is left to the decoder: unknown fields, nested values, a fraction for a row, a missing field, a torn line")
    func othersLeftToTheDecoder() {
        let lines = [
            #"{"event":"sent","key":"K","hash":"h","row":2,"time":1,"extra":"x"}"#,
            #"{"event":"sent","key":"K","hash":"h","row":2,"time":1,"id":{"a":1}}"#,
            #"{"event":"sent","key":"K","hash":"h","row":2.5,"time":1}"#,
            #"{"event":"sent","key":"K","hash":"h","time":1}"#,
            #"{"event":"lost","key":"K","hash":"h","row":2,"time":1}"#,
            #"{"event":"sent","key":"K","hash":"h","row":2,"time":1"#,
            #"{"event":"sent","key":"K\x","hash":"h","row":2,"time":1}"#,
        ]
        for line in lines { #expect(Journal.Entry(line: Data(line.utf8)) == nil, "\(line)") }
    }

    @Test("a journal read a mebibyte at a time: lines across the chunks' edges and one longer than a chunk, a torn tail cut off")
    func chunks() throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let url = files.directory.appendingPathComponent("big.journal")
        var lines: [String] = []
        for index in 0..<3_000 { lines.append("{\"event\":\"sent\",\"key\":\"K\(index)\",\"hash\":\"h\",\"row\":\(index),\"time\":1}") }
        lines.insert(String(repeating: "x", count: 2_500_000), at: 1_234)
        let torn = "{\"event\":\"done\",\"key\":\"cut"
        try Data((lines.joined(separator: "\n") + "\n" + torn).utf8).write(to: url)
        var seen: [String] = []
        _ = try AppendLog(url: url) { seen.append(String(decoding: $0, as: UTF8.self)) }
        #expect(seen == lines)
        let kept = try Data(contentsOf: url)
        #expect(kept.count == lines.reduce(0) { $0 + $1.utf8.count + 1 }, "the torn line is cut off")
        let journal = try Journal(url: url)
        #expect(journal.state(of: "K2999") == .sent(at: 1, hash: "h"))
    }
}
