import ArgumentParser
import CatalogSync
import Foundation
import Feeds
import Manifest
import Logging
import OpenMarketAPI
import UserConfig
import Sandbox
import ShopState
import Support
import Words

/// Options of every command that talks to a server.
struct ServerOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Server URL. Default: $OPENMARKET_SERVER, the config file, else the built-in sandbox.", valueName: "url"))
    var server: String?

    @Option(name: .long, help: ArgumentHelp("Vendor identifier for writes (or $OPENMARKET_IDENTIFIER).", valueName: "id"))
    var identifier: String?

    @Option(name: .long, help: ArgumentHelp("Vendor secret for writes (or $OPENMARKET_SECRET).", valueName: "secret"))
    var secret: String?

    @Option(name: .long, help: ArgumentHelp("A named [profiles.NAME] section of the config file.", valueName: "name"))
    var profile: String?

    @Option(name: .long, help: ArgumentHelp(
        "The server's generation: 2021, 2022-01 or 2022-10. Default: found from the server's answers (`health` says which). A 2021 server takes --secret alone: the items' password.",
        valueName: "generation"))
    var api: ServerGeneration?

    @Option(name: .long, help: ArgumentHelp(
        "Where the account's state lives for every machine that runs it: a PostgreSQL database (postgres://USER@HOST/DB; else the profile's state, $OPENMARKET_STATE, the config file's state). Default: this machine's state folder.",
        valueName: "url"))
    var state: String?

    @OptionGroup var client: ClientOptions
}

extension ServerOptions {
    /// The server, credentials and state these options name with the config file and the
    /// environment (a config or profile that cannot be used: exit 2).
    func settings() throws -> ConnectionSettings {
        do {
            let config = try OpenMarketConfig.load(path: client.config)
            return try ConnectionSettings.resolve(server: server, identifier: identifier, secret: secret, profile: profile,
                                                  environment: ProcessInfo.processInfo.environment, config: config)
        } catch {
            throw CommandFailure(error.description, exitCode: .badInput)
        }
    }

    /// Where the account's state lives: the one choice, for commands that need it before (or
    /// without) connecting.
    func place() throws -> StatePlace { try Connection.place(flag: state, settings: try settings()) }

    /// These options as a later command names the same account (no secret).
    var naming: AccountArguments {
        AccountArguments(server: server, profile: profile, config: client.config, api: api?.rawValue, cacert: client.cacert,
                         insecure: client.insecure, identifierGiven: identifier != nil, secretGiven: secret != nil, state: state)
    }
}

extension Language: ExpressibleByArgument {
    public init?(argument: String) { self.init(named: argument) }
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

extension ServerGeneration: ExpressibleByArgument {
    public init?(argument: String) { self.init(option: argument) }
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// The config file and how to speak to any server: shared by the commands
/// with one server (`ServerOptions`) and by `migrate` with two.
struct ClientOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Config file (TOML; default ~/.config/openmarket/config.toml; must not be readable by others).", valueName: "path"))
    var config: String?

    @Option(name: .customLong("lang"), help: ArgumentHelp(
        "The language of the run's report.html and report.xlsx: en or ko (report.csv and report.json stay as scripts read them). Default: the locale's (LC_ALL, LC_MESSAGES, LANG).",
        valueName: "en|ko"))
    var language: Language?

    /// `--lang`, else the locale's.
    var reportLanguage: Language { language ?? .ofLocale() }

    @Flag(name: .long, help: "Do not verify TLS certificates (only for test servers you trust).")
    var insecure = false

    @Option(name: .long, help: ArgumentHelp("Trust the certificate authorities in this PEM file (a server with its own CA, such as `sandbox --tls-cert`).", valueName: "file"))
    var cacert: String?

    @Flag(name: .long, help: "Print each request, and libcurl's header exchange with secrets removed, to stderr.")
    var verbose = false

    /// For measurements (Benchmarks/distance.sh): HTTP/1.1 with keep-alive is faster for
    /// openmarket's workers, see TransportSettings.http2.
    @Flag(name: .customLong("http2"), help: ArgumentHelp("Offer HTTP/2 to the server.", visibility: .hidden))
    var http2 = false
}

/// A client for the chosen server; with no server given, the built-in sandbox
/// is started in-process on a free loopback port and stopped with `close()`.
struct Connection {
    let client: OpenMarketClient
    let sandbox: SandboxServer?
    /// How a later command names this account again (the printed undo line).
    var naming = AccountArguments()
    /// Where `openmarket sandbox` serves the built-in sandbox's data (its default address).
    static let sandboxPages = "http://127.0.0.1:\(SandboxConfiguration().port)"

    /// Where the account's state lives, chosen once (`--state`, the profile's `state`,
    /// `OPENMARKET_STATE`, the config file's `state`; else this machine).
    var place: StatePlace = .machine
    /// The language of the reports of this connection's runs (`--lang`, the locale).
    var language: Language = .ofLocale()

    /// Where what openmarket knows of this account is kept (links, journals).
    var account: AccountState { AccountState(shop: client, sandboxData: sandbox?.configuration.dataDirectory, place: place) }

    /// A run of this account with the command's choices (the built-in sandbox stops with the
    /// command: the report links its pages where `openmarket sandbox` serves the same data).
    func request(_ choices: RunChoices = RunChoices()) -> RunRequest {
        var choices = choices
        if sandbox != nil { choices.productPages = (Connection.sandboxPages, "/products/") }
        choices.language = language
        return RunRequest(shop: client, account: account, choices: choices)
    }

