import ArgumentParser
import Feeds
import Foundation
import Support
import UserConfig

struct FeedScheduleCommand: OpenMarketCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Run a feed by itself: a systemd user timer, or the crontab line to add.",
        discussion: """
            Writes openmarket-feed-NAME.service and .timer in ~/.config/systemd/user/ (the \
            service runs `openmarket feed run FEED`; the timer catches up a run missed while the \
            machine was off) and enables the timer when a user systemd runs; otherwise prints \
            the crontab line that does the same (`crontab -e` to add it). --remove takes it away.

            A scheduled run starts with an empty environment and no options: the feed must name \
            its shop, [target] profile = "NAME", a [profiles.NAME] of the config file with the \
            server and credentials. A feed without one is refused (it would sync a throwaway \
            sandbox every night).

            Examples:
              openmarket feed schedule acme --daily 03:00
              openmarket feed schedule acme --every 2h
              openmarket feed schedule acme --remove
            """)

    @Argument(help: ArgumentHelp("The feed file: a path, or a name in ~/.config/openmarket/feeds/.", valueName: "FEED"))
    var feed: String

    @OptionGroup var schedule: ScheduleOptions

    func validate() throws {
        guard schedule.isGiven else { throw ValidationError(Console.say("arg_schedule")) }
    }

    func execute() async throws -> ExitStatus {
        let url = FeedFile.locate(feed).standardizedFileURL
        let loaded: Feed
        do { loaded = try FeedFile.load(url) } catch { throw CommandFailure(error, exitCode: .badInput) }
        if loaded.run.source == nil && !schedule.remove {
            throw CommandFailure(say: "f_feed_no_source", url.path, exitCode: .badInput)
        }
        if !schedule.remove { try requireShop(loaded, url) }
        try schedule.apply(Schedule(kind: "feed", name: loaded.name, arguments: ["feed", "run", url.path],
                                    binary: ScheduleOptions.binary, when: schedule.when),
                           log: UserFolders.state.appendingPathComponent("feeds/\(loaded.name).log"))
        return .ok
    }

    /// The shop a scheduled run writes to: the feed's [target] profile, in the config file.
    private func requireShop(_ feed: Feed, _ url: URL) throws {
        guard let profile = feed.run.profile else {
            throw CommandFailure(say: "f_feed_no_shop", url.path, OpenMarketConfig.defaultPath, exitCode: .badInput)
        }
        let config: OpenMarketConfig?
        do { config = try OpenMarketConfig.load(path: nil) } catch {
            throw CommandFailure(error.description, exitCode: .badInput)
        }
        guard let section = config?.profiles?[profile], section.server != nil else {
            throw CommandFailure(say: "f_feed_profile_missing", profile, OpenMarketConfig.defaultPath, profile, exitCode: .badInput)
        }
    }
}
