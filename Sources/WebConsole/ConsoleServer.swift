import BulkImport
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Support

/// `openmarket console`: the engine in a local web page, for merchants who do not use a
/// terminal. It listens on 127.0.0.1 only, behind `ConsoleGuard` (its token, its own Host, its
/// own Origin for writes); every action is the CLI's (`ConsoleEngine`).
public final class ConsoleServer: Sendable {
    /// The console's address, without the token.
    public let url: URL
    /// The secret the printed address carries; a cookie keeps it once the page is open.
    public let token: String
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(url: URL, token: String, group: ServiceGroup, task: Task<Void, any Error>) {
        self.url = url
        self.token = token
        self.group = group
        self.task = task
    }

    /// The address to open: with the token, which the page trades for a cookie at once.
    public var entry: URL { URL(string: url.absoluteString + "?token=" + token)! }

    public static func start(_ engine: ConsoleEngine, port: Int = 0, handleSignals: Bool = false) async throws -> ConsoleServer {
        let token = Self.newToken()
        let address = ConsoleAddress()
        let router = Router()
        router.add(middleware: ConsoleGuard(token: token, address: address))
        ConsoleRoutes(engine: engine).add(to: router)
        let (ports, sink) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "openmarket.console")
        logger.logLevel = .warning
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "openmarket-console"),
                              onServerRunning: { channel in
                                  sink.yield(channel.localAddress?.port ?? 0)
                                  sink.finish()
                              }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: handleSignals ? [.sigterm, .sigint] : [],
                                                      logger: logger))
        let task = Task {
            defer { sink.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next(), bound > 0 else {
            try await task.value
            throw ConsoleError("the console stopped before it listened on 127.0.0.1:\(port)")
        }
        address.listening(on: bound)
        return ConsoleServer(url: URL(string: "http://127.0.0.1:\(bound)/")!, token: token, group: group, task: task)
    }

    /// Until the server stops (a signal, or `stop`).
    public func wait() async throws { try await task.value }

    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }

    /// 128 random bits as hex (the system's secure generator).
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &generator)) }.joined()
    }
}

public struct ConsoleError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
