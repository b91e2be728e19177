import Foundation
import Support
import Words

/// The progress line of a long command: redrawn in place on a terminal; with
/// `quiet` or when stderr is not a terminal, a line per 10 %; with `json`, a
/// JSON object per 10 %. A command with several phases (listing, then
/// products) names them: each phase starts its own count and rate.
final class ProgressLine: @unchecked Sendable {
    private let lock = NSLock()
    private let tty = isatty(STDERR_FILENO) == 1
    private let quiet: Bool
    private let json: Bool
    private let colour = ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    private var phase: String?
    private var started = Date()
    private var updated = false
    private var lastDraw = Date.distantPast
    private var lastDecile = -1
    private var drawn = false
    /// A word on the run's state, shown after the counts (`12 in flight`).
    var detail: (@Sendable () -> String)? {
        get { lock.withLock { detailText } }
        set { lock.withLock { detailText = newValue } }
    }
    private var detailText: (@Sendable () -> String)?

    /// Whether the line is redrawn in place (a terminal, not quiet): only then is a rate shown as it goes.
    var isRedrawn: Bool { tty && !quiet && !json }

    init(quiet: Bool, json: Bool = false) {
        self.quiet = quiet
        self.json = json
    }

    func update(_ phase: String? = nil, done: Int, total: Int, failed: Int = 0, unit: String? = nil) {
        let unit = unit ?? Console.say("t_rows")
        lock.lock()
        defer { lock.unlock() }
        if phase != self.phase || !updated {
            endLine()
            self.phase = phase
            // From the first row, not from the line's making: reading the shop before the rows
            // (a second on a loaded machine) is no time of theirs.
            started = Date()
            lastDecile = -1
            updated = true
        }
        let elapsed = Date().timeIntervalSince(started)
        let pace = ProgressPace(done: done, total: total, elapsed: elapsed)
        let rate = pace.rate
        let rateText = rate > 0 ? " \(String(format: "%.1f", rate))/s," : ""
        let percent = total > 0 ? min(100, done * 100 / total) : 100
        let label = phase.map { "\($0): " } ?? ""
        if tty && !quiet && !json {
            guard Date().timeIntervalSince(lastDraw) > 0.1 || done == total else { return }
            lastDraw = Date()
            drawn = true
            let failedText = Console.say("t_failed_count", String(failed))
            let failures = failed > 0 ? (colour ? " \u{1B}[31m\(failedText)\u{1B}[0m" : " \(failedText)") : ""
            let extra = detailText.map { " " + $0() + "," } ?? ""
            Console.err(Data(
                "\r\u{1B}[2K\(label)\(done)/\(total) \(unit) (\(percent)%)\(extra)\(rateText) \(pace.secondsLeft.map { Console.say("t_left", WordTable.duration($0, Console.language)) } ?? "")\(failures)".utf8))
            return
        }
        // A run over in under a second needs no progress, only its end (not eleven lines in 0.1 s).
        if !json && elapsed < 1 && done < total { return }
        let decile = percent / 10
        guard decile > lastDecile || (json && done == total) else { return }
        lastDecile = decile
        if json {
            let phaseField = phase.map { ",\"phase\":\"\($0)\"" } ?? ""
            Console.error("{\"event\":\"progress\"\(phaseField),\"done\":\(done),\"total\":\(total),\"failed\":\(failed),\"rows_per_second\":\(String(format: "%.2f", rate))}")
        } else {
            let left = done < total ? pace.secondsLeft.map { Console.say("t_progress_left", WordTable.duration($0, Console.language)) } ?? "" : ""
            let extra = detailText.map { ", " + $0() } ?? ""
            Console.error(label + Console.say("t_progress", String(done), String(total), unit, String(percent), String(failed), extra,
                                              rate > 0 ? ", " + String(format: "%.1f", rate) + "/s" : "", left))
        }
    }

    /// A count with no known total (rows read so far): redrawn on a terminal only.
    func counting(_ label: String, done: Int, unit: String) {
        lock.lock()
        defer { lock.unlock() }
        guard tty && !quiet && !json, Date().timeIntervalSince(lastDraw) > 0.2 else { return }
        if !drawn { started = Date() }
        lastDraw = Date()
        drawn = true
        let elapsed = Date().timeIntervalSince(started)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        Console.err(Data("\r\u{1B}[2K\(label): \(done) \(unit), \(String(format: "%.0f", rate))/s".utf8))
    }

    /// Removes a line redrawn in place (before other output is printed; the next update redraws it).
    func clear() {
        lock.lock()
        if drawn { Console.err(Data("\r\u{1B}[2K".utf8)) }
        drawn = false
        lock.unlock()
    }

    func finish() {
        lock.lock()
        endLine()
        lock.unlock()
    }

    /// Ends a line redrawn in place, so that what follows starts on its own line.
    private func endLine() {
        if drawn { Console.err(Data("\n".utf8)) }
        drawn = false
    }
}
