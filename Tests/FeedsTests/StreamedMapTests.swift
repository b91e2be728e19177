@testable import Feeds
import Foundation
import Manifest
import Testing
import TestSupport

/// A map whose products do not span rows (Cafe24, SmartStore, Coupang, 11번가, ESM) is read a
/// row at a time: what each row makes is what the whole file read at once made, row for row,
/// on random rows of its own headers (form rows, guide rows, options, rows not on sale).
@Suite("Shipped maps read a row at a time, as read whole")
struct StreamedMapTests {
    static let words = ["", "", "", "필수", "선택", "입력해 주세요", "예시) 상품명", "Y", "N", "판매중", "품절", "12,900", "1000", "25000", "7",
                        "빨강,파랑", "0,500", "5,7", "색상{녹색|갈색}//용량{50g|100g}", "01\n02", "빨강|파랑\nS|M", "0|1000", "3|4",
                        "빨강,S,정상,노출,3,3\n파랑,M,정상,노출,4,4", "a.jpg", "a.jpg|b.jpg", "2020-01-01", "2099-12-31", "코튼 티셔츠", "T-100", "<p>면</p>"]

    static func same(_ a: RawRow, _ b: RawRow) -> Bool {
        a.number == b.number && a.values == b.values && a.imageList == b.imageList && a.notes == b.notes && a.origin == b.origin
    }

    @Test("each shipped map that does not span rows: 200 random rows, the same products row for row", arguments: ShippedMaps.names)
    func sameRows(_ name: String) throws {
        let map = try #require(ShippedMaps.named(name))
        let headers = map.mapping.feed.referencedHeaders.compactMap { ref -> String? in
            if case .header(let text) = ref { return text }
            return nil
        } + ["메모"]
        let bound = try map.mapping.bind(headers: headers.enumerated().map { ($0.offset, $0.element) }, file: "\(name).csv")
        guard let grouped = bound as? any GroupedMapping, !grouped.spansRows else { return }
        var generator = SplitMix(seed: UInt64(name.utf8.reduce(0) { $0 &* 31 &+ UInt64($1) }))
        let rows = (0..<200).map { index in
            let cells = headers.map { _ in Self.words[Int(generator.next() % UInt64(Self.words.count))] }
            return bound.row(cells, number: index + 2, notes: [])
        }
        let whole = grouped.assemble(rows, firstPosition: 0)
        let streamed = rows.enumerated().flatMap { position, row in grouped.assemble([row], firstPosition: position) }
        #expect(whole.count == streamed.count && whole.count >= 100, "\(name): \(whole.count) and \(streamed.count)")
        for (a, b) in zip(whole, streamed) where !Self.same(a, b) {
            Issue.record("\(name) row \(a.number): \(a.values) \(a.notes) / \(b.values) \(b.notes)")
            break
        }
    }
}
