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
        var line = language == .en ? summary.countsLine : summary.countsPhrase.text(language)
        if summary.dryRun { line += WordTable.text("p_plan_sent_nothing", language) }
        if let stopped = summary.stopText(language) { line += WordTable.filled("p_stopped", language, stopped) }
        return line
    }

    /// `14 rows: 12 valid, 2 with errors, 3 with warnings`; `14행: 정상 12, 오류 2, 경고 3`.
    static func checkLine(_ summary: ValidationSummary, _ language: Language) -> String {
        WordTable.filled("p_check", language, [summary.rows, summary.valid, summary.withErrors, summary.withWarnings].map(String.init))
            + (summary.updateOnly > 0 ? WordTable.filled("p_check_update_only", language, String(summary.updateOnly)) : "")
            + (summary.skipped > 0 ? WordTable.filled("p_check_skipped", language, String(summary.skipped)) : "")
            + (summary.offSale > 0 ? WordTable.filled("p_check_off_sale", language, String(summary.offSale)) : "")
    }

    /// A job's kind as a page's title names it.
    static func kind(_ kind: ConsoleJob.Kind, _ language: Language) -> String {
        WordTable.text("job_\(kind)", language)
    }

    /// A run's kind on the Runs page: `import`; `가져오기 (import)`.
    static func runKind(_ kind: RunKind, _ language: Language) -> String {
        StatusWords.labelled("run_\(kind.rawValue)", kind.rawValue, language)
    }

    /// A run's counts on the Runs page: `20 created`; `생성됨 20 (created)`.
    static func counts(_ counts: [String: Int], _ language: Language) -> String {
        counts.sorted { $0.key < $1.key }.map { StatusWords.count($0.key, $0.value, language) }.joined(separator: ", ")
    }

    /// A running job's line: `7/8 rows (87%), 4 in flight, 12.3/s, 1 s left, 0 failed`.
    static func progressLine(_ progress: ConsoleJob.Progress, _ language: Language) -> String {
        let percent = progress.total > 0 ? min(100, progress.done * 100 / progress.total) : 0
        var parts = [progress.total > 0 ? WordTable.filled("p_progress_rows", language, String(progress.done), String(progress.total), String(percent))
                                        : WordTable.text("p_reading_shop", language)]
        if let inFlight = progress.inFlight { parts.append(WordTable.filled("report_in_flight", language, String(inFlight))) }
        if progress.rate > 0 { parts.append(WordTable.filled("p_rate", language, String(format: "%.1f", progress.rate))) }
        if let left = progress.secondsLeft { parts.append(WordTable.filled("t_left", language, WordTable.duration(left, language))) }
        parts.append(WordTable.filled("t_failed_count", language, String(progress.failed)))
        if progress.stopping && !progress.ended { parts.append(WordTable.text("p_stopping", language)) }
        return parts.joined(separator: ", ")
    }
}
