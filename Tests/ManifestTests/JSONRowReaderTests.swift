import Foundation
@testable import Manifest
import Testing
import TestSupport

/// The JSON sheet's rows read from their bytes (`JSONRowReader`), held against what
/// Foundation's JSONSerialization reads from the same bytes.
@Suite("JSON rows read from their bytes")
struct JSONRowReaderTests {
    func cells(_ text: String) throws -> [String: JSONCell] {
        Dictionary(try JSONRowReader.object(Data(text.utf8)).map { ($0.key, $0.cell) }, uniquingKeysWith: { $1 })
    }

    @Test("strings with every escape and surrogate pairs, numbers as their digits, true/false/null, photo arrays, nested values as their text")
    func values() throws {
        let row = try cells(#"""
            { "name" : "녹차 \"라떼\"\n\t\\ \/ \u00e9 \ud83c\udf75", "price": 12.50, "stock": 10.0, "big": 12345678901234567890,
              "exp": 1.5e3, "neg": -0.0, "on": true, "off": false, "gone": null, "images": ["a.jpg", "b.png"],
              "mixed": [1, "x", null], "deep": {"a": [1, {"b": 2}]}, "grid": [[1, 2]], "name": "second" }
            """#)
        #expect(row["name"] == .text("second"), "a key given twice: the last one")
        #expect(row["price"] == .text("12.5") && row["stock"] == .text("10") && row["big"] == .text("12345678901234567890"))
        #expect(row["exp"] == .text("1500") && row["neg"] == .text("0"))
        #expect(row["on"] == .text("true") && row["off"] == .text("false") && row["gone"] == .null)
        #expect(row["images"] == .list(["a.jpg", "b.png"]) && row["mixed"] == .list(["1", "x", ""]))
        #expect(row["deep"] == .nested(#"{"a": [1, {"b": 2}]}"#) && row["grid"] == .nested("[[1, 2]]"))
        let escaped = try cells(#"{"name": "녹차 \"라떼\"\n\t\\ \/ \u00e9 \ud83c\udf75"}"#)
        #expect(escaped["name"] == .text("녹차 \"라떼\"\n\t\\ / é 🍵"))
    }

    @Test("what is not JSON is refused, saying where; valid JSON that is no object is said so")
    func refusals() {
        for text in [#"{"name" "x"}"#, #"{"name": 01}"#, #"{"name": 1.}"#, #"{"name": "a"#, #"{"name": "\x"}"#, #"{"name": tru}"#,
                     #"{"name": "\ud83c"}"#, "{\"name\": \"a\u{01}\"}", #"{"name": 1,}"#, #"{"name": 1} x"#, "{\"name\": -}", #"{'name': 1}"#] {
            #expect(throws: JSONRowReader.Failure.self, "\(text)") { try JSONRowReader.object(Data(text.utf8)) }
            if case .invalid(let detail)? = Self.failure(text) { #expect(detail.contains("at byte"), "\(detail)") } else {
                Issue.record("\(text): not refused as invalid")
            }
        }
        for text in ["42", "[1, 2]", "\"x\"", "null"] { #expect(Self.failure(text) == .notAnObject, "\(text)") }
        #expect(Self.failure(Data([0x7B, 0x22, 0x6E, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D])) != nil, "a string that is not UTF-8")
    }

    static func failure(_ text: String) -> JSONRowReader.Failure? { failure(Data(text.utf8)) }
    static func failure(_ data: Data) -> JSONRowReader.Failure? {
        do { _ = try JSONRowReader.object(data); return nil } catch { return error }
    }

    @Test("4,000 generated objects (escapes, Korean, emoji, numbers in every form, arrays, nesting): the same values JSONSerialization reads, and nothing it refuses is read")
    func againstFoundation() throws {
        var random = SplitMix(seed: 20261126)
        for round in 0..<4000 {
            let text = Self.object(&random)
            let data = Data(text.utf8)
            let foundation = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(round): \(text)")
            let ours = try cells(text)
            #expect(Set(ours.keys) == Set(foundation.keys), "\(text)")
            for (key, value) in foundation {
                #expect(Self.same(ours[key], value), "\(round) \(key): \(String(describing: ours[key])) vs \(value) in \(text)")
            }
            // Damaged copies: whatever we read, Foundation reads too (we are never the looser one).
            var bytes = Array(data)
            let at = Int.random(in: 0..<bytes.count, using: &random)
            if random.next() % 2 == 0 { bytes.remove(at: at) } else { bytes.insert([0x22, 0x2C, 0x7D, 0x5C, 0x30, 0x3A].randomElement(using: &random)!, at: at) }
            if Self.failure(Data(bytes)) == nil {
                #expect((try? JSONSerialization.jsonObject(with: Data(bytes))) is [String: Any], "we read what Foundation refuses: \(String(decoding: bytes, as: UTF8.self))")
            }
        }
    }

    /// Objects read one after another with the last one's keys (`JSONRowReader.knownKeys`):
    /// each the same as read alone, and refused where read alone it is refused.
    static func readInTurn(_ texts: [String]) -> [Result<[String], JSONRowReader.Failure>] {
        var keys = JSONRowReader.KnownKeys()
        return texts.map { text in
            Array(text.utf8).withUnsafeBytes { raw in
                Result { () throws(JSONRowReader.Failure) in
                    try JSONRowReader.object(raw, keys: &keys).map { "\($0.key)=\($0.cell)" }
                }
            }
        }
    }

    static func readAlone(_ text: String) -> Result<[String], JSONRowReader.Failure> {
        Result { () throws(JSONRowReader.Failure) in try JSONRowReader.object(Data(text.utf8)).map { "\($0.key)=\($0.cell)" } }
    }

    @Test("a row's keys matched on the last row's bytes: the same keys in other orders, longer and shorter, escaped, a quote in a key, broken rows: as each row read alone")
    func keysInTurn() {
        let crafted = [#"{"a\"b": 1}"#, #"{"a"b": 1}"#, #"{"name": 1, "price": 2}"#, #"{"names": 1, "pric": 2}"#, #"{"na\u006de": 1}"#,
                       #"{"name": 1}"#, #"{"": 1, "name": 2}"#, #"{"": 3, "name": 4}"#, #"{"name"#, #"{"name": 5, "name": 6}"#,
                       "{\"na\u{01}me\": 1}", #"{"name": 7}"#, #"{"상품명": 1}"#, #"{"상품명": 2, "상품명x": 3}"#,
                       // The last row's keys again, then one of them twice; a key the same as another as Unicode compares them.
                       #"{"a": 1, "b": 2}"#, #"{"a": 3, "b": 4}"#, #"{"a": 5, "a": 6}"#, #"{"a": 7, "b": 8, "a": 9}"#, #"{"a": 7, "b": 8, "a": 9}"#,
                       "{\"caf\u{E9}\": 1, \"cafe\u{301}\": 2}", "{\"caf\u{E9}\": 3, \"cafe\u{301}\": 4}"]
        let inTurn = Self.readInTurn(crafted)
        for (text, result) in zip(crafted, inTurn) { #expect(result == Self.readAlone(text), "\(text)") }
        #expect((try? inTurn[1].get()) == nil, "a quote in the last row's key is no quote of this row's")
        var random = SplitMix(seed: 20261206)
        let names = ["name", "names", "nam", "price", "sale_price", "a\"b", "a\\b", "상품명", "", "images", "stock"]
        let texts = (0..<4_000).map { _ in
            let fields = (0..<Int.random(in: 1...6, using: &random)).map { _ in
                "\(Self.string(&random, names.randomElement(using: &random)!)):\(Self.value(&random, depth: 1))"
            }
            // Now and then a row cut short or with a key broken after its first bytes.
            switch random.next() % 20 {
            case 0: return "{" + fields.joined(separator: ",")
            case 1: return "{\"nam" + "{" + fields.joined(separator: ",") + "}"
            default: return "{" + fields.joined(separator: ", ") + "}"
            }
        }
        var failures = 0
        for (text, result) in zip(texts, Self.readInTurn(texts)) {
            if case .failure = result { failures += 1 }
            if result != Self.readAlone(text) { Issue.record("read in turn differs: \(text)"); return }
        }
        #expect(failures > 100 && failures < 1_000)
    }

    static func same(_ ours: JSONCell?, _ theirs: Any) -> Bool {
        switch (ours, theirs) {
        case (.null?, is NSNull): return true
        case (.text(let text)?, let flag as Bool) where text == "true" || text == "false": return (text == "true") == flag
        case (.text(let text)?, let string as String): return text == string
        case (.text(let text)?, let number as NSNumber): return Double(text).map { $0 == number.doubleValue } ?? false
        case (.list(let list)?, let array as [Any]): return list.count == array.count && zip(list, array).allSatisfy { same($0.isEmpty ? .null : .text($0), $1) || ($0.isEmpty && ($1 as? String) == "") }
        case (.nested(let text)?, _): return (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil
        default: return false
        }
    }

    static let keys = ["name", "description", "price", "currency", "discounted_price", "stock", "images", "key", "상품명", "x y", "emoji🍵"]

    static func object(_ random: inout SplitMix) -> String {
        let count = Int.random(in: 1...8, using: &random)
        let fields = (0..<count).map { _ in "\(space(&random))\(string(&random, keys.randomElement(using: &random)!))\(space(&random)):\(space(&random))\(value(&random, depth: 0))" }
        return "{" + fields.joined(separator: ",") + space(&random) + "}"
    }

    static func value(_ random: inout SplitMix, depth: Int) -> String {
        switch Int.random(in: 0..<(depth < 2 ? 9 : 6), using: &random) {
        case 0, 1: return string(&random, ["녹차 라떼", "a \"quoted\" word", "line\none", "tab\tand\\back", "🍵 tea", "é", "", "/path/x.jpg", "\u{7F}"].randomElement(using: &random)!)
        case 2: return ["0", "-0", "7", "-12", "4500", "12.50", "0.1", "1e3", "2.5E-2", "-1.0e+2", "123456789012", "3.14159265358979", "10.0"].randomElement(using: &random)!
        case 3: return ["true", "false"].randomElement(using: &random)!
        case 4: return "null"
        case 5: return "\"\(Int.random(in: 0...99999, using: &random))\""
        case 6, 7: return "[" + (0..<Int.random(in: 0...3, using: &random)).map { _ in value(&random, depth: depth + 1) }.joined(separator: ",") + "]"
        default: return "{\"k\": " + value(&random, depth: depth + 1) + "}"
        }
    }

    /// A JSON string of `text`, escaped in one of the ways JSON allows.
    static func string(_ random: inout SplitMix, _ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += random.next() % 2 == 0 ? "\\n" : "\\u000a"
            case "\t": out += "\\t"
            case "/": out += random.next() % 2 == 0 ? "/" : "\\/"
            default:
                if scalar.value > 0x7F, random.next() % 3 == 0 {
                    for unit in String(scalar).utf16 { out += String(format: "\\u%04x", unit) }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    static func space(_ random: inout SplitMix) -> String { ["", " ", "\n  ", "\t"].randomElement(using: &random)! }
}
