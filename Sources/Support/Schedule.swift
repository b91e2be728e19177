import Foundation

/// A command openmarket runs by itself (a feed's `feed run`, a repository's `backup`): a
/// systemd user timer and its service where a user systemd runs, else a crontab line.
public struct Schedule: Sendable, Equatable {
    public enum When: Sendable, Equatable {
        /// Every day at this hour and minute (local time).
        case daily(hour: Int, minute: Int)
        /// Every this many minutes (a divisor of 60) or hours (a divisor of 24).
        case every(minutes: Int)
    }

    /// `feed` or `backup`: the units are `openmarket-KIND-NAME`.
    public var kind: String
    public var name: String
    /// What follows the binary: `feed run /path/acme.toml`.
    public var arguments: [String]
    public var binary: URL
    public var when: When

    public init(kind: String, name: String, arguments: [String], binary: URL, when: When) {
        self.kind = kind
        self.name = name
        self.arguments = arguments
        self.binary = binary
        self.when = when
    }

    private var commandLine: String { ([binary.path] + arguments).map(Self.quoted).joined(separator: " ") }

    /// `03:00` → daily at 3:00.
    public static func daily(_ text: String) -> When? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute) else {
            return nil
        }
        return .daily(hour: hour, minute: minute)
    }

    /// `30m`, `2h`: minutes dividing an hour, or hours dividing a day (a timer that fires at
    /// the same times every day).
    public static func every(_ text: String) -> When? {
        guard let unit = text.last, let count = Int(text.dropLast()), count > 0 else { return nil }
        switch unit {
        case "m" where 60 % count == 0: return .every(minutes: count)
        case "h" where 24 % count == 0: return .every(minutes: count * 60)
        default: return nil
        }
    }

    /// `openmarket-feed-acme`.
    public var unitName: String { Self.unitName(kind: kind, name: name) }

    static func unitName(kind: String, name: String) -> String {
        "openmarket-\(kind)-\(name.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || "-_".unicodeScalars.contains($0) ? String($0) : "_" }.joined())"
    }

    /// systemd's calendar expression.
    public var onCalendar: String {
        switch when {
        case .daily(let hour, let minute): String(format: "*-*-* %02d:%02d:00", hour, minute)
        case .every(let minutes) where minutes % 60 == 0: "*-*-* 00/\(minutes / 60):00:00"
        case .every(let minutes): "*-*-* *:00/\(minutes):00"
        }
    }

    /// The folders openmarket was given when scheduled, which a timer's run must be given too.
    static let folderVariables = ["XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"]

    /// The crontab line that does the same (its output appended to the feed's log), with the
    /// same folders as the service (cron starts commands with an almost empty environment).
    public func cronLine(log: URL, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let folders = Self.folderVariables.compactMap { key in environment[key].map { "\(key)=\(Self.quoted($0)) " } }.joined()
        let times = switch when {
        case .daily(let hour, let minute): "\(minute) \(hour) * * *"
        case .every(let minutes) where minutes % 60 == 0: "0 \(minutes == 1440 ? "0" : "*/\(minutes / 60)") * * *"
        case .every(let minutes): "*/\(minutes) * * * *"
        }
        return "\(times) \(folders)\(commandLine) >> \(Self.quoted(log.path)) 2>&1"
    }

    /// The service: one `feed run`, with the folders openmarket was given when scheduled.
    public func serviceText(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        var lines = ["[Unit]", "Description=openmarket \(kind) \(name)", "After=network-online.target", "Wants=network-online.target", "",
                     "[Service]", "Type=oneshot"]
        for key in Self.folderVariables {
            if let value = environment[key] { lines.append("Environment=\(key)=\(Self.quoted(value))") }
        }
        lines.append("ExecStart=\(commandLine)")
        return lines.joined(separator: "\n") + "\n"
    }

    public var timerText: String {
        ["[Unit]", "Description=openmarket \(kind) \(name), on schedule", "", "[Timer]", "OnCalendar=\(onCalendar)",
         "Persistent=true", "RandomizedDelaySec=60", "", "[Install]", "WantedBy=timers.target", ""].joined(separator: "\n")
    }

    /// Where the user's systemd units live.
    /// `$XDG_CONFIG_HOME/systemd/user` (beside openmarket's own config folder).
    public static var unitFolder: URL { UserFolders.config.deletingLastPathComponent().appendingPathComponent("systemd/user") }

    /// The schedule a timer file says, for `feed list` (`OnCalendar=…`), or nil.
    public static func installed(kind: String, name: String) -> String? {
        let timer = unitFolder.appendingPathComponent(unitName(kind: kind, name: name) + ".timer")
        guard let text = try? String(contentsOf: timer, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix("OnCalendar=") }.map { "timer " + $0.dropFirst("OnCalendar=".count) }
    }

    static func quoted(_ text: String) -> String {
        text.contains(where: { $0 == " " || $0 == "\"" || $0 == "'" || $0 == "\\" }) ? "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" : text
    }
}
