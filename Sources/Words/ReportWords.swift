import Foundation

extension WordTable {
    /// The report's words (report.html, report.xlsx). `{}` is where a number or a name goes
    /// (`filled`).
    static let report: [String: (en: String, ko: String)] = [
        "report_title": ("openmarket report", "openmarket 보고서"),
        "report_import_of": ("Import of {}", "{} 가져오기"),
        "report_undo_of": ("Undo of {}", "{} 되돌리기"),
        "report_plan": ("the plan (dry run: nothing was written)", "미리보기 (쇼핑몰에 아무것도 쓰지 않았습니다)"),
        "report_mode": ("mode {}", "방식 {}"),
        "mode_sync": ("sync", "동기화 (sync)"),
        "mode_create": ("create", "새로 만들기만 (create)"),
        "mode_update": ("update", "수정만 (update)"),
        "report_rows": ("{} rows", "{}행"),
        "report_seconds": ("{} s", "{}초"),
        "report_rate": ("{} products/s", "초당 {}개"),
        "report_in_flight": ("{} in flight", "동시에 {}개"),
        "report_stopped": ("stopped: {}", "멈춤: {}"),
        "report_deletes_refused": ("Nothing deleted: {}", "아무것도 지우지 않았습니다: {}"),
        "report_shop_copies": ("The shop holds {} product(s) that look like second copies of a row's product (same name and price, made within an hour of it, linked to no key): {}. The rows' notes name them; `openmarket delete` removes them (recorded: undo brings them back).",
                               "행의 상품과 이름·가격이 같고 한 시간 안에 만들어졌으며 어느 상품코드에도 연결되지 않은 상품이 {}개 있습니다 (두 번 만들어진 것일 수 있음): {}. 행의 메모에 나옵니다. `openmarket delete`로 지울 수 있습니다 (기록되므로 undo로 되살릴 수 있습니다)."),
        "report_failed_rows": ("Failed rows ({}) — fix these and run the same command again", "실패한 행 ({}) — 고친 뒤 같은 명령을 다시 실행하세요"),
        "report_failed_rows_page": ("Failed rows ({}) — fix these in the sheet and apply it again", "실패한 행 ({}) — 시트에서 고친 뒤 다시 적용하세요"),
        "report_row": ("Row", "행"),
        "report_key": ("Key", "상품코드"),
        "report_name": ("Name", "상품명"),
        "report_reason": ("Reason", "이유"),
        "report_values": ("Values", "값"),
        "report_product": ("Product", "상품"),
        "report_changes": ("Changes", "변경 내용"),
        "report_note": ("Note", "메모"),
        "report_more": ("… and {} more: see report.csv.", "… 외 {}개: report.csv를 보세요."),
        "report_keys_gone": ("{}: keys no longer in the file", "{}: 파일에 더 이상 없는 상품코드"),
        "report_undo_made": ("{}: made by the run taken back", "{}: 되돌리는 실행이 만든 상품"),
        "report_no_key": ("{}: products no key names", "{}: 상품코드가 없는 상품"),
        "report_file": ("file", "파일"),
        "section_would-update": ("Would update", "수정 예정"),
        "section_updated": ("Updated", "수정됨"),
        "section_would-restore": ("Would restore", "복원 예정"),
        "section_restored": ("Restored", "복원됨"),
        "section_would-create": ("Would create", "생성 예정"),
        "section_created": ("Created", "생성됨"),
        "section_replaced": ("Replaced (new photos)", "사진 교체됨 (새 상품으로)"),
        "section_would-delete": ("Would delete", "삭제 예정"),
        "section_deleted": ("Deleted", "삭제됨"),
        "section_linked": ("Linked to an existing product", "기존 상품에 연결됨"),
        "section_skipped": ("Skipped", "제외됨"),
        "section_not-sent": ("Not sent (the run stopped first: the same command again sends them)", "보내지 않음 (실행이 먼저 멈춤: 같은 명령을 다시 실행하면 보냅니다)"),
        "section_unchanged": ("Unchanged", "변경 없음"),
        "section_failed": ("Failed", "실패"),
        "nothing_to_do": ("nothing to do", "할 일 없음"),
        "feed_not_data": ("the source sent an HTML page, not a feed (a login or error page?); nothing was sent",
                          "공급처가 피드가 아닌 웹 페이지(로그인이나 오류 페이지?)를 보냈습니다; 아무것도 보내지 않았습니다"),
        "feed_columns": ("the file lacks columns of the feed's [columns]: {}; nothing was sent",
                         "파일에 피드의 [columns] 열이 없습니다: {}; 아무것도 보내지 않았습니다"),
        "feed_unreadable": ("the file cannot be read: {}", "파일을 읽을 수 없습니다: {}"),
        "feed_min_rows": ("the file has {} rows, fewer than min_rows {}; nothing was sent",
                          "파일에 {}행뿐입니다 (min_rows {}보다 적음); 아무것도 보내지 않았습니다"),
        "feed_max_drop": ("{} rows against {} in the last file that ran (-{} %), more than max_drop_percent {}; nothing was sent",
                          "{}행입니다 (마지막으로 실행한 파일은 {}행, -{} %): max_drop_percent {}를 넘어 아무것도 보내지 않았습니다"),
        "feed_max_changed": ("{} of {} rows changed, new or gone since the last file that ran ({} %), more than max_changed_percent {}; nothing was sent",
                             "{}/{}행이 마지막으로 실행한 파일과 다릅니다 (바뀜, 새로 생김, 사라짐: {} %): max_changed_percent {}를 넘어 아무것도 보내지 않았습니다"),
        "feed_unchanged": ("the source is the file that ran last time; nothing read or sent", "지난번에 실행한 파일과 같습니다; 읽거나 보낸 것이 없습니다"),
        "outcome_done": ("done", "완료 (done)"),
        "outcome_unchanged": ("unchanged", "변경 없음 (unchanged)"),
        "outcome_rows-failed": ("rows-failed", "일부 행 실패 (rows-failed)"),
        "outcome_held": ("held", "보류됨 (held)"),
        "outcome_busy": ("busy", "다른 실행 중 (busy)"),
        "outcome_unreachable": ("unreachable", "가져올 수 없음 (unreachable)"),
        "outcome_failed": ("failed", "실패 (failed)"),
        "outcome_never": ("never run", "아직 실행 안 함"),
        "backup_done": ("snapshot {}: {} products ({} new, {} photos added), {} added in {} s",
                        "스냅샷 {}: 상품 {}개 (신규 {}, 사진 {}장 추가), {} 추가, {}초"),
        "backup_diff": ("{} created, {} deleted, {} changed", "생성 {}, 삭제 {}, 변경 {}"),
        "sheet_fix": ("Fix and import", "고쳐서 가져오기"),
        "sheet_all": ("All rows", "모든 행"),
        "cell_row": ("row", "행"),
        "cell_key": ("key", "상품코드"),
        "cell_name": ("name", "상품명"),
        "cell_status": ("status", "상태"),
        "cell_product_id": ("product_id", "상품번호"),
        "cell_changes": ("changes", "변경 내용"),
        "cell_error": ("error", "오류"),
        "cell_attempts": ("attempts", "시도 횟수"),
        "cell_note": ("note", "메모"),
        "cell_errors": ("errors", "오류"),
    ]

    /// A word with its blanks filled in order: `filled("report_rows", .ko, "20")` is `20행`.
    public static func filled(_ key: String, _ language: Language, _ values: String...) -> String {
        filled(key, language, values)
    }

    /// `{}` blanks take the values in order; `{1}`, `{2}`… name them, for a language whose
    /// words come in another order.
    public static func filled(_ key: String, _ language: Language, _ values: [String]) -> String {
        let template = text(key, language)
        if template.contains("{1}") || template.contains("{2}") || template.contains("{3}") {
            var said = template
            for (index, value) in values.enumerated().reversed() { said = said.replacingOccurrences(of: "{\(index + 1)}", with: value) }
            return said
        }
        var text = Substring(template)
        var said = ""
        for value in values {
            guard let blank = text.range(of: "{}") else { break }
            said += text[..<blank.lowerBound] + value
            text = text[blank.upperBound...]
        }
        return said + text
    }
}
