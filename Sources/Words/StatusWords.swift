/// A row's status as a merchant reads it. In Korean the CLI's word stays beside it
/// (`생성됨 (created)`): the terminal, the report and the page say that word.
public enum StatusWords {
    public static let korean: [String: String] = [
        "created": "생성됨", "updated": "수정됨", "unchanged": "변경 없음", "skipped": "제외됨", "failed": "실패",
        "replaced": "사진 교체됨", "linked": "연결됨", "deleted": "삭제됨", "restored": "복원됨",
        "would-create": "생성 예정", "would-update": "수정 예정", "would-delete": "삭제 예정", "would-restore": "복원 예정",
        "not-sent": "보내지 않음",
    ]

    /// `created`; `생성됨 (created)`.
    public static func label(_ status: String, _ language: Language) -> String {
        guard language == .ko, let korean = korean[status] else { return status }
        return "\(korean) (\(status))"
    }

    /// A count: `20 created`; `생성됨 20 (created)`.
    public static func count(_ status: String, _ count: Int, _ language: Language) -> String {
        guard language == .ko else { return "\(count) \(status == "not-sent" ? "not sent" : status)" }
        return "\(korean[status] ?? status) \(count) (\(status == "not-sent" ? "not sent" : status))"
    }

    /// The names of a product's fields as a change says them (`price 1000 → 1200`), in Korean.
    public static let fields: [String: String] = [
        "name": "상품명", "description": "설명", "price": "가격", "currency": "통화", "discount": "할인",
        "discounted_price": "할인", "sale_price": "판매가", "stock": "재고", "images": "사진", "photos": "사진",
    ]

    /// A row's changes (`price 1000 → 1200 (+20.0 %); stock 8 → 0`) with each field named in
    /// `language`; the values as they are.
    public static func changes(_ text: String, _ language: Language) -> String {
        guard language == .ko, !text.isEmpty else { return text }
        return text.components(separatedBy: "; ").map { part in
            part.components(separatedBy: ", ").map { item in
                let words = item.split(separator: " ", maxSplits: 1).map(String.init)
                guard let first = words.first, let korean = fields[first] else { return item }
                return words.count > 1 ? "\(korean) \(words[1])" : korean
            }.joined(separator: ", ")
        }.joined(separator: "; ")
    }

    /// Why a run stopped, for the reasons openmarket itself gives (a reason with the server's
    /// words stays as it is).
    public static let stoppedFromConsole = "stopped from the console"
    public static let stoppedBySignal = "stopped by a signal"
    /// The start of the reason a run stopped for a server that stopped answering.
    public static let serverSilentPrefix = "the server stopped answering"
    static let stopReasons: [String: String] = [
        stoppedFromConsole: "콘솔에서 멈춤",
        stoppedBySignal: "신호(Ctrl-C 등)로 멈춤",
    ]

    public static func stopReason(_ english: String, _ language: Language) -> String {
        guard language == .ko else { return english }
        if let korean = stopReasons[english] { return korean }
        if english.hasPrefix(serverSilentPrefix + ":") {
            let count = english.dropFirst(serverSilentPrefix.count + 2).prefix { $0.isNumber }
            return "서버가 응답하지 않음: 쓰기 \(count)번이 연달아 응답이 없었습니다. 그 뒤의 행은 보내지 않았습니다. 서버가 응답하면 다시 실행하세요 (결과를 모르는 행은 먼저 서버에서 찾습니다)"
        }
        if english.hasPrefix("stopped after "), english.contains("(--max-errors ") {
            let failed = english.dropFirst("stopped after ".count).prefix { $0.isNumber }
            return "실패한 행이 \(failed)개가 되어 멈춤 (--max-errors)"
        }
        return english
    }
}
