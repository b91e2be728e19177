import Foundation

/// A row's note (what the report's Note column says) in Korean: each part of it (`; `) that
/// openmarket itself writes, by its shape, with its numbers and names kept; a part it does not
/// know (a server's words, a feed map's own reason) as it is.
public enum NoteWords {
    public static func say(_ note: String, _ language: Language) -> String {
        guard language == .ko, !note.isEmpty else { return note }
        // A part may have `; ` of its own (the not-sent note): the longest run of parts a shape
        // knows is said whole.
        let parts = note.components(separatedBy: "; ")
        var said: [String] = []
        var start = 0
        while start < parts.count {
            var end = parts.count
            var korean: String?
            while end > start, korean == nil {
                korean = Self.korean(parts[start..<end].joined(separator: "; "), spanning: end - start > 1)
                if korean == nil { end -= 1 }
            }
            said.append(korean ?? parts[start])
            start = korean == nil ? start + 1 : end
        }
        return said.joined(separator: "; ")
    }

    /// `spanning`: the text is several parts, which only a shape with `; ` of its own may be.
    static func korean(_ part: String, spanning: Bool = false) -> String? {
        let whole = NSRange(part.startIndex..., in: part)
        for (pattern, template) in shapes where (!spanning || pattern.pattern.contains("; ")) && pattern.firstMatch(in: part, range: whole) != nil {
            return pattern.stringByReplacingMatches(in: part, range: whole, withTemplate: template)
        }
        return nil
    }

    /// Each English shape, whole, and its Korean (`$1`: what the English had there).
    static let shapes: [(NSRegularExpression, String)] = [
        (#"^photo ([0-9]+) \((.*)\): only ([0-9]+)×([0-9]+) pixels: buyers see it blurred .*$"#,
         "사진 $1 ($2): $3×$4 픽셀뿐이라 구매자에게 흐리게 보입니다 (긴 변이 200픽셀 이상이면 휴대폰에서 선명하고, 확대해 보려면 1,000픽셀 이상)"),
        (#"^photo ([0-9]+) \((.*)\): damaged JPEG, decoded anyway: (.*)$"#, "사진 $1 ($2): 손상된 JPEG이지만 읽어서 보냈습니다: $3"),
        (#"^photo '(.*)': .*$"#, "사진 '$1': 대소문자만 다른 이름의 파일을 찾아 썼습니다"),
        (#"^not sent: the run stopped before this row; the same command again sends it$"#,
         "보내지 않음: 실행이 이 행 전에 멈췄습니다; 같은 명령을 다시 실행하면 보냅니다"),
        (#"^photos differ from the ones the product was created with: the API cannot replace photos, the product keeps its own$"#,
         "사진이 상품을 만들 때의 사진과 다릅니다: API로는 사진을 바꿀 수 없어 상품의 사진을 그대로 둡니다"),
        (#"^already done in an earlier run$"#, "이전 실행에서 이미 처리됨"),
        (#"^would replace product ([0-9]+): a new product with the row's photos, then [0-9]+ deleted$"#,
         "상품 $1 교체 예정: 행의 사진으로 새 상품을 만든 뒤 $1 삭제"),
        (#"^product ([0-9]+), created by the run, is already gone$"#, "실행이 만든 상품 $1은(는) 이미 없습니다"),
        (#"^deleted by an earlier attempt of this undo$"#, "이 되돌리기의 이전 시도에서 삭제됨"),
        (#"^restored by an earlier attempt of this undo$"#, "이 되돌리기의 이전 시도에서 복원됨"),
        (#"^already as before the run$"#, "이미 실행 전과 같습니다"),
        (#"^product ([0-9]+) is no longer in the shop: nothing to restore$"#, "상품 $1이(가) 쇼핑몰에 없습니다: 복원할 것이 없습니다"),
        (#"^product ([0-9]+) is still in the shop: the run did not delete it$"#, "상품 $1은(는) 아직 쇼핑몰에 있습니다: 실행이 지우지 않았습니다"),
        (#"^already created as product ([0-9]+) in an earlier run; the row has changed since: run without --mode create to update it$"#,
         "이전 실행에서 이미 상품 $1(으)로 만들었고, 그 뒤 행이 바뀌었습니다: --mode create 없이 실행하면 수정합니다"),
        (#"^product ([0-9]+) made again as ([0-9]+) by an earlier attempt of this undo$"#, "상품 $1은(는) 이 되돌리기의 이전 시도에서 $2(으)로 다시 만들어졌습니다"),
        (#"^product ([0-9]+) made again as ([0-9]+) with its ([0-9]+) saved photos$"#, "상품 $1을(를) 저장해 둔 사진 $3장과 함께 $2(으)로 다시 만들었습니다"),
        (#"^product ([0-9]+) made again as ([0-9]+) \(.*\)$"#, "상품 $1을(를) $2(으)로 다시 만들었습니다 (이전 시도의 응답은 잃었지만 서버에서 찾음)"),
        (#"^it had replaced deleted product ([0-9]+)$"#, "삭제된 상품 $1을(를) 대신하던 상품입니다"),
        (#"^product ([0-9]+) is named twice$"#, "상품 $1의 이름이 두 번 있습니다"),
        (#"^deleted once$"#, "한 번만 지웠습니다"),
        (#"^updated, but (.*)$"#, "수정했지만 $1"),
        (#"^not linked: (.*)$"#, "연결하지 않음: $1"),
    ].map { (try! NSRegularExpression(pattern: $0.0), $0.1) }
}
