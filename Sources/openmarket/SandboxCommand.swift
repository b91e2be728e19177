import ArgumentParser
import Foundation
import Support
import OpenMarketAPI
import Sandbox

struct SandboxCommand: OpenMarketCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract: "Run a local Open Market server (SQLite + image files on disk).",
        discussion: """
            The sandbox behaves like a real Open Market server: same endpoints, rules and \
            status codes. Data lives under --data and survives a restart. Started on a folder \
            with no vendors, it creates two demo vendors (demo-shop, second-shop); every start \
            prints each vendor's identifier and secret. --add-vendor on a new folder makes that \
            vendor only (the demo vendors are made only when there is none).

            HTTPS (HTTP/2 by ALPN, as real servers behind TLS): nginx in front of it, or \
            swift run --package-path SandboxTLS openmarket-sandbox-tls --tls-cert FILE \
            --tls-key FILE, with the same data folder.

            Fault injection (all off by default) lets you rehearse a bad network:
              openmarket sandbox --fail-rate 0.2 --drop-rate 0.1 --rate-limit 20
            Faults apply to every request except GET /healthChecker.
            """
    )

    @Option(name: .long, help: ArgumentHelp("Folder for the database and images.", valueName: "dir"))
    var data: String = ".openmarket/sandbox"

    @Option(name: .long, help: "Address to listen on. Keep 127.0.0.1 unless others must reach it.")
    var host: String = "127.0.0.1"

    @Option(name: .long, help: "Port to listen on; 0 picks a free port and prints it.")
    var port: Int = 8080

    @Option(name: .long, parsing: .upToNextOption,
            help: ArgumentHelp("Currencies accepted by register and edit.", valueName: "code"))
    var currencies: [String] = ["KRW", "USD", "JPY"]

    @Option(name: .customLong("add-vendor"), help: ArgumentHelp(
        "Add a vendor with this name, print its credentials, and exit.", valueName: "name"))
    var addVendor: String?

    @Option(name: .customLong("fail-rate"), help: ArgumentHelp("Answer this fraction of requests with an error (0…1), before doing anything.", valueName: "p"))
    var failRate: Double = 0

    @Option(name: .customLong("fail-status"), parsing: .upToNextOption, help: ArgumentHelp(
        "Statuses used by --fail-rate, picked at random.", valueName: "code"))
    var failStatuses: [Int] = [500]

    @Option(name: .long, help: ArgumentHelp("Wait this long before each answer.", valueName: "ms"))
    var latency: Int = 0

    @Option(name: .customLong("drop-rate"), help: ArgumentHelp(
        "Close the connection without answering for this fraction of requests (0…1). Registers are stored first.",
        valueName: "p"))
    var dropRate: Double = 0

    @Option(name: .customLong("store-late"), help: ArgumentHelp(
        "Hold each register this long, silent, then store and answer it: a slow server whose client gives up first (OPENMARKET_ANSWER_TIMEOUT sets how long a client waits).",
        valueName: "ms"))
    var storeLate: Int = 0

    @Option(name: .customLong("silent-after"), help: ArgumentHelp(
        "Answer this many writes, then none: each later write is held, silent, and stored nowhere (reads are still answered): a server that stops answering mid-run.",
        valueName: "n"))
    var silentAfter: Int?

    @Option(name: .customLong("rate-limit"), help: ArgumentHelp(
        "Accept at most this many requests per second; answer 429 with Retry-After beyond.", valueName: "n"))
    var rateLimit: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Serve at most N requests at once (each taking --latency); the others wait their turn, as a busy server's pool: answers slow down as more are in flight.",
        valueName: "N"))
    var workers: Int?

    @Flag(name: .customLong("log-requests"), help: "Print one line per request.")
    var logRequests = false

    @Option(name: .long, help: ArgumentHelp(
        "Play this generation of the real server: 2022-10 (the default, the contract), 2022-01 (snake_case pages, `descriptions`, delete through /secret) or 2021 (/items and /item/ID, a password per item and no vendors, sale prices, no health check).",
        valueName: "generation"))
    var api: String = SandboxAPI.v2022October.rawValue

    /// HTTPS moved to `openmarket-sandbox-tls` (the tool builds without a TLS library); the
    /// options stay to say where.
    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("HTTPS: see `openmarket-sandbox-tls`.", visibility: .hidden))
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("HTTPS: see `openmarket-sandbox-tls`.", visibility: .hidden))
    var tlsKey: String?

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp(
        "Close a keep-alive connection idle this many seconds, as real servers do.", valueName: "seconds"))
    var idleTimeout: Double = 60

    func validate() throws {
        guard idleTimeout > 0 else { throw ValidationError(Console.say("arg_above_zero", "--idle-timeout")) }
        if tlsCert != nil || tlsKey != nil {
            throw ValidationError(Console.say("arg_sandbox_tls"))
        }
        guard (0...65535).contains(port) else { throw ValidationError(Console.say("arg_range_got", "--port", "0", "65535", String(port))) }
        for (flag, value) in [("--fail-rate", failRate), ("--drop-rate", dropRate)] where !(0...1).contains(value) {
            throw ValidationError(Console.say("arg_range_got", flag, "0", "1", "\(value)"))
        }
        if let bad = failStatuses.first(where: { !(400...599).contains($0) }) {
            throw ValidationError(Console.say("arg_fail_status", "\(bad)"))
        }
        guard latency >= 0 else { throw ValidationError(Console.say("arg_at_least", "--latency", "0")) }
        if let rateLimit, rateLimit < 1 { throw ValidationError(Console.say("arg_at_least", "--rate-limit", "1")) }
        if let workers, workers < 1 { throw ValidationError(Console.say("arg_at_least", "--workers", "1")) }
        if let addVendor, addVendor.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError(Console.say("arg_add_vendor"))
        }
        guard !currencies.isEmpty else { throw ValidationError(Console.say("arg_currencies")) }
    }

    func execute() async throws -> ExitStatus {
        let dataDirectory = URL(fileURLWithPath: data)
        if let name = addVendor {
            let vendor = try SandboxServer.addVendor(named: name, dataDirectory: dataDirectory)
            Console.line(Console.say("sb_added", vendor.name, String(vendor.id), dataDirectory.path))
            Console.line(Console.say("sb_identifier", vendor.identifier))
            Console.line(Console.say("sb_secret", vendor.secret))
            return .ok
        }
        let configuration = try sandboxConfiguration(dataDirectory)
        let server: SandboxServer
        do {
            server = try await SandboxServer.start(configuration, handleSignals: true)
        } catch {
            throw "\(error)".contains("Address already in use")
                ? CommandFailure(say: "f_port_in_use", host, String(port), exitCode: .someFailed)
                : CommandFailure(say: "f_cannot_listen", host, String(port), "\(error)", exitCode: .someFailed)
        }
        printBanner(server, configuration)
        // Where `openmarket open` finds the running sandbox of this data folder.
        let marker = dataDirectory.appendingPathComponent(OpenCommand.markerName)
        try? Data((server.url.absoluteString + "\n").utf8).write(to: marker)
        defer { try? FileManager.default.removeItem(at: marker) }
        try await server.wait()
        return .ok
    }

    private func sandboxConfiguration(_ dataDirectory: URL) throws -> SandboxConfiguration {
        var configuration = SandboxConfiguration(dataDirectory: dataDirectory)
        configuration.host = host
        configuration.port = port
        configuration.currencies = currencies.map { $0.uppercased() }
        configuration.faults = FaultInjection(
            failRate: failRate, failStatuses: failStatuses, latencyMilliseconds: latency, dropRate: dropRate, rateLimitPerSecond: rateLimit,
            workers: workers)
        configuration.faults.storeLateMilliseconds = max(0, storeLate)
        configuration.faults.silentAfterWrites = silentAfter.map { max(0, $0) }
        configuration.logRequests = logRequests
        guard let generation = SandboxAPI(rawValue: api) else {
            throw CommandFailure(say: "f_sandbox_api", SandboxAPI.allCases.map(\.rawValue).joined(separator: ", "), api, exitCode: .badInput)
        }
        configuration.api = generation
        configuration.idleTimeout = idleTimeout
        return configuration
    }

    private func printBanner(_ server: SandboxServer, _ configuration: SandboxConfiguration) {
        let generation = configuration.api
        Console.line(Console.say("sb_listening", server.url.absoluteString))
        Console.line(Console.say("sb_data", configuration.dataDirectory.standardizedFileURL.path))
        if generation == .v2021 {
            Console.line(Console.say("sb_2021"))
        } else {
            if generation != .v2022October { Console.line(Console.say("sb_generation", generation.rawValue)) }
            Console.line(Console.say("sb_vendors"))
            for vendor in server.vendors {
                Console.line(Console.say("sb_vendor", vendor.name, String(vendor.id), vendor.identifier, vendor.secret))
            }
        }
        if configuration.faults.isActive {
            Console.line(Console.say("sb_faults", "fail-rate \(failRate) (\(failStatuses.map(String.init).joined(separator: "/"))), drop-rate \(dropRate), latency \(latency) ms, rate-limit \(rateLimit.map(String.init) ?? "none"), workers \(workers.map(String.init) ?? "unlimited"), store-late \(storeLate) ms, silent-after \(silentAfter.map(String.init) ?? "none")"))
        }
        Console.line(Console.say("sb_catalog", server.url.absoluteString + "/"))
        Console.line(Console.say("sb_try", "curl \(server.url.absoluteString)\(generation == .v2021 ? "/items/1" : "/healthChecker")"))
    }
}

