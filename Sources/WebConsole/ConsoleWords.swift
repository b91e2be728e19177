import Foundation
import Hummingbird

/// The console's words in English and Korean, as the CLI's reports are. The statuses stay the
/// CLI's own (`would-create`, `created`, `deleted`, `unchanged`, `failed`): a merchant reading a
/// report, a page and a terminal reads one word for one thing.
enum ConsoleWords {
    enum Language: String, Sendable { case en, ko }

    static let cookieName = "openmarket-console-language"

    /// The language asked for: the page's own choice (a cookie), else the browser's first.
    static func language(of request: Request) -> Language {
        if let chosen = Cookies.value(request, named: cookieName), let language = Language(rawValue: chosen) {
            return language
        }
        let accepted = request.headers[.acceptLanguage] ?? ""
        return accepted.lowercased().hasPrefix("ko") ? .ko : .en
    }

    static func words(_ language: Language) -> [String: String] {
        language == .ko ? korean : english
    }

    static let english: [String: String] = [
        "sheets": "Sheets", "runs": "Runs", "check": "Check", "plan": "Plan", "apply": "Apply", "undo": "Undo",
        "stop": "Stop", "sheets_in": "Sheets in", "sheet": "sheet", "row": "row", "column": "column", "value": "value",
        "rule": "rule", "wrong": "what is wrong", "status": "status", "key": "key", "name": "name", "what": "what",
        "started": "started", "kind": "kind", "counts": "counts", "report": "Report with photos",
        "workbook": "Report and rows to fix (.xlsx)", "csv": "Report (.csv)", "plan_undo": "Plan the undo",
        "apply_again": "Apply again", "running": "running now", "open": "open", "did_not_finish": "did not finish",
        "export": "Export the catalog (.csv)", "no_sheets": "No sheets (CSV, Excel, JSON, JSON Lines) in this folder.",
        "no_runs": "No runs yet on this account.", "report_short": "report",
        "feeds": "Feeds", "feed": "feed", "source": "source", "schedule": "schedule", "last_runs": "last run on each shop",
        "drop": "Drop a sheet or a .zip of photos here, or pick files:",
        "backups": "Backups", "no_repo": "No backup repository: start the console with --repo DIR (a folder `openmarket backup` made or will make).",
        "snapshot_now": "Take a snapshot now", "diff": "Diff", "snapshot": "snapshot", "products": "products", "new_products": "new",
        "added": "added", "plan_restore": "Plan the restore", "restore": "Restore",
        "run_now": "Run now", "accept": "Accept the held file and run", "no_feeds": "No feeds: put feed files (.toml) in the feeds folder.",
    ]

    static let korean: [String: String] = [
        "sheets": "시트", "runs": "실행 기록", "check": "검사", "plan": "미리보기", "apply": "적용", "undo": "되돌리기",
        "stop": "중지", "sheets_in": "시트 폴더", "sheet": "시트", "row": "행", "column": "열", "value": "값",
        "rule": "규칙", "wrong": "문제", "status": "상태", "key": "상품 키", "name": "상품명", "what": "내용",
        "started": "시작", "kind": "종류", "counts": "결과", "report": "사진이 있는 보고서",
        "workbook": "보고서와 고칠 행 (.xlsx)", "csv": "보고서 (.csv)", "plan_undo": "되돌리기 미리보기",
        "apply_again": "다시 적용", "running": "실행 중", "open": "열기", "did_not_finish": "끝나지 않음",
        "export": "카탈로그 내보내기 (.csv)", "no_sheets": "이 폴더에 시트(CSV, Excel, JSON, JSON Lines)가 없습니다.",
        "no_runs": "이 계정의 실행 기록이 아직 없습니다.", "report_short": "보고서",
        "feeds": "공급처 피드", "feed": "피드", "source": "출처", "schedule": "일정", "last_runs": "쇼핑몰별 마지막 실행",
        "drop": "시트나 사진 .zip 파일을 여기에 끌어다 놓거나 파일을 고르세요:",
        "backups": "백업", "no_repo": "백업 저장소가 없습니다: --repo 폴더를 주고 콘솔을 시작하세요.",
        "snapshot_now": "지금 스냅샷 만들기", "diff": "비교", "snapshot": "스냅샷", "products": "상품", "new_products": "신규",
        "added": "추가 용량", "plan_restore": "복원 미리보기", "restore": "복원",
        "run_now": "지금 실행", "accept": "보류된 파일 승인 후 실행", "no_feeds": "피드가 없습니다: 피드 폴더에 피드 파일(.toml)을 두세요.",
    ]
}
