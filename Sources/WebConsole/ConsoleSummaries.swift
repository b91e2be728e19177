import CatalogSync
import Foundation
import Manifest
import ShopState
import Support
import Words

/// What a check or a run came to, in the page's language. In Korean a status keeps the CLI's
/// word beside it (`생성 예정 20 (would-create)`): the report and the terminal say that word.
extension ConsoleWords {
    /// `20 rows: 20 would-create (a plan: nothing was sent)`; `20행: 생성 예정 20 (would-create) (미리보기: …)`.
    static func pageLine(_ summary: SyncSummary, _ language: Language) -> String {
        guard language == .ko else { return summary.pageLine }
        var line = summary.countsPhrase.text(.ko)
        if summary.dryRun { line += " (미리보기: 쇼핑몰에 아무것도 보내지 않았습니다)" }
        if let stopped = summary.stopped { line += " — 멈춤 (\(StatusWords.stopReason(stopped, .ko))); 남은 행은 다시 적용하면 처리됩니다" }
        return line
    }

    /// `14 rows: 12 valid, 2 with errors, 3 with warnings`; `14행: 정상 12, 오류 2, 경고 3`.
    static func checkLine(_ summary: ValidationSummary, _ language: Language) -> String {
        switch language {
        case .en: "\(summary.rows) rows: \(summary.valid) valid, \(summary.withErrors) with errors, \(summary.withWarnings) with warnings"
            + (summary.updateOnly > 0 ? ", \(summary.updateOnly) only as updates (as new products they lack what the warnings say)" : "")
        case .ko: "\(summary.rows)행: 정상 \(summary.valid), 오류 \(summary.withErrors), 경고 \(summary.withWarnings)"
            + (summary.updateOnly > 0 ? ", 수정만 가능 \(summary.updateOnly) (새 상품이 되려면 경고에 적힌 것이 필요합니다)" : "")
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

    /// A run's kind on the Runs page: `import`; `가져오기 (import)`.
    static func runKind(_ kind: RunKind, _ language: Language) -> String {
        guard language == .ko else { return kind.rawValue }
        let korean = switch kind {
        case .import: "가져오기"
        case .feed: "피드"
        case .restore: "복원"
        case .migrate: "옮기기"
        case .delete: "삭제"
        case .undo: "되돌리기"
        }
        return "\(korean) (\(kind.rawValue))"
    }

    /// A run's counts on the Runs page: `20 created`; `생성됨 20 (created)`.
    static func counts(_ counts: [String: Int], _ language: Language) -> String {
        guard language == .ko else { return ListedRun.countsText(counts) }
        return counts.sorted { $0.key < $1.key }.map { StatusWords.count($0.key, $0.value, .ko) }.joined(separator: ", ")
    }

    /// A running job's line: `7/8 rows (87%), 4 in flight, 12.3/s, 1 s left, 0 failed`.
    static func progressLine(_ progress: ConsoleJob.Progress, _ language: Language) -> String {
        guard language == .ko else { return progress.line }
        let percent = progress.total > 0 ? min(100, progress.done * 100 / progress.total) : 0
        var parts = [progress.total > 0 ? "\(progress.done)/\(progress.total)행 (\(percent)%)" : "쇼핑몰 읽는 중"]
        if let inFlight = progress.inFlight { parts.append("동시에 \(inFlight)개") }
        if progress.rate > 0 { parts.append(String(format: "초당 %.1f개", progress.rate)) }
        if let left = progress.secondsLeft { parts.append("남은 시간 \(DurationText.of(left))") }
        parts.append("실패 \(progress.failed)")
        if progress.stopping && !progress.ended { parts.append("멈추는 중: 보내고 있는 행은 끝냅니다") }
        return parts.joined(separator: ", ")
    }
}
