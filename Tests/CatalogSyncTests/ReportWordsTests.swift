import CatalogSync
import Foundation
import Testing
import Words

@Suite("the report's words")
struct ReportWordsTests {
    @Test("a note's parts openmarket writes are said in Korean with their numbers; a part it does not know stays as it is; English is untouched")
    func notes() {
        let note = RowOutcome.notSentNote + "; HTTP 503 from the server"
        let korean = NoteWords.say(note, .ko)
        #expect(korean == "보내지 않음: 실행이 이 행 전에 멈췄습니다; 같은 명령을 다시 실행하면 보냅니다; HTTP 503 from the server", "\(korean)")
        #expect(NoteWords.say(note, .en) == note)
        #expect(NoteWords.say("product 41, created by the run, is already gone", .ko) == "실행이 만든 상품 41은(는) 이미 없습니다")
        #expect(NoteWords.say("already created as product 7 in an earlier run; the row has changed since: run without --mode create to update it", .ko)
                == "이전 실행에서 이미 상품 7(으)로 만들었고, 그 뒤 행이 바뀌었습니다: --mode create 없이 실행하면 수정합니다")
        #expect(NoteWords.say("updated, but HTTP 502 Bad Gateway; product 9 made again as 12 with its 3 saved photos", .ko)
                == "수정했지만 HTTP 502 Bad Gateway; 상품 9을(를) 저장해 둔 사진 3장과 함께 12(으)로 다시 만들었습니다")
        // Each part by itself: a shape of one part never swallows the next.
        let two = NoteWords.say("photo 'A.JPG': found under another case; photo 2 (b.jpg): only 90×60 pixels: buyers see it blurred (…)", .ko)
        #expect(two == "사진 'A.JPG': 대소문자만 다른 이름의 파일을 찾아 썼습니다; 사진 2 (b.jpg): 90×60 픽셀뿐이라 구매자에게 흐리게 보입니다 (긴 변이 200픽셀 이상이면 휴대폰에서 선명하고, 확대해 보려면 1,000픽셀 이상)", "\(two)")
    }

    @Test("a change's fields and a count's status in Korean, the values and the CLI's word kept")
    func changesAndCounts() {
        #expect(StatusWords.changes("price 32000 → 31000 (-3.1 %); stock 8 → 0", .ko) == "가격 32000 → 31000 (-3.1 %); 재고 8 → 0")
        #expect(StatusWords.changes("price 1001 KRW, discount 100, stock 3", .ko) == "가격 1001 KRW, 할인 100, 재고 3")
        #expect(StatusWords.count("not-sent", 4, .ko) == "보내지 않음 4 (not sent)" && StatusWords.count("created", 2, .en) == "2 created")
        #expect(StatusWords.stopReason("stopped after 12 failed rows (--max-errors 10)", .ko) == "실패한 행이 12개가 되어 멈춤 (--max-errors)")
        #expect(WordTable.filled("feed_max_drop", .ko, "40", "100", "60", "50") == "40행입니다 (마지막으로 실행한 파일은 100행, -60 %): max_drop_percent 50를 넘어 아무것도 보내지 않았습니다")
    }
}
