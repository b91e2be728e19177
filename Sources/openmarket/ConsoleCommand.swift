import ArgumentParser
import Backups
import Foundation
import ImagePrep
import OpenMarketAPI
import Support
import UserConfig
import WebConsole

struct ConsoleCommand: ShopCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "The same engine in a local web page: check, plan and apply a sheet, see and undo runs.",
        discussion: """
            Serves a page on a loopback address of its own (127.x.y.z: no other local server \
            is sent its cookie) and prints its address with a token (the page trades the token \
            for a cookie only this console gets, at once); opens the browser when there is a screen, unless \
            --no-open. The sheets listed are FOLDER's (CSV, Excel, JSON, JSON Lines). Check is \
            `validate`; Plan is a dry run (nothing written); Apply is the import, recorded and \
            undoable as from the command line (`openmarket runs` lists it), its progress on the \
            page and a Stop; Undo plans, then takes a run back. Feeds lists the feeds with their \
            last runs and holds (Run now, Accept); Backups (with --repo) lists snapshots, diffs \
            two, takes one, and plans then runs a restore; Export downloads the catalog as a sheet.

            The shop is chosen as for every command (--server, --identifier, --secret, \
            --profile, the config file; the built-in sandbox when none). Requests without the \
            token, with another Host, or writes from another page's Origin are refused (403); \
            no secret is ever put in the page. Ctrl-C stops it.
            """)

    @Argument(help: ArgumentHelp("The folder whose sheets the console lists.", valueName: "FOLDER"))
    var folder: String = "."

    @Option(name: .long, help: ArgumentHelp("A backup repository for the Backups page (snapshots, diff, restore).", valueName: "dir"))
    var repo: String?

    @OptionGroup var server: ServerOptions

    @OptionGroup var sharedCache: SharedCacheOption

    @Option(name: .long, help: "The port on the console's loopback address (default: a free one).")
    var port = 0

    @Flag(name: .customLong("no-open"), help: "Print the address only; open no browser.")
    var noOpen = false

    func execute(on connection: Connection) async throws -> ExitStatus {
        let (folder, repo) = (URL(fileURLWithPath: folder), repo)
        // The config file's other profiles, in a menu; each connected when first picked.
        let config = try? OpenMarketConfig.load(path: server.client.config)
        let profiles = (config?.profiles.map { Array($0.keys) } ?? []).filter { $0 != server.profile }
        let options = ProfileOpening(config: server.client.config, insecure: server.client.insecure, cacert: server.client.cacert,
                                     state: server.state)
        let cache = try sharedCache.imageCache(transport: TransportSettings())
        let configPath = server.client.config
        let shops = ConsoleShops(Self.engine(folder: folder, repo: repo, cache: cache, connection), profiles: profiles, open: { name in
            Self.engine(folder: folder, repo: repo, cache: cache, try await options.connect(profile: name))
        }, save: { profile, identifier, secret in
            try OpenMarketConfig.saveCredentials(path: configPath, profile: profile, identifier: identifier, secret: secret)
        })
        let console: ConsoleServer
        do { console = try await ConsoleServer.start(shops, port: port, handleSignals: true) } catch {
            throw CommandFailure(say: "f_console_listen", String(port), "\(error)", exitCode: .someFailed)
        }
        Console.line(Console.say("console_listening", console.entry.absoluteString))
        if console.sharesAddress { Console.line(Console.say("t_console_shared")) }
        let environment = ProcessInfo.processInfo.environment
        if !noOpen, environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil,
           FileManager.default.isExecutableFile(atPath: "/usr/bin/xdg-open") {
            _ = try? ChildProcess("/usr/bin/xdg-open", [console.entry.absoluteString])
        }
        try await console.wait()
        return .ok
    }

    /// The console's engine on a connection: FOLDER's sheets, the account's reports, the feeds,
    /// the backup repository if given.
    static func engine(folder: URL, repo: String?, cache: ImageCache?, _ connection: Connection) -> ConsoleEngine {
        let account = connection.account
        return ConsoleEngine(folder: folder, shop: connection.client, account: account, reports: account.folder.appendingPathComponent("reports"),
                             backups: repo.map { ConsoleBackups(repository: BackupRepository(url: URL(fileURLWithPath: $0))) },
                             photoCache: cache, transport: connection.client.configuration.transport,
                             productPages: connection.sandbox.map { (String($0.url.absoluteString.trimmingCharacters(in: ["/"])), "/products/") })
    }
}

/// How a profile picked in the console's menu is connected: as `--profile NAME` with the
/// command's config file, TLS options and state (its credentials from the config file, never
/// the page; its state the command's `--state` or `OPENMARKET_STATE`, else the profile's own).
struct ProfileOpening: Sendable {
    var config: String?
    var insecure: Bool
    var cacert: String?
    /// The command's `--state`.
    var state: String?

    func connect(profile: String) async throws -> Connection {
        let settings = try ConnectionSettings.resolve(server: nil, identifier: nil, secret: nil, profile: profile,
                                                      environment: [:], config: try OpenMarketConfig.load(path: config))
        let place = try Connection.place(flag: state, settings: settings)
        let cacert = self.cacert
        var connection = try await Connection.connect(settings, insecure: insecure, verbose: false) { $0.transport.caFile = cacert ?? $0.transport.caFile }
        connection.place = place
        return connection
    }
}
