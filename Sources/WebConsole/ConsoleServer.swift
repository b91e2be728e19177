import CatalogSync
import Foundation
import Hummingbird
import Logging
import LocalListener
import Support

/// `openmarket console`: the engine in a local web page, for merchants who do not use a
/// terminal. It listens on a loopback address only (one of its own in 127.0.0.0/8), behind
/// `ConsoleGuard` (its token, its own Host, its own Origin for writes); every action is the
/// CLI's (`ConsoleEngine`).
public final class ConsoleServer: Sendable {
    /// The console's address, without the token.
    public let url: URL
    /// The secret the printed address carries; a cookie keeps it once the page is open.
    public let token: String
    /// The token's cookie as a client sends it back (`name=token`).
    public let cookie: String
    private let service: ListeningService

    private init(url: URL, token: String, cookie: String, service: ListeningService) {
        self.url = url
        self.token = token
        self.cookie = cookie
        self.service = service
    }

    /// The address to open: with the token, which the page trades for a cookie at once.
    public var entry: URL { URL(string: url.absoluteString + "?token=" + token)! }

    public static func start(_ engine: ConsoleEngine, port: Int = 0, handleSignals: Bool = false) async throws -> ConsoleServer {
        try await start(ConsoleShops(engine), port: port, handleSignals: handleSignals)
    }

    /// A console over several shops: the command line's, and the config file's profiles in a menu.
    /// `sharedAddress`: on 127.0.0.1 from the start (what it does where the system has no
    /// loopback address of its own to give it).
    public static func start(_ shops: ConsoleShops, port: Int = 0, handleSignals: Bool = false, sharedAddress: Bool = false) async throws -> ConsoleServer {
        // A loopback address of its own, so that no other local server is sent its cookies;
        // where the system has no other, 127.0.0.1 with its pages and cookies under a secret path.
        if !sharedAddress, let own = try? await start(shops, host: Self.ownLoopback(), port: port, handleSignals: handleSignals) { return own }
        return try await start(shops, host: "127.0.0.1", port: port, handleSignals: handleSignals)
    }

    /// Whether it listens on the loopback address every local server shares (its pages then
    /// under a secret path, said by the command).
    public var sharesAddress: Bool { url.host == "127.0.0.1" }

    static func start(_ shops: ConsoleShops, host: String, port: Int, handleSignals: Bool) async throws -> ConsoleServer {
        let token = Self.newToken()
        let address = ConsoleAddress(host: host, root: host == "127.0.0.1" ? ConsoleAddress.sharedPrefix + Self.newToken() : "")
        let router = Router(context: ConsoleContext.self)
        router.add(middleware: ConsoleGuard(token: token, address: address))
        router.add(middleware: ConsoleShopChoice(shops: shops))
        router.add(middleware: ConsoleErrorPages())
        if address.root.isEmpty { ConsoleRoutes.add(to: router) } else { ConsoleRoutes.add(to: router.group(RouterPath(address.root))) }
        var logger = Logger(label: "openmarket.console")
        logger.logLevel = .warning
        let service = try await ListeningService.start(label: "console", logger: logger, handleSignals: handleSignals) { onServerRunning in
            Application(router: router, configuration: .init(address: .hostname(host, port: port), serverName: "openmarket-console"),
                        onServerRunning: onServerRunning, logger: logger)
        }
        address.listening(on: service.port)
        return ConsoleServer(url: URL(string: "http://\(host):\(service.port)\(address.root)/")!, token: token,
                             cookie: "\(address.cookieName)=\(token)", service: service)
    }

    /// `127.A.B.C`, picked at random (never 127.0.0.x): Linux answers on all of 127.0.0.0/8.
    static func ownLoopback() -> String {
        var generator = SystemRandomNumberGenerator()
        return "127.\(Int.random(in: 1...254, using: &generator)).\(Int.random(in: 0...255, using: &generator)).\(Int.random(in: 1...254, using: &generator))"
    }

    /// Until the server stops (a signal, or `stop`).
    public func wait() async throws { try await service.wait() }

    public func stop() async { await service.stop() }

    /// 128 random bits as hex (the system's secure generator).
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &generator)) }.joined()
    }
}

