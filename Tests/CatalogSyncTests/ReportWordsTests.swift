import CatalogSync
import Foundation
import ShopState
import Testing
import Words

@Suite("the report's words")
struct ReportWordsTests {
    @Test("a row's notes are phrases made where they happen: said in Korean with their numbers (in the order Korean puts them), a server's words as they are, English as scripts read it; report.json keeps both and reads back")
    func notes() throws {
        var outcome = RowOutcome.notSent(row: 3, key: "K3", name: "Tea")
        outcome.notes.append(.verbatim("HTTP 503 from the server"))
        #expect(outcome.note == "not sent: the run stopped before this row; the same command again sends it; HTTP 503 from the server")
        #expect(outcome.noteText(.ko) == "보내지 않음: 실행이 이 행 전에 멈췄습니다; 같은 명령을 다시 실행하면 보냅니다; HTTP 503 from the server")
        #expect(Phrase("n_created_gone", "41").text(.ko) == "실행이 만든 상품 41은(는) 이미 없습니다")
        #expect(Phrase("n_created_before_changed", "7").text(.ko) == "이전 실행에서 이미 상품 7(으)로 만들었고, 그 뒤 행이 바뀌었습니다: --mode create 없이 실행하면 수정합니다")
        let remade = [Phrase("n_updated_but", "HTTP 502 Bad Gateway"), Phrase("n_remade", "9", "12", "3")]
        #expect(remade.text(.ko) == "수정했지만 HTTP 502 Bad Gateway; 상품 9을(를) 저장해 둔 사진 3장과 함께 12(으)로 다시 만들었습니다", "\(remade.text(.ko))")
        #expect(remade.text(.en) == "updated, but HTTP 502 Bad Gateway; product 9 made again as 12 with its 3 saved photos")
        // A photo's warning inside the row's note, each said in the reader's language.
        let photos = [Phrase("n_photo_name_case", "A.JPG", "found under another case"),
                      Phrase("n_photo", "2", "b.jpg", parts: [Phrase("n_photo_small", "90", "60", "200")])]
        #expect(photos.text(.ko) == "사진 'A.JPG': 대소문자만 다른 이름의 파일을 찾아 썼습니다; 사진 2 (b.jpg): 90×60 픽셀뿐이라 구매자에게 흐리게 보입니다 (긴 변이 200픽셀 이상이면 휴대폰에서 선명하고, 확대해 보려면 1,000픽셀 이상)", "\(photos.text(.ko))")
        #expect(photos.text(.en) == "photo 'A.JPG': found under another case; photo 2 (b.jpg): only 90×60 pixels: buyers see it blurred (200 pixels or more on the long side look sharp on a phone; 1,000 or more for zooming)")
        outcome.notes += photos
        let data = try JSONEncoder().encode(outcome)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect((object["note"] as? String)?.hasPrefix("not sent: the run stopped") == true && (object["notes"] as? [Any])?.count == 4)
        #expect(try JSONDecoder().decode(RowOutcome.self, from: data).noteText(.ko) == outcome.noteText(.ko))
    }

    @Test("every note phrase is in both languages with the same blanks, and none is read back from English")
    func noteTable() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var named = Set<String>()
        for folder in ["CatalogSync", "ImagePrep", "openmarket"] {
            for file in try FileManager.default.contentsOfDirectory(at: root.appendingPathComponent("Sources/\(folder)"), includingPropertiesForKeys: nil)
            where file.pathExtension == "swift" {
                named.formUnion(try String(contentsOf: file, encoding: .utf8).matches(of: /Phrase\("([a-z_]+)"/).map { String($0.1) })
            }
        }
        #expect(named.count >= 20, "\(named)")
        #expect(named.subtracting(WordTable.table.keys).isEmpty, "no words for \(named.subtracting(WordTable.table.keys))")
        for key in named {
            let pair = try #require(WordTable.table[key])
            let blanks = { (text: String) in Set(text.matches(of: /\{[0-9]*\}/).map { String($0.0) }) }
            // Numbered blanks let a language take the value said in its own words (a map's Korean title).
            let numbered = { (text: String) in blanks(text).contains { $0 != "{}" } }
            #expect(blanks(pair.en) == blanks(pair.ko) || pair.en.contains("{2}") || (numbered(pair.en) && numbered(pair.ko)), "\(key): \(pair)")
        }
        let words = try String(contentsOf: root.appendingPathComponent("Sources/Words/Phrase.swift"), encoding: .utf8)
        #expect(!words.contains("NSRegularExpression") && !words.contains("Regex"), "nothing parses rendered text")
    }
    @Test("a change's fields and a count's status in Korean, the values and the CLI's word kept")
    func changesAndCounts() {
        for mode in ImportMode.allCases {
            let words = WordTable.table["mode_\(mode.rawValue)"]
            #expect(words?.en == mode.rawValue && words?.ko.contains("(\(mode.rawValue))") == true, "mode \(mode)")
        }
        // A change is kept as fields and values, never parsed back from its English.
        let changes = [FieldChange(field: .price, old: "32000", new: "31000"), FieldChange(field: .stock, old: "8", new: "0")]
        let said = Phrase.list(changes.map(\.phrase), separator: "; ")
        #expect(said.text(.ko) == "가격 32000 → 31000 (-3.1 %); 재고 8 → 0")
        #expect(said.text(.en) == changes.map(\.text).joined(separator: "; ") && said.text(.en) == "price 32000 → 31000 (-3.1 %); stock 8 → 0")
        let made = Phrase.list([FieldChange.phrase(field: "price", value: "1001 KRW"), FieldChange.phrase(field: "discount", value: "100"),
                                FieldChange.phrase(field: "stock", value: "3")], separator: ", ")
        #expect(made.text(.ko) == "가격 1001 KRW, 할인 100, 재고 3" && made.text(.en) == "price 1001 KRW, discount 100, stock 3")
        // A value that looks like a field's name or holds "; " stays a value; an emptied one is said empty.
        let tricky = FieldChange(field: .name, old: "price; stock 8", new: "", reason: "rule 2")
        #expect(tricky.phrase.text(.en) == tricky.text && tricky.phrase.text(.ko) == "상품명 price; stock 8 → (비어 있음) (rule 2)", "\(tricky.phrase.text(.ko))")
        #expect(StatusWords.count("not-sent", 4, .ko) == "보내지 않음 4 (not sent)" && StatusWords.count("created", 2, .en) == "2 created")
        let maxErrors = Phrase("stop:max_errors", "12", "10")
        #expect(maxErrors.text(.en) == "stopped after 12 failed rows (--max-errors 10)" && maxErrors.text(.ko) == "실패한 행이 12개가 되어 멈춤 (--max-errors)")
        #expect(WordTable.filled("feed_max_drop", .ko, "40", "100", "60", "50") == "40행입니다 (마지막으로 실행한 파일은 100행, -60 %): max_drop_percent 50를 넘어 아무것도 보내지 않았습니다")
    }
}