struct OpenCommand: OpenMarketCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Show the running sandbox's catalog pages: print their URL, and open a browser when there is a screen.",
        discussion: """
            The pages (/ for the catalog as a grid or a list, with search; /products/ID for one             product with all its photos) are served by `openmarket sandbox`, read-only, from the             same data as its API. Start the sandbox first, in another terminal.
            """)

    static let markerName = "sandbox.url"

    @Option(name: .long, help: ArgumentHelp("The sandbox's data folder.", valueName: "dir"))
    var data: String = SandboxConfiguration.defaultDataDirectory

    @Flag(name: .customLong("no-browser"), help: "Only print the URL.")
    var noBrowser = false

    func execute() async throws -> ExitStatus {
        let marker = URL(fileURLWithPath: data).appendingPathComponent(Self.markerName)
        var running: URL?
        if let text = try? String(contentsOf: marker, encoding: .utf8),
           let url = URL(string: text.trimmingCharacters(in: .whitespacesAndNewlines)),
           let client = try? OpenMarketClient({
               var configuration = ClientConfiguration(server: url)
               configuration.retry = .none
               return configuration
           }()),
           (try? await client.run { try $0.health() }) != nil {
            running = url
        }
        guard let url = running else {
            throw CommandFailure(say: "f_no_sandbox", data, exitCode: .unreachable)
        }
        let catalog = url.absoluteString + "/"
        Console.line(catalog)
        let environment = ProcessInfo.processInfo.environment
        guard !noBrowser, environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil,
              FileManager.default.isExecutableFile(atPath: "/usr/bin/xdg-open") else { return .ok }
        _ = try? ChildProcess("/usr/bin/xdg-open", [catalog])
        return .ok
    }
}
