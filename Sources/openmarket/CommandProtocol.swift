import ArgumentParser
import OpenMarketAPI
import Support
import Words

/// What every command of openmarket does around its own work, in one place (after SwiftPM's
/// `AsyncSwiftCommand`): the work returns how it ended, and a failure it throws is printed
/// once, in one line that names the command, and mapped once to the exit status of its kind
/// (`CommandFailure.from`). A command parses its options and calls; it decides no exit itself.
protocol OpenMarketCommand: AsyncParsableCommand {
    /// The command's work: `.ok`, or the status of what went wrong (already said).
    func execute() async throws -> ExitStatus
    /// The language the command speaks on the terminal: `--lang`, else the locale's.
    var speaks: Language { get }
}

/// A command with the shop's options (and so `--lang`).
protocol ServerCommand: OpenMarketCommand {
    var server: ServerOptions { get }
}

extension ServerCommand {
    var speaks: Language { server.client.reportLanguage }
}

extension OpenMarketCommand {
    var speaks: Language { .ofLocale() }

    func run() async throws {
        Console.language = speaks
        let status: ExitStatus
        do { status = try await execute() } catch { throw Self.exit(for: error) }
        if status != .ok { throw ExitCode(status.rawValue) }
    }

    /// The one place a failure becomes an exit: said on stderr, with its kind's status.
    /// ArgumentParser's own exits (a usage error, `--help`) pass as they are.
    static func exit(for error: any Error) -> any Error {
        if error is ExitCode || error is CleanExit || error is ValidationError { return error }
        let failure = (error as? CommandFailure) ?? CommandFailure.from(error)
        Console.error("openmarket \(Self._commandName): \(failure.description)")
        return ExitCode(failure.exitCode.rawValue)
    }
}

/// A command that talks to one shop: the connection (and with no `--server`, the built-in
/// sandbox) opened before its work and closed after it, whatever happened.
protocol ShopCommand: ServerCommand {
    /// This command's settings of the client (its pace).
    func configure(_ client: inout ClientConfiguration)
    func execute(on connection: Connection) async throws -> ExitStatus
}

extension ShopCommand {
    func configure(_ client: inout ClientConfiguration) {}

    func execute() async throws -> ExitStatus {
        try await Connection.using(server, configure: configure) { try await execute(on: $0) }
    }
}

extension Connection {
    /// Opens the connection, runs `body`, and closes it whatever happened.
    static func using<T>(_ options: ServerOptions, configure: (inout ClientConfiguration) -> Void = { _ in },
                         _ body: (Connection) async throws -> T) async throws -> T {
        let connection = try await connect(options, configure: configure)
        do {
            let result = try await body(connection)
            await connection.close()
            return result
        } catch {
            await connection.close()
            throw error
        }
    }
}

extension ExitStatus {
    /// `status` when `condition` holds and nothing worse was said: the usual end of a run
    /// (`.someFailed` when rows failed).
    func or(_ status: ExitStatus, if condition: Bool) -> ExitStatus {
        self == .ok && condition ? status : self
    }
}
