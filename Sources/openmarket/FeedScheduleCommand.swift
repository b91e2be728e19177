import ArgumentParser
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

    @OptionGroup var schedule: ScheduleOptions

    func validate() throws {
        guard schedule.isGiven else { throw ValidationError("give one of --daily HH:MM, --every INTERVAL and --remove") }
    }

    func run() throws {
        let url = FeedFile.locate(feed).standardizedFileURL
        let loaded: Feed
        do { loaded = try FeedFile.load(url) } catch { throw reportFailure(CommandFailure(error.description, exitCode: .badInput)) }
        if loaded.run.source == nil && !schedule.remove {
            throw reportFailure(CommandFailure("\(url.path) has no [source]: a scheduled run needs to fetch the file itself (url = \"https://…\", sftp://…, or path = \"/…\")", exitCode: .badInput))
        }
        try schedule.apply(Schedule(kind: "feed", name: loaded.name, arguments: ["feed", "run", url.path],
                                    binary: ScheduleOptions.binary, when: schedule.when),
                           log: UserFolders.state.appendingPathComponent("feeds/\(loaded.name).log"))
    }
}
