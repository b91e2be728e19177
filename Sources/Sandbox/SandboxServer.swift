import Foundation
import Hummingbird
import HummingbirdCore
import LocalListener
import Logging
import NIOCore
import OpenMarketContract
import ServiceLifecycle

/// The local Open Market server, usable in-process: start it (port 0 picks a
/// free port), read its `url`, stop it.
public final class SandboxServer: Sendable {
    /// `http://host:port` of the running server.
    public let url: URL
    public let port: Int
    public let configuration: SandboxConfiguration
    /// The vendor accounts, demo vendors first.
    public let vendors: [SandboxVendor]
    /// Requests answered so far, by method.
    public let requests: RequestCounts
    private let service: ListeningService

    private init(url: URL, port: Int, configuration: SandboxConfiguration, vendors: [SandboxVendor],
                 requests: RequestCounts, service: ListeningService) {
        self.requests = requests
        self.url = url
        self.port = port
        self.configuration = configuration
        self.vendors = vendors
        self.service = service
    }

    /// Opens the store (creating the demo vendors on first start), binds, and
    /// returns once the server accepts connections.
    /// - Parameter handleSignals: stop gracefully on SIGINT/SIGTERM (for the CLI).
    /// - Parameter server: how connections are served; HTTP/1.1 by default. HTTPS
    ///   (`configuration.tls`) is `SandboxTLS`'s, in a package of its own (SandboxTLS/) so that
    ///   neither the tool nor its tests compile a TLS library (`openmarket-sandbox-tls`).
    public static func start(_ configuration: SandboxConfiguration, handleSignals: Bool = false,
                             server: HTTPServerBuilder? = nil) async throws -> SandboxServer {
        guard configuration.tls == nil || server != nil else {
            throw SandboxStartError(message: "HTTPS is served by openmarket-sandbox-tls (swift run --package-path SandboxTLS openmarket-sandbox-tls --tls-cert FILE --tls-key FILE), or by nginx in front of this sandbox (see the README)")
        }
        let store = try SandboxStore(directory: configuration.dataDirectory)
        let vendors = try store.ensureDemoVendors()
        var logger = Logger(label: "openmarket.sandbox")
        logger.logLevel = configuration.logRequests ? .info : .warning

        let requests = RequestCounts()
        let displayHost = ["0.0.0.0", "::", ""].contains(configuration.host) ? "127.0.0.1" : configuration.host
        let scheme = configuration.tls == nil ? "http" : "https"
        let router = try router(store: store, configuration: configuration, requests: requests, scheme: scheme,
                                authority: "\(displayHost):\(configuration.port)")
        let service: ListeningService
        do {
            service = try await ListeningService.start(label: "sandbox", logger: logger, handleSignals: handleSignals) { onServerRunning in
                Application(router: router, server: server ?? http1(configuration),
                            configuration: .init(address: .hostname(configuration.host, port: configuration.port),
                                                 serverName: "openmarket-sandbox"),
                            onServerRunning: onServerRunning, logger: logger)
            }
        } catch let notListening as ListeningService.DidNotListen {
            throw SandboxStartError(message: "\(notListening.description) on \(configuration.host):\(configuration.port)")
        }
        let port = service.port
        let authority = displayHost.contains(":") ? "[\(displayHost)]:\(port)" : "\(displayHost):\(port)"
        return SandboxServer(url: URL(string: "\(scheme)://\(authority)")!, port: port,
                             configuration: configuration, vendors: vendors, requests: requests, service: service)
    }

    /// The sandbox's routes and middleware, built in one place. Tests reach them over loopback
    /// HTTP as a client does (not HummingbirdTesting, which brings async-http-client and a
    /// second BoringSSL into the test build).
    static func router(store: SandboxStore, configuration: SandboxConfiguration, requests: RequestCounts,
                       scheme: String, authority: String) throws -> Router<SandboxContext> {
        let router = Router(context: SandboxContext.self)
        router.add(middleware: CountRequestsMiddleware(counts: requests))
        router.add(middleware: JSONErrorMiddleware(api: configuration.api))
        // Sandbox only (not in the contract): the requests answered so far, by method.
        router.get("/sandbox/requests") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"],
                     body: .init(byteBuffer: ByteBuffer(bytes: (try? JSONEncoder().encode(requests.byMethod)) ?? Data())))
        }
        if configuration.logRequests { router.add(middleware: LogRequestsMiddleware(.info)) }
        router.add(middleware: FaultMiddleware(faults: configuration.faults, maxBodyBytes: configuration.limits.maxBodyBytes))
        var routes = SandboxRoutes(
            store: store, configuration: configuration,
            validation: ProductValidation(currencies: configuration.currencies),
            fallbackAuthority: authority)
        routes.scheme = scheme
        switch configuration.api {
        case .v2022October: routes.add(to: router)
        case .v2022January: Routes2022January(routes: routes).add(to: router)
        case .v2021: Routes2021(routes: routes).add(to: router)
        }
        try CatalogPages(store: store).add(to: router)
        return router
    }

    /// Plain HTTP/1.1 with the configured idle timeout.
    public static func http1(_ configuration: SandboxConfiguration) -> HTTPServerBuilder {
        .http1(configuration: .init(idleTimeout: .milliseconds(Int64(configuration.idleTimeout * 1000))))
    }

    /// Runs until the server stops (by a signal when started with `handleSignals`).
    public func wait() async throws {
        try await service.wait()
    }

    /// Stops gracefully: open requests finish, then the listener closes; idle HTTP/1.1
    /// connections are closed, idle HTTP/2 ones once their client answers the GOAWAY's PING
    /// or closes them (see `serverBuilder`).
    public func stop() async {
        await service.stop()
    }

    /// Adds a vendor to the store in `dataDirectory` (the sandbox need not run).
    public static func addVendor(named name: String, dataDirectory: URL) throws -> SandboxVendor {
        try SandboxStore(directory: dataDirectory).addVendor(named: name)
    }

    /// The vendors stored in `dataDirectory`, creating the demo vendors if none.
    public static func vendors(dataDirectory: URL) throws -> [SandboxVendor] {
        try SandboxStore(directory: dataDirectory).ensureDemoVendors()
    }
}

public struct SandboxStartError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
    public init(message: String) { self.message = message }
}
