import Foundation
import Support
import Synchronization
import Testing
import TestSupport

/// The `openmarket` binary next to the test bundle, run as a child process.
final class CLIProcess: Sendable {
    private let process: ChildProcess
    private let output = OutputBuffer()
    private let errors = OutputBuffer()

    static var binary: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0])
            .deletingLastPathComponent().appendingPathComponent("openmarket")
    }

    /// One state folder for the whole test run; every sandbox's vendor is new, so
    /// each test's account has its own link store in it.
    static let stateHome = FileManager.default.temporaryDirectory
        .appendingPathComponent("openmarket-test-state-\(ProcessInfo.processInfo.processIdentifier)")

    init(_ arguments: [String], directory: URL? = nil, environment: [String: String] = [:]) throws {
        var env = startEnvironment
        for key in ["OPENMARKET_SERVER", "OPENMARKET_IDENTIFIER", "OPENMARKET_SECRET"] { env[key] = nil }
        // The reports' language is the locale's: English unless a test names one.
        for key in ["LC_ALL", "LC_MESSAGES", "LANG"] { env[key] = nil }
        // A home of its own, so that no real config file is read.
        env["XDG_CONFIG_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("no-config-\(UUID().uuidString)").path
        // State (link stores, journals) of the test run's own, never the user's.
        env["XDG_STATE_HOME"] = Self.stateHome.path
        // And caches (shrunk photos, photo hashes): never the user's ~/.cache.
        env["XDG_CACHE_HOME"] = Self.stateHome.appendingPathComponent("cache").path
        env.merge(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process = try ChildProcess(Self.binary.path, arguments, environment: env, directory: directory?.path,
                                   output: out.fileHandleForWriting.fileDescriptor, error: err.fileHandleForWriting.fileDescriptor)
        // The child has its own ends now: end of file comes when it (and what it started) exits.
        try out.fileHandleForWriting.close()
        try err.fileHandleForWriting.close()
        // A thread of its own per pipe, blocking in read(2) until end of file: a
        // readabilityHandler runs on a Dispatch queue, which a loaded test run can
        // starve for longer than any timeout (seen: 30 s with the child's first
        // line only).
        output.collect(from: out.fileHandleForReading)
        errors.collect(from: err.fileHandleForReading)
    }

    /// A test that fails before stopping its child leaves no server running.
    deinit { if process.isRunning { process.terminate() } }

    var stdout: String { output.text }
    var stderr: String { errors.text }

    /// Waits (without blocking a thread) until `condition` holds for stdout.
    func waitForOutput(timeout: Duration = .seconds(60), _ condition: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let text = stdout
            if condition(text) { return text }
            if output.isClosed {
                throw CLIFailure("closed its output before the expected line (running: \(process.isRunning)); stdout: \(text) stderr: \(stderr)")
            }
            // Looked at once more after the deadline: a starved task may wake up late.
            guard ContinuousClock.now < deadline else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CLIFailure("timed out; stdout so far: \(stdout)")
    }

    /// Waits for the child to exit and both its pipes to reach end of file (all it wrote is read).
    func exit(timeout: Duration = .seconds(120)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning || !output.isClosed || !errors.isClosed {
            guard ContinuousClock.now < deadline else {
                // Said with what was seen: still running, or gone with a pipe's end held elsewhere.
                let running = process.isRunning
                process.terminate()
                throw CLIFailure("did not exit in time (running: \(running), output closed: \(output.isClosed), errors closed: \(errors.isClosed)); "
                                 + "stdout: \(stdout.suffix(2_000)) stderr: \(stderr.suffix(2_000))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return process.exitCode ?? -1
    }

    func signal(_ signal: Int32) { process.signal(signal) }

    /// SIGKILL, then until the process is gone (`killed`): its output is not waited for.
    func kill() async throws {
        signal(SIGKILL)
        try await killed()
    }

    /// After SIGKILL: until the process is gone (its output is not waited for: under a loaded
    /// suite, a pipe's end can outlive it in a process spawned meanwhile by another test).
    func killed(timeout: Duration = .seconds(120)) async throws {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else { throw CLIFailure("did not die in time after a kill") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    var pid: Int32 { process.pid }

    static func run(_ arguments: [String], directory: URL? = nil, environment: [String: String] = [:],
                    timeout: Duration = .seconds(120)) async throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try CLIProcess(arguments, directory: directory, environment: environment)
        let status = try await child.exit(timeout: timeout)
        return (status, child.stdout, child.stderr)
    }
}

/// Bytes a child process wrote, collected by a reader thread.
final class OutputBuffer: Sendable {
    private let state = Mutex((data: Data(), closed: false))

    /// Reads `handle` on a thread of its own until end of file, then closes it.
    func collect(from handle: FileHandle) {
        let thread = Thread { [self] in
            let fd = handle.fileDescriptor
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    state.withLock { $0.data.append(contentsOf: chunk[0..<count]) }
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            try? handle.close()
            state.withLock { $0.closed = true }
        }
        thread.name = "cli-test-pipe"
        thread.start()
    }

    var text: String { state.withLock { String(decoding: $0.data, as: UTF8.self) } }
    /// The writer's end is closed (the child and anything it started have exited) and all is read.
    var isClosed: Bool { state.withLock { $0.closed } }
}

struct CLIFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("openmarket-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

@Suite("The openmarket command")
struct CLITests {
    @Test("--version names the tool and libcurl")
    func version() async throws {
        let result = try await CLIProcess.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("openmarket 0."))
        #expect(result.stdout.contains("libcurl 7.") || result.stdout.contains("libcurl 8."))
    }

    @Test("--help explains every command", arguments: [["--help"], ["sandbox", "--help"]])
    func help(_ arguments: [String]) async throws {
        let result = try await CLIProcess.run(arguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE:"))
        if arguments.first == "sandbox" {
            for option in ["--data", "--port", "--fail-rate", "--drop-rate", "--latency", "--rate-limit", "--add-vendor"] {
                #expect(result.stdout.contains(option), "\(option) missing from help")
            }
        } else {
            // Every command, under the group of work it belongs to.
            for group in ["CATALOG IN", "CATALOG OUT", "REVIEW AND UNDO", "PRODUCT", "SETUP"] {
                #expect(result.stdout.contains("\(group) SUBCOMMANDS:"), "\(group) missing from help")
            }
            for command in ["import", "validate", "template", "images", "export", "migrate", "runs", "undo",
                            "list", "show", "delete", "health", "sandbox", "open", "doctor"] {
                #expect(result.stdout.contains("\n  \(command) "), "\(command) missing from help")
            }
        }
    }

    @Test("bad options are refused with a message and exit code 64")
    func badOptions() async throws {
        let result = try await CLIProcess.run(["sandbox", "--fail-rate", "2"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--fail-rate must be 0…1, got 2.0"), "\(result.stderr)")
        // HTTPS is a program in a package of its own: the refusal names the command that runs it.
        let tls = try await CLIProcess.run(["sandbox", "--tls-cert", "server.pem", "--tls-key", "server.key"])
        #expect(tls.status == 64)
        #expect(tls.stderr.contains("swift run --package-path SandboxTLS openmarket-sandbox-tls --tls-cert FILE --tls-key FILE")
                && tls.stderr.contains("nginx"), "\(tls.stderr)")
    }

    @Test("sandbox prints its URL and vendor credentials, answers the health check, stops on SIGTERM")
    func sandboxLifecycle() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let child = try CLIProcess(["sandbox", "--port", "0", "--data", "data"], directory: directory)
        let text = try await child.waitForOutput { $0.contains("Ctrl-C") }
        let urlLine = try #require(text.split(separator: "\n").first { $0.contains("listening on http://127.0.0.1:") })
        let url = String(try #require(urlLine.split(separator: " ").last))
        #expect(!url.hasSuffix(":0"))
        #expect(text.contains("demo-shop") && text.contains("second-shop"))
        #expect(text.components(separatedBy: "identifier: ").count == 3)
        #expect(try await curl(["\(url)/healthChecker"]).text == "OK")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/sandbox.sqlite").path))
        // The catalog pages' URL is printed, and `open` finds it again.
        #expect(text.contains("Catalog: \(url)/"))
        let open = try await CLIProcess.run(["open", "--data", "data", "--no-browser"], directory: directory)
        #expect(open.status == 0 && open.stdout == "\(url)/\n", "\(open.stdout)\(open.stderr)")
        #expect(try await curl(["\(url)/"]).text.contains("<title>Open Market sandbox</title>"))
        child.signal(SIGTERM)
        #expect(try await child.exit() == 0)
        let closed = try await CLIProcess.run(["open", "--data", "data", "--no-browser"], directory: directory)
        #expect(closed.status == 3 && closed.stderr.contains("no sandbox is running"), "\(closed.stderr)")

        // An added vendor is printed once, and listed at the next start.
        let added = try await CLIProcess.run(["sandbox", "--data", "data", "--add-vendor", "night-market"], directory: directory)
        #expect(added.status == 0)
        #expect(added.stdout.contains("night-market") && added.stdout.contains("secret:"))
        let again = try CLIProcess(["sandbox", "--port", "0", "--data", "data"], directory: directory)
        let second = try await again.waitForOutput { $0.contains("Ctrl-C") }
        #expect(second.contains("night-market"))
        again.signal(SIGINT)
        #expect(try await again.exit() == 0)
    }

    @Test("a port in use is a clear error, not a hang")
    func portInUse() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try CLIProcess(["sandbox", "--port", "0", "--data", "a"], directory: directory)
        let text = try await first.waitForOutput { $0.contains("Ctrl-C") }
        let port = try #require(text.split(separator: "\n").first { $0.contains("listening on") }?.split(separator: ":").last)
        let second = try await CLIProcess.run(["sandbox", "--port", String(port), "--data", "b"], directory: directory)
        #expect(second.status != 0)
        #expect(second.stderr.lowercased().contains("address already in use") || second.stderr.contains(String(port)),
                "stderr: \(second.stderr)")
        first.signal(SIGTERM)
        _ = try await first.exit()
    }
}
