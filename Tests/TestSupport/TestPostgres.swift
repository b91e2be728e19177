import Foundation
import Support

/// A throwaway PostgreSQL server on 127.0.0.1 and a free port, its data in a temporary folder,
/// started by the tests (Debian's `postgresql` package: scripts/install-deps). PostgreSQL
/// refuses to run as root, so as root it runs as the package's `postgres` user.
public final class TestPostgres: @unchecked Sendable {
    public let folder: URL
    public let port: Int
    private var process: ChildProcess
    /// How the server is started again (`restart`): the same data, port and settings.
    private var launch: () throws -> ChildProcess = { throw TestFailure("not started") }

    /// `postgresql://openmarket@127.0.0.1:PORT/postgres`: trust for the local test user only.
    public var address: URL { URL(string: "postgresql://openmarket@127.0.0.1:\(port)/postgres")! }

    private init(folder: URL, port: Int, process: ChildProcess) {
        self.folder = folder
        self.port = port
        self.process = process
    }

    /// The server binaries: Debian keeps them under /usr/lib/postgresql/VERSION/bin.
    static func binaries() throws -> URL {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).sorted { $0.compare($1, options: .numeric) == .orderedDescending }
        for version in versions where FileManager.default.isExecutableFile(atPath: root.appendingPathComponent("\(version)/bin/initdb").path) {
            return root.appendingPathComponent("\(version)/bin")
        }
        throw TestFailure("no PostgreSQL server under /usr/lib/postgresql: run scripts/install-deps --tests (postgresql)")
    }

    /// Started on a thread of its own: the test's cooperative threads (which in-process servers
    /// answer on) are never held while PostgreSQL starts.
    public static func start() async throws -> TestPostgres { try await blocking { try startBlocking() } }

    public func stop() async { _ = try? await blocking { [self] in stopBlocking() } }

    static func startBlocking() throws -> TestPostgres {
        let bin = try binaries()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openmarket-postgres-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let asRoot = getuid() == 0
        if asRoot {
            guard let user = getpwnam("postgres") else { throw TestFailure("running as root and no postgres user to run PostgreSQL as") }
            chown(folder.path, user.pointee.pw_uid, user.pointee.pw_gid)
        }
        let data = folder.appendingPathComponent("data").path
        func command(_ tool: String, _ arguments: [String]) -> (URL, [String]) {
            let path = bin.appendingPathComponent(tool).path
            return asRoot ? (URL(fileURLWithPath: "/usr/sbin/runuser"), ["-u", "postgres", "--", path] + arguments) : (URL(fileURLWithPath: path), arguments)
        }
        let (initdb, initArguments) = command("initdb", ["-D", data, "-U", "openmarket", "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C"])
        let setup = try runToolOutput(initdb.path, initArguments)
        guard setup.status == 0 else { throw TestFailure("initdb failed (\(setup.status)) in \(folder.path): \(setup.output)") }
        let port = try LocalPorts.free()
        let (postgres, serverArguments) = command("postgres", ["-D", data, "-p", String(port), "-h", "127.0.0.1", "-k", folder.path,
                                                               "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"])
        let launch = { try ChildProcess(postgres.path, serverArguments, environment: startEnvironment) }
        let started = TestPostgres(folder: folder, port: port, process: try launch())
        started.launch = launch
        // Ready when it accepts sessions, not only connections ("the database system is starting up").
        for _ in 0..<400 {
            if LocalPorts.canConnect(port), started.ready(bin) { return started }
            Thread.sleep(forTimeInterval: 0.025)
        }
        started.stopBlocking()
        throw TestFailure("PostgreSQL did not listen on \(port)")
    }

    private func ready(_ bin: URL) -> Bool {
        let status = try? runTool(bin.appendingPathComponent("pg_isready").path,
                                  ["-q", "-h", "127.0.0.1", "-p", String(port), "-U", "openmarket", "-d", "postgres"])
        return status == 0
    }

    /// The server stopped (a fast shutdown: every session ended, as in a failover), down for
    /// `down` seconds, then started again on the same port with the same data.
    public func restart(down: Double) async throws {
        try await blocking { [self] in
            shutDown()
            Thread.sleep(forTimeInterval: down)
            process = try launch()
            let bin = try Self.binaries()
            for _ in 0..<400 {
                if LocalPorts.canConnect(port), ready(bin) { return }
                Thread.sleep(forTimeInterval: 0.025)
            }
            throw TestFailure("PostgreSQL did not come back on \(port)")
        }
    }

    private func shutDown() {
        if process.isRunning, let bin = try? Self.binaries() {
            let data = folder.appendingPathComponent("data").path
            let tool = bin.appendingPathComponent("pg_ctl").path
            _ = try? runTool(getuid() == 0 ? "/usr/sbin/runuser" : tool,
                             (getuid() == 0 ? ["-u", "postgres", "--", tool] : []) + ["stop", "-D", data, "-m", "fast", "-w"])
            for _ in 0..<400 where process.isRunning { Thread.sleep(forTimeInterval: 0.025) }
        }
    }

    /// A fast shutdown (`pg_ctl stop -m fast`: the signal does not cross runuser), then the
    /// folder removed.
    public func stopBlocking() {
        shutDown()
        try? FileManager.default.removeItem(at: folder)
    }
}
