import Foundation
@testable import Manifest
import OpenMarketContract
import Testing
import TestSupport

/// The small tables `validate` keeps per row and across rows, against the standard library's
/// answers they replace.
@Suite("Row tables: cells by column, hashes across rows, lengths, photo cells")
struct RowTablesTests {
    @Test("RowValues holds what a [Column: String] holds, after any sets and removals")
    func rowValuesAsDictionary() {
        var random = SplitMix(seed: 7)
        for _ in 0..<200 {
            var values = RowValues()
            var model: [Column: String] = [:]
            for _ in 0..<Int.random(in: 0...30, using: &random) {
                let column = Column.allCases.randomElement(using: &random)!
                if Bool.random(using: &random) {
                    let text = "v\(Int.random(in: 0...9, using: &random))"
                    values[column] = text
                    model[column] = text
                } else {
                    #expect(values.removeValue(forKey: column) == model.removeValue(forKey: column))
                }
                #expect(values.count == model.count)
                #expect(values.isEmpty == model.isEmpty)
            }
            #expect(values.dictionary == model)
            #expect(values == RowValues(model))
            #expect(values.keys == Column.allCases.filter { model[$0] != nil })
            for column in Column.allCases { #expect(values[column] == model[column]) }
        }
        let literal: RowValues = [.key: "K", .stock: "3"]
        #expect(Array(literal.map(\.key)) == [.key, .stock])
        #expect(literal != [.key: "K"])
    }

    @Test("RowHashes answers as a dictionary of first rows: growing, hash 0, neighbours in one run of slots")
    func rowHashesAsDictionary() {
        var random = SplitMix(seed: 42)
        let table = RowHashes()
        var model: [UInt64: Int32] = [:]
        // Few distinct hashes among many: repeats are found; 0 is a hash like any other.
        let pool = (0..<30_000).map { _ in random.next() } + [0, 1, UInt64.max, 1 << 32, 0xFFFF_FFFF]
        for row in 1...100_000 {
            let hash = pool.randomElement(using: &random)!
            let row = Int32(row)
            #expect(table.first(hash, else: row) == model[hash])
            if model[hash] == nil { model[hash] = row }
            if row % 997 == 0 {
                table.replace(hash, with: -row)
                model[hash] = -row
            }
        }
        #expect(table.count == model.count)
        for (hash, row) in model { #expect(table.first(hash, else: 0) == row) }
        // Reserved ahead, then filled: the same answers.
        let reserved = RowHashes()
        reserved.reserve(model.count)
        for (hash, row) in model { #expect(reserved.first(hash, else: row) == nil) }
        for (hash, row) in model { #expect(reserved.first(hash, else: 0) == row) }
        // A table as large as a million rows' (on 2 MB pages from the kernel): the same answers.
        let large = RowHashes()
        large.reserve(1_000_000)
        for (hash, row) in model { #expect(large.first(hash, else: row) == nil) }
        for (hash, row) in model { #expect(large.first(hash, else: 0) == row) }
        #expect(large.count == model.count)
        // A replace of a hash never given changes nothing.
        table.replace(12345, with: 9)
        #expect(table.first(12345, else: 1) == (model[12345] ?? nil))
    }

    @Test("Lengths counted without grapheme breaking agree with String.count, for Korean, jamo, emoji, CR LF")
    func characterCounts() {
        let pieces = ["a", " ", "녹", "차", "\r", "\n", "\r\n", "ᄀ", "ᅡ", "ᆨ", "é", "e\u{301}", "👍", "👍🏽", "🇰🇷", "한", "글", "-", "\u{200D}", "\u{FE0F}"]
        var random = SplitMix(seed: 3)
        for _ in 0..<5_000 {
            let text = (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            #expect(ManifestValidator.characterCount(text) == text.count, "\(Array(text.unicodeScalars))")
            if let simple = ManifestValidator.simpleCount(text) { #expect(simple == text.count) }
        }
        #expect(ManifestValidator.simpleCount("상품 1, 녹차 라떼") == 11)
        #expect(ManifestValidator.simpleCount("가\u{11A8}") == nil)
        #expect(ManifestValidator.simpleCount("a\r\nb") == nil)
    }

    @Test("White space by value is Unicode's White_Space, every scalar of the first planes")
    func whiteSpace() {
        for value in UInt32(0)...0x3_FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(ManifestValidator.isWhitespace(scalar) == scalar.properties.isWhitespace, "U+\(String(value, radix: 16))")
        }
    }

    @Test("An ASCII photo cell splits as the general reader splits it")
    func asciiPhotoCells() {
        let pieces = ["a.jpg", "b.png", ";", "|", " ", "\t", "\n", "\r\n", "\u{0B}", "x y.jpg", "'=c.jpg", "https://x.test/p.jpg"]
        var random = SplitMix(seed: 11)
        for _ in 0..<3_000 {
            let cell = (0..<Int.random(in: 0...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let general = cell.split(whereSeparator: { $0 == ";" || $0 == "|" || $0.isNewline })
                .map { ManifestValidator.trimmed(String($0)) }.filter { !$0.isEmpty }
            #expect(ImageSource.references(inCell: cell) == general, "\(cell.debugDescription)")
        }
    }

    @Test("UTF-8 checked eight ASCII bytes at a time finds the first bad byte where a byte-by-byte reading does, across chunks")
    func utf8Validation() {
        /// Byte by byte: the sequence's start when a continuation is missing or a lead byte is wrong.
        func firstInvalid(_ bytes: [UInt8]) -> Int? {
            var pending = 0, start = 0
            for (i, byte) in bytes.enumerated() {
                if pending > 0 {
                    if byte & 0xC0 == 0x80 { pending -= 1; continue }
                    return start
                }
                guard byte >= 0x80 else { continue }
                start = i
                switch byte {
                case 0xC2...0xDF: pending = 1
                case 0xE0...0xEF: pending = 2
                case 0xF0...0xF4: pending = 3
                default: return i
                }
            }
            return pending > 0 ? start : nil
        }
        let pieces: [[UInt8]] = [Array("abcdefgh".utf8), Array("녹차".utf8), Array("é".utf8), Array("👍".utf8), [0x80], [0xE0, 0x41], [0xFF], Array(" ,\n".utf8)]
        var random = SplitMix(seed: 5)
        for _ in 0..<3_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...20, using: &random) {
                // Mostly good text, a bad piece now and then.
                let piece = Int.random(in: 0..<10, using: &random) == 0 ? pieces[4 + Int.random(in: 0...2, using: &random)]
                    : [pieces[0], pieces[1], pieces[2], pieces[3], pieces[7]].randomElement(using: &random)!
                bytes += piece
            }
            var validator = UTF8Validator()
            var offset = 0
            while offset < bytes.count, validator.firstInvalid == nil {
                let size = Int.random(in: 1...13, using: &random)
                let chunk = Data(bytes[offset..<min(bytes.count, offset + size)])
                validator.feed(chunk, at: offset)
                offset += chunk.count
            }
            #expect((validator.firstInvalid ?? validator.finish(at: bytes.count)) == firstInvalid(bytes), "\(bytes)")
        }
    }
}
