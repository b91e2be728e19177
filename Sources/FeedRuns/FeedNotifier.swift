import Feeds
import Foundation
import Support
import OpenMarketAPI

/// Tells a feed's `[notify]` what happened: a webhook (a JSON POST, `{"text": …}` as Slack
/// takes it) and/or a command (the text on its standard input). A notification that fails
/// is reported by the run, never fails it.
struct FeedNotifier {
    let notify: FeedNotify
    var settings = TransportSettings()
    /// A command that has not ended by then is stopped.
    var commandTimeout: Double = 30

    /// Sends `text`; what could not be sent, one line each.
    func send(_ text: String) -> [String] {
        var problems: [String] = []
        if let hook = notify.webhook {
            do {
                let body = try JSONSerialization.data(withJSONObject: ["text": text], options: [.withoutEscapingSlashes])
                try SourceFetch.post(json: body, to: hook, settings: settings)
            } catch {
                problems.append("the webhook was not told: \(error)")
            }
        }
        if let command = notify.command, let problem = run(command, input: text) { problems.append(problem) }
        return problems
    }

    private func run(_ command: String, input: String) -> String? {
        let stdin = Pipe()
        let process: ChildProcess
        do {
            process = try ChildProcess("/bin/sh", ["-c", command], input: stdin.fileHandleForReading.fileDescriptor)
        } catch {
            return "the notify command could not start: \(error)"
        }
        try? stdin.fileHandleForReading.close()
        // A command that does not read its input must not end this process with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        try? stdin.fileHandleForWriting.write(contentsOf: Data((input + "\n").utf8))
        try? stdin.fileHandleForWriting.close()
        guard let status = process.wait(seconds: commandTimeout) else {
            process.signal(SIGKILL)
            return "the notify command did not end within \(Int(commandTimeout)) s: stopped"
        }
        return status == 0 ? nil : "the notify command ended with status \(status)"
    }
}