    /// The state's place from `--state` (`flag`), the settings' profile and config file, and
    /// `OPENMARKET_STATE`; a wrong address is a clear error (exit 2).
    static func place(flag: String?, settings: ConnectionSettings? = nil,
                      environment: [String: String] = ProcessInfo.processInfo.environment) throws -> StatePlace {
        do {
            return try StatePlace.chosen(flag: flag, profile: settings?.profileState, environment: environment, config: settings?.configState)
        } catch { throw CommandFailure(error.description, exitCode: .badInput) }
    }

    /// Said once a command: what `--insecure` gives away.
    private static let insecureWarning: Void = {
        Console.error(Console.say("t_insecure"))
    }()

    static func connect(_ options: ServerOptions, configure: (inout ClientConfiguration) -> Void) async throws -> Connection {
        let settings = try options.settings()
        let cacert = options.client.cacert, http2 = options.client.http2, api = options.api
        var connection = try await connect(settings, insecure: options.client.insecure, verbose: options.client.verbose) {
            $0.transport.caFile = cacert ?? $0.transport.caFile
            $0.transport.http2 = http2
            $0.generation = api
            configure(&$0)
        }
        connection.naming = options.naming
        connection.place = try place(flag: options.state, settings: settings)
        connection.language = options.client.reportLanguage
        return connection
    }

    /// A client for resolved settings; with no server in them, the built-in sandbox.
    static func connect(_ settings: ConnectionSettings, insecure: Bool, verbose: Bool,
                        configure: (inout ClientConfiguration) -> Void = { _ in }) async throws -> Connection {
        var sandbox: SandboxServer? = nil
        var server = settings.server
        var credentials = settings.credentials
        if server == nil {
            var configuration = SandboxConfiguration()
            configuration.port = 0
            let isNew = !FileManager.default.fileExists(atPath: configuration.dataDirectory.appendingPathComponent("sandbox.sqlite").path)
            let started = try await SandboxServer.start(configuration)
            sandbox = started
            server = started.url
            if credentials == nil, let demo = started.vendors.first {
                credentials = VendorCredentials(identifier: demo.identifier, secret: demo.secret)
            }
            Console.error(Console.say("t_sandbox_used", started.url.absoluteString, configuration.dataDirectory.path))
            if isNew { Console.error(Console.say("t_sandbox_new")) }
        }
        var configuration = ClientConfiguration(server: server!, credentials: credentials)
        configuration.transport.insecure = insecure
        if insecure, server!.scheme?.lowercased() == "https" { _ = insecureWarning }
        // One pacer for every request of the command: a Retry-After one worker is told holds
        // every worker (--rate sets its pace too).
        configuration.pacer = RateLimiter(perSecond: nil)
        configure(&configuration)
        if verbose {
            var logger = Logger(label: "openmarket", factory: { StreamLogHandler.standardError(label: $0) })
            logger.logLevel = .trace
            configuration.logger = logger
        }
        do {
            return Connection(client: try OpenMarketClient(configuration), sandbox: sandbox)
        } catch {
            await sandbox?.stop()
            throw CommandFailure(error.description, exitCode: .badInput)
        }
    }

    /// Runs blocking client calls on a thread of their own, then stops the
    /// embedded sandbox, whatever happened.
    func run<T: Sendable>(_ body: @escaping @Sendable (OpenMarketClient) throws -> T) async throws -> T {
        do {
            let result = try await client.run(body)
            await close()
            return result
        } catch {
            await close()
            throw error
        }
    }

    func close() async { await sandbox?.stop() }
}

/// A failure a command reports in one line, with the exit status scripts rely on.
struct CommandFailure: SaysPhrase, CustomStringConvertible {
    /// What it says: a phrase, in the terminal's language when it is shown; or a text that is
    /// another's (an error's own words, a server's).
    var phrase: Phrase
    var exitCode: ExitStatus

    var description: String { phrase.text(Console.language) }

    init(_ description: String, exitCode: ExitStatus) {
        self.init(Phrase.verbatim(description), exitCode: exitCode)
    }

    /// An error's own words: its phrase when it says one (a stop, a backup's), else its text.
    init(_ error: any Error, exitCode: ExitStatus) {
        self.init((error as? SaysPhrase)?.phrase ?? .verbatim("\(error)"), exitCode: exitCode)
    }

    init(_ phrase: Phrase, exitCode: ExitStatus) {
        self.phrase = phrase
        self.exitCode = exitCode
    }

    /// `CommandFailure(say: "f_images_from", path, exitCode: .badInput)`: a phrase of the table.
    init(say key: String, _ values: String..., exitCode: ExitStatus) {
        self.init(Phrase(key, values), exitCode: exitCode)
    }

    /// The one map of a failure to the exit status of its kind (every command's, through
    /// `OpenMarketCommand`): a stop says its own; a file that cannot be read (a sheet, a feed
    /// file) is bad input, 2; the server's by kind; anything else 1.
    static func from(_ error: any Error) -> CommandFailure {
        if let failure = error as? CommandFailure { return failure }
        if let stop = error as? SyncStop { return CommandFailure(stop.phrase, exitCode: ExitStatus(stop.cause)) }
        if error is ManifestError || error is FeedFileError { return CommandFailure(error, exitCode: .badInput) }
        if let said = error as? SaysPhrase { return CommandFailure(said.phrase, exitCode: .someFailed) }
        guard let error = error as? OpenMarketError else { return CommandFailure(fileErrorReason(error), exitCode: .someFailed) }
        switch error {
        case .transport, .retriesExhausted: return CommandFailure(error.description, exitCode: .unreachable)
        case .http(_, let status, _) where status == 401 || status == 403: return CommandFailure(error.description, exitCode: .unreachable)
        case .invalidRequest: return CommandFailure(error.description, exitCode: .badInput)
        default: return CommandFailure(error.description, exitCode: .someFailed)
        }
    }
}
