import CSpawn
import Foundation

/// A program run as a child process, with posix_spawn. Not Foundation's `Process`: on Linux its
/// `run()` reads /proc/self/fd with a copy that runs past short directory records, and crashes
/// the whole program now and then (swift-corelibs-foundation #5472; seen here in 2 of 4 runs of
/// the test suite, which starts a child for every CLI run and every curl).
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    private let lock = NSLock()
    private var waitStatus: Int32?
    private var handlers: [@Sendable (Int32) -> Void] = []
    private let ended = DispatchSemaphore(value: 0)

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Starts `executable` (a path) with `arguments`; `environment` nil: this process's.
    /// `input`, `output`, `error`: descriptors the child gets as 0, 1, 2 (nil: /dev/null); the
    /// caller keeps and closes its own.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
                input: Int32? = nil, output: Int32? = nil, error: Int32? = nil) throws {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let environment = environment ?? ProcessInfo.processInfo.environment
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var started = pid_t()
        let result = argv.withUnsafeBufferPointer { args in
            envp.withUnsafeBufferPointer { env in
                openmarket_spawn(&started, executable, args.baseAddress, env.baseAddress, directory, input ?? -1, output ?? -1, error ?? -1)
            }
        }
        guard result == 0 else { throw Failure(description: "cannot start \(executable): \(String(cString: strerror(result)))") }
        let pid = started
        self.pid = pid
        // One thread waits for it (waitpid of this child only, as Foundation's Process does).
        let thread = Thread { [self] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            let code = Self.code(status)
            let toTell = lock.withLock { () -> [@Sendable (Int32) -> Void] in
                waitStatus = status
                defer { handlers = [] }
                return handlers
            }
            ended.signal()
            for handler in toTell { handler(code) }
        }
        thread.name = "openmarket.child"
        thread.start()
    }

    /// The exit status, or the number of the signal that ended it (as Foundation's `terminationStatus`).
    static func code(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : signal
    }

    public var isRunning: Bool { lock.withLock { waitStatus == nil } }

    /// The status it ended with; nil while it runs.
    public var exitCode: Int32? { lock.withLock { waitStatus.map(Self.code) } }

    /// Whether it was ended by a signal (nil while it runs).
    public var endedBySignal: Bool? { lock.withLock { waitStatus.map { $0 & 0x7f != 0 } } }

    /// Blocks until it ends; its exit status (or its signal's number).
    @discardableResult
    public func wait() -> Int32 {
        ended.wait()
        ended.signal()
        return exitCode ?? -1
    }

    /// Blocks until it ends or `seconds` pass; its exit status, nil if it still runs.
    public func wait(seconds: Double) -> Int32? {
        guard ended.wait(timeout: .now() + seconds) == .success else { return nil }
        ended.signal()
        return exitCode
    }

    /// Until it ends, without holding a thread of the caller.
    public func ended() async -> Int32 {
        await withCheckedContinuation { continuation in
            let code: Int32? = lock.withLock {
                if let waitStatus { return Self.code(waitStatus) }
                handlers.append { continuation.resume(returning: $0) }
                return nil
            }
            if let code { continuation.resume(returning: code) }
        }
    }

    public func signal(_ number: Int32) { _ = kill(pid, number) }

    public func terminate() { signal(SIGTERM) }
}
