import ArgumentParser
import FeedRuns
import Feeds
import Foundation
import Support

struct FeedScheduleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Run a feed by itself: a systemd user timer, or the crontab line to add.",
        discussion: """
            Writes openmarket-feed-NAME.service and .timer in ~/.config/systemd/user/ (the \
            service runs `openmarket feed run FEED`; the timer catches up a run missed while the \
            machine was off) and enables the timer when a user systemd runs; otherwise prints \
            the crontab line that does the same (`crontab -e` to add it). --remove takes it away.

            Examples:
              openmarket feed schedule acme --daily 03:00
              openmarket feed schedule acme --every 2h
              openmarket feed schedule acme --remove
            """)

    @Argument(help: ArgumentHelp("The feed file: a path, or a name in ~/.config/openmarket/feeds/.", valueName: "FEED"))
    var feed: String

    @Option(name: .long, help: ArgumentHelp("Every day at this local time.", valueName: "HH:MM"))
    var daily: String?

    @Option(name: .long, help: ArgumentHelp("Every 15m, 30m, 1h, 2h, 6h… (minutes dividing an hour, hours dividing a day).", valueName: "interval"))
    var every: String?

    @Flag(name: .long, help: "Remove the feed's timer and service.")
    var remove = false

    func validate() throws {
        let given = [daily != nil, every != nil, remove].filter { $0 }.count
        guard given == 1 else { throw ValidationError("give one of --daily HH:MM, --every INTERVAL and --remove") }
        if let daily, FeedSchedule.daily(daily) == nil { throw ValidationError("--daily is a time of day, HH:MM (03:00)") }
        if let every, FeedSchedule.every(every) == nil {
            throw ValidationError("--every is minutes dividing an hour (15m, 30m) or hours dividing a day (1h, 2h, 6h)")
        }
    }

    func run() throws {
        let url = FeedFile.locate(feed).standardizedFileURL
        let loaded: Feed
        do { loaded = try FeedFile.load(url) } catch { throw reportFailure(CommandFailure(error.description, exitCode: 2)) }
        if loaded.run.source == nil && !remove {
            throw reportFailure(CommandFailure("\(url.path) has no [source]: a scheduled run needs to fetch the file itself (url = \"https://…\", sftp://…, or path = \"/…\")", exitCode: 2))
        }
        let when = daily.flatMap(FeedSchedule.daily) ?? every.flatMap(FeedSchedule.every) ?? .every(minutes: 60)
        let schedule = FeedSchedule(name: loaded.name, feedFile: url, binary: Self.binary, when: when)
        let folder = FeedSchedule.unitFolder
        let service = folder.appendingPathComponent(schedule.unitName + ".service")
        let timer = folder.appendingPathComponent(schedule.unitName + ".timer")
        let log = UserFolders.state.appendingPathComponent("feeds/\(loaded.name).log")
        let systemd = Self.userSystemd()
        if remove {
            if systemd { _ = Self.systemctl(["disable", "--now", schedule.unitName + ".timer"]) }
            try? FileManager.default.removeItem(at: service)
            try? FileManager.default.removeItem(at: timer)
            if systemd { _ = Self.systemctl(["daemon-reload"]) }
            Console.line("Removed \(timer.path) and its service.")
            if !systemd { Console.line("If you added a crontab line for it, remove it too (`crontab -e`): the line ends with `feed run \(url.path) …`") }
            return
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try schedule.serviceText().write(to: service, atomically: true, encoding: .utf8)
        try schedule.timerText.write(to: timer, atomically: true, encoding: .utf8)
        Console.line("Wrote \(service.path)\nWrote \(timer.path) (OnCalendar=\(schedule.onCalendar))")
        if systemd, Self.systemctl(["daemon-reload"]), Self.systemctl(["enable", "--now", schedule.unitName + ".timer"]) {
            Console.line("Enabled: `systemctl --user list-timers` shows when it runs next; `journalctl --user -u \(schedule.unitName)` what it said.")
            Console.line("For runs while you are logged out: `loginctl enable-linger \(NSUserName())`.")
        } else {
            try? FileManager.default.createDirectory(at: log.deletingLastPathComponent(), withIntermediateDirectories: true)
            Console.line("No user systemd runs here: add this line with `crontab -e` instead:")
            Console.line(schedule.cronLine(log: log))
        }
    }

    /// This program, as a timer must start it.
    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0].contains("/") ? CommandLine.arguments[0] : "/proc/self/exe").resolvingSymlinksInPath()
    }

    /// Whether `systemctl --user` has a manager to talk to.
    static func userSystemd() -> Bool {
        let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? "/run/user/\(getuid())"
        return FileManager.default.fileExists(atPath: "/run/systemd/system") && FileManager.default.fileExists(atPath: runtime + "/systemd")
    }

    static func systemctl(_ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/systemctl")
        process.arguments = ["--user"] + arguments
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
