import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A Hummingbird application run in a service group of its own, returned once it listens:
/// the sandbox, the console and the tests' local servers start this way. A port of 0 is a
/// free one, said in `port`.
public final class ListeningService: Sendable {
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.group = group
        self.task = task
    }

    public struct DidNotListen: Error, CustomStringConvertible {
        public var description: String
    }

    /// `make` builds the application with the callback it must be given as `onServerRunning`.
    /// Ctrl-C and SIGTERM stop it gracefully when `handleSignals`.
    public static func start(label: String, logger: Logger, handleSignals: Bool = false,
                             _ make: (_ onServerRunning: @escaping @Sendable (any Channel) async -> Void) -> any Service)
        async throws -> ListeningService {
        let (ports, sink) = AsyncStream<Int>.makeStream()
        let app = make { channel in
            sink.yield(channel.localAddress?.port ?? 0)
            sink.finish()
        }
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: handleSignals ? [.sigterm, .sigint] : [],
                                                      logger: logger))
        // In a process that also does blocking work (the tests, a command's built-in sandbox), its
        // handlers run on threads of their own, never waiting for the cooperative pool. A server that
        // is the process (`openmarket sandbox`, `console`: it handles the signals) stays on the pool:
        // under a full test run on 2 cores, one of those hung on the port-in-use test with it.
        let run: @Sendable () async throws -> Void = {
            defer { sink.finish() }
            try await group.run()
        }
        let task = handleSignals ? Task { try await run() } : Task(executorPreference: ServerThreads.shared) { try await run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            // It stopped before listening: its own error says why.
            try await task.value
            throw DidNotListen(description: "the \(label) stopped before it listened")
        }
        return ListeningService(port: port, group: group, task: task)
    }

    /// Until it stops (a signal, or `stop`).
    public func wait() async throws { try await task.value }

    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}
