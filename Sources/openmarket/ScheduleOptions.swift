import ArgumentParser
import Foundation
import Support

/// `--daily HH:MM | --every INTERVAL | --remove`: shared by `feed schedule` and `backup`.
struct ScheduleOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Every day at this local time.", valueName: "HH:MM"))
    var daily: String?

    @Option(name: .long, help: ArgumentHelp("Every 15m, 30m, 1h, 2h, 6h… (minutes dividing an hour, hours dividing a day).", valueName: "interval"))
    var every: String?

    @Flag(name: .long, help: "Remove the timer and its service.")
    var remove = false

    var isGiven: Bool { daily != nil || every != nil || remove }

    func validate() throws {
        guard [daily != nil, every != nil, remove].filter({ $0 }).count <= 1 else {
            throw ValidationError(Console.say("arg_schedule"))
        }
        if let daily, Schedule.daily(daily) == nil { throw ValidationError(Console.say("arg_daily")) }
        if let every, Schedule.every(every) == nil {
            throw ValidationError(Console.say("arg_every"))
        }
    }

    var when: Schedule.When { daily.flatMap(Schedule.daily) ?? every.flatMap(Schedule.every) ?? .every(minutes: 60) }

    /// Writes (or with --remove takes away) the timer and service, enables them when a user
    /// systemd runs, else prints the crontab line. `log`: where a cron run's output goes.
    func apply(_ schedule: Schedule, log: URL) throws {
        let folder = Schedule.unitFolder
        let service = folder.appendingPathComponent(schedule.unitName + ".service")
        let timer = folder.appendingPathComponent(schedule.unitName + ".timer")
        let systemd = Self.userSystemd()
        if remove {
            if systemd { _ = Self.systemctl(["disable", "--now", schedule.unitName + ".timer"]) }
            try? FileManager.default.removeItem(at: service)
            try? FileManager.default.removeItem(at: timer)
            if systemd { _ = Self.systemctl(["daemon-reload"]) }
            Console.line(Console.say("sc_removed", timer.path))
            if !systemd { Console.line(Console.say("sc_remove_cron", schedule.arguments.joined(separator: " "))) }
            return
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try schedule.serviceText().write(to: service, atomically: true, encoding: .utf8)
        try schedule.timerText.write(to: timer, atomically: true, encoding: .utf8)
        Console.line(Console.say("sc_wrote", service.path, timer.path, schedule.onCalendar))
        if systemd, Self.systemctl(["daemon-reload"]), Self.systemctl(["enable", "--now", schedule.unitName + ".timer"]) {
            Console.line(Console.say("sc_enabled", schedule.unitName))
            Console.line(Console.say("sc_linger", NSUserName()))
        } else {
            try? FileManager.default.createDirectory(at: log.deletingLastPathComponent(), withIntermediateDirectories: true)
            Console.line(Console.say("sc_cron"))
            Console.line(schedule.cronLine(log: log))
        }
    }

    /// This program, as a timer must start it.
    static var binary: URL {
        let name = ProgramArguments.all.first ?? ""
        return URL(fileURLWithPath: name.contains("/") ? name : "/proc/self/exe").resolvingSymlinksInPath()
    }

    /// Whether `systemctl --user` has a manager to talk to.
    static func userSystemd() -> Bool {
        let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? "/run/user/\(getuid())"
        return FileManager.default.fileExists(atPath: "/run/systemd/system") && FileManager.default.fileExists(atPath: runtime + "/systemd")
    }

    static func systemctl(_ arguments: [String]) -> Bool {
        guard let process = try? ChildProcess("/usr/bin/systemctl", ["--user"] + arguments) else { return false }
        return process.wait() == 0
    }
}
