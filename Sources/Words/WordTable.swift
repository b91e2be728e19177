/// Every word openmarket shows a merchant outside the terminal, in English and Korean side by
/// side (a word cannot be in one and missing from the other): the console's pages and the
/// run's reports (report.html, report.xlsx) read this one table. The statuses stay the CLI's own
/// words beside the Korean (`생성됨 (created)`): a merchant reading a report, a page and a
/// terminal reads one word for one thing.
public enum WordTable {
    /// The words of `language`, by key.
    public static func words(_ language: Language) -> [String: String] {
        table.mapValues { language == .ko ? $0.ko : $0.en }
    }

    /// One word; the key itself when the table has no such word (a test checks every key used).
    public static func text(_ key: String, _ language: Language) -> String {
        guard let pair = table[key] else { return key }
        return language == .ko ? pair.ko : pair.en
    }

    /// The page's and the report's words, one table.
    public static let table: [String: (en: String, ko: String)] = page.merging(report) { first, _ in first }

    /// The console's pages.
    static let page: [String: (en: String, ko: String)] = [
        "sheets": ("Sheets", "시트"),
        "built_in_sandbox": ("built-in sandbox", "내장 샌드박스"),
        "runs": ("Runs", "실행 기록"),
        "check": ("Check", "검사"),
        "plan": ("Plan", "미리보기"),
        "apply": ("Apply", "적용"),
        "undo": ("Undo", "되돌리기"),
        "stop": ("Stop", "중지"),
        "sheets_in": ("Sheets in", "시트 폴더"),
        "sheet": ("sheet", "시트"),
        "row": ("row", "행"),
        "column": ("column", "열"),
        "value": ("value", "값"),
        "rule": ("rule", "규칙"),
        "wrong": ("what is wrong", "문제"),
        "what": ("what", "내용"),
        "started": ("started", "시작"),
        "kind": ("kind", "종류"),
        "counts": ("counts", "결과"),
        "report": ("Report with photos", "사진이 있는 보고서"),
        "workbook": ("Report and rows to fix (.xlsx)", "보고서와 고칠 행 (.xlsx)"),
        "csv": ("Report (.csv)", "보고서 (.csv)"),
        "plan_undo": ("Plan the undo", "되돌리기 미리보기"),
        "apply_again": ("Apply again", "다시 적용"),
        "running": ("running now", "실행 중"),
        "open": ("open", "열기"),
        "export": ("Export the catalog (.csv)", "카탈로그 내보내기 (.csv)"),
        "no_sheets": ("No sheets (CSV, Excel, JSON, JSON Lines) in this folder.", "이 폴더에 시트(CSV, Excel, JSON, JSON Lines)가 없습니다."),
        "no_runs": ("No runs yet on this account.", "이 계정의 실행 기록이 아직 없습니다."),
        "report_short": ("report", "보고서"),
        "feeds": ("Feeds", "공급처 피드"),
        "feed": ("feed", "피드"),
        "source": ("source", "출처"),
        "schedule": ("schedule", "일정"),
        "last_runs": ("last run on each shop", "쇼핑몰별 마지막 실행"),
        "drop": ("Drop a sheet or a .zip of photos here, or pick files:", "시트나 사진 .zip 파일을 여기에 끌어다 놓거나 파일을 고르세요:"),
        "backups": ("Backups", "백업"),
        "backup_whole_path": ("give the folder's whole path (/… or ~/…), not '{}'", "폴더의 전체 경로(/… 또는 ~/…)를 쓰세요: '{}'이(가) 아닙니다"),
        "backup_a_file": ("{} is a file, not a folder", "{}은(는) 폴더가 아니라 파일입니다"),
        "backup_other_files": ("{} holds other files and no backups: pick an empty folder, a new one, or one `openmarket backup` made",
                               "{}에는 백업이 아닌 다른 파일이 있습니다: 빈 폴더, 새 폴더, 또는 openmarket 백업 폴더를 고르세요"),
        "backup_cannot_use": ("cannot use {}: {}", "{}을(를) 쓸 수 없습니다: {}"),
        "upload_kind": ("{}: drop a sheet (CSV, Excel, JSON, JSON Lines) or a .zip of photos", "{}: 시트(CSV, Excel, JSON, JSON Lines)나 사진 .zip 파일을 놓으세요"),
        "upload_cannot_write": ("cannot write in {}", "{}에 쓸 수 없습니다"),
        "upload_too_large": ("{}: larger than 1 GiB", "{}: 1 GiB보다 큽니다"),
        "upload_cannot_keep": ("cannot keep {} in {}: {}", "{}을(를) {}에 둘 수 없습니다: {}"),
        "upload_not_zip": ("{}: not a zip file", "{}: zip 파일이 아닙니다"),
        "upload_too_many": ("{}: more than {} files", "{}: 파일이 {}개보다 많습니다"),
        "upload_link": ("{}: {} is a link; only files are unpacked", "{}: {}은(는) 링크입니다; 파일만 풉니다"),
        "upload_outside": ("{}: {} would land outside the folder", "{}: {}이(가) 폴더 밖으로 풀립니다"),
        "upload_unpacked_too_large": ("{}: unpacks to more than 4 GiB", "{}: 풀면 4 GiB가 넘습니다"),
        "upload_entry_lies": ("{}: {} unpacks to more than the {} bytes its header says: refused, nothing kept",
                              "{}: {}이(가) 헤더에 적힌 {}바이트보다 크게 풀립니다: 거부했고 아무것도 남기지 않았습니다"),
        "upload_entry_damaged": ("{}: {} cannot be unpacked (the zip is damaged): nothing kept", "{}: {}을(를) 풀 수 없습니다 (zip이 손상됨): 아무것도 남기지 않았습니다"),
        "upload_renamed": ("{} was already in the folder and is kept as it was; the new one is {}",
                           "{}은(는) 폴더에 이미 있어 그대로 두었습니다; 새 파일은 {}입니다"),
        "upload_same": ("{} was already in the folder with the same content", "{}은(는) 같은 내용으로 폴더에 이미 있습니다"),
        "upload_decoded": ("names read as {} (not UTF-8): {}", "UTF-8이 아닌 {}(으)로 읽은 이름: {}"),
        "upload_show": ("Show the folder", "폴더 보기"),
        "export_refused": ("The shop refused this profile's credentials, so its products cannot be exported (an export of nothing would look like an empty shop). Check the profile's identifier and secret in the config file, then export again. The shop said: {}",
                           "쇼핑몰이 이 프로필의 자격 증명(식별자와 비밀키)을 거부해 상품을 내보낼 수 없습니다 (빈 파일을 내려받으면 쇼핑몰이 빈 것처럼 보입니다). 설정 파일의 프로필 식별자와 비밀키를 확인한 뒤 다시 내보내세요. 쇼핑몰의 답: {}"),
        "export_unreachable": ("The shop at {} does not answer, so nothing was exported; try again in a moment.",
                               "{}의 쇼핑몰이 응답하지 않아 아무것도 내보내지 않았습니다; 잠시 뒤 다시 시도하세요."),
        "export_failed": ("The export did not finish, so no file is given: {}", "내보내기가 끝나지 않아 파일을 드리지 않습니다: {}"),
        "no_repo": ("No backup folder yet: choose where the snapshots go (a new or empty folder, or one with backups).", "아직 백업 폴더가 없습니다: 스냅샷을 보관할 폴더를 고르세요 (새 폴더, 빈 폴더 또는 백업이 있는 폴더)."),
        "backup_folder": ("Backup folder", "백업 폴더"),
        "use_folder": ("Use this folder", "이 폴더 사용"),
        "no_snapshots": ("No snapshots yet in this folder: the button takes the first (the shop's products and photos, kept once).",
                         "이 폴더에 아직 스냅샷이 없습니다: 버튼을 누르면 첫 스냅샷을 만듭니다 (쇼핑몰의 상품과 사진, 한 번씩 보관)."),
        "snapshot_now": ("Take a snapshot now", "지금 스냅샷 만들기"),
        "diff": ("Diff", "비교"),
        "snapshot": ("snapshot", "스냅샷"),
        "products": ("products", "상품"),
        "new_products": ("new", "신규"),
        "added": ("added", "추가 용량"),
        "plan_restore": ("Plan the restore", "복원 미리보기"),
        "restore": ("Restore", "복원"),
        "run_now": ("Run now", "지금 실행"),
        "accept": ("Accept the held file and run", "보류된 파일 승인 후 실행"),
        "accept_prices": ("Send the held price changes too", "보류된 가격 변경도 보내기"),
        "ask_lead": ("This export does not say two things openmarket needs:", "이 파일에는 openmarket에 필요한 두 가지가 없습니다:"),
        "ask_currency": ("Its prices are in", "가격 통화"),
        "ask_stock": ("A new product sold without a count starts with", "수량 없이 판매 중인 새 상품의 재고"),
        "ask_plan": ("Plan with these", "이대로 미리보기"),
        "no_feeds": ("No feeds: put feed files (.toml) in the feeds folder.", "피드가 없습니다: 피드 폴더에 피드 파일(.toml)을 두세요."),
    ]
}
