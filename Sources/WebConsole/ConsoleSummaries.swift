import CatalogSync
import Foundation
import Manifest

/// What a check or a run came to, in the page's language. In Korean a status keeps the CLI's
/// word beside it (`생성 예정 20 (would-create)`): the report and the terminal say that word.
extension ConsoleWords {
    static let statuses: [String: String] = [
        "created": "생성됨", "updated": "수정됨", "unchanged": "변경 없음", "skipped": "제외됨", "failed": "실패",
        "replaced": "사진 교체됨", "linked": "연결됨", "deleted": "삭제됨", "restored": "복원됨",
        "would-create": "생성 예정", "would-update": "수정 예정", "would-delete": "삭제 예정", "would-restore": "복원 예정",
        "not-sent": "보내지 않음",
    ]

    /// `20 rows: 20 would-create (a plan: nothing was sent)`; `20행: 생성 예정 20 (would-create) (미리보기: …)`.
    static func pageLine(_ summary: SyncSummary, _ language: Language) -> String {
        guard language == .ko else { return summary.pageLine }
        let rank = Dictionary(uniqueKeysWithValues: RowOutcome.Status.summaryOrder.enumerated().map { ($1.rawValue, $0) })
        let counts = summary.counts.sorted { (rank[$0.key] ?? 99, $0.key) < (rank[$1.key] ?? 99, $1.key) }
            .map { "\(statuses[$0.key] ?? $0.key) \($0.value) (\($0.key == "not-sent" ? "not sent" : $0.key))" }
        var line = "\(summary.rows)행: " + (counts.isEmpty ? "할 일 없음" : counts.joined(separator: ", "))
        if summary.dryRun { line += " (미리보기: 쇼핑몰에 아무것도 보내지 않았습니다)" }
        if let stopped = summary.stopped { line += " — 멈춤 (\(stopped)); 남은 행은 다시 적용하면 처리됩니다" }
        return line
    }

    /// `14 rows: 12 valid, 2 with errors, 3 with warnings`; `14행: 정상 12, 오류 2, 경고 3`.
    static func checkLine(_ summary: ValidationSummary, _ language: Language) -> String {
        switch language {
        case .en: "\(summary.rows) rows: \(summary.valid) valid, \(summary.withErrors) with errors, \(summary.withWarnings) with warnings"
        case .ko: "\(summary.rows)행: 정상 \(summary.valid), 오류 \(summary.withErrors), 경고 \(summary.withWarnings)"
        }
    }

    /// A job's kind as a page's title names it.
    static func kind(_ kind: ConsoleJob.Kind, _ language: Language) -> String {
        guard language == .ko else { return kind.rawValue }
        return switch kind {
        case .plan: "미리보기"
        case .apply: "적용"
        case .undoPlan: "되돌리기 미리보기"
        case .undo: "되돌리기"
        case .feed: "피드 실행"
        case .backup: "백업"
        case .restorePlan: "복원 미리보기"
        case .restore: "복원"
        }
    }
}
