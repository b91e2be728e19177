import Foundation
import Support

/// A real OpenSSH server on 127.0.0.1 (Debian's openssh-server), for feeds fetched over
/// SFTP: host and client keys made with ssh-keygen, a free port, the known_hosts line.
/// sshd needs root to run this way; `available` says whether it can here.
public final class SSHServer: @unchecked Sendable {
    public let folder: URL
    public let port: Int
    private let process: ChildProcess

    public static var available: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/sshd")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/ssh-keygen")
    }

    public var clientKey: URL { folder.appendingPathComponent("client_key") }
    public var knownHosts: URL { folder.appendingPathComponent("known_hosts") }
    public var user: String { String(cString: getpwuid(getuid()).pointee.pw_name) }

    public static func start(in folder: URL) throws -> SSHServer {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["host_key", "client_key", "other_key"] {
            try run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", folder.appendingPathComponent(name).path])
        }
        try FileManager.default.copyItem(at: folder.appendingPathComponent("client_key.pub"), to: folder.appendingPathComponent("authorized_keys"))
        let port = try LocalPorts.free()
        let config = """
            Port \(port)
            ListenAddress 127.0.0.1
            HostKey \(folder.path)/host_key
            AuthorizedKeysFile \(folder.path)/authorized_keys
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            UsePAM no
            StrictModes no
            PidFile \(folder.path)/sshd.pid
            Subsystem sftp internal-sftp
            PermitRootLogin prohibit-password
            """
        try Data(config.utf8).write(to: folder.appendingPathComponent("sshd_config"))
        let hostKey = try String(contentsOf: folder.appendingPathComponent("host_key.pub"), encoding: .utf8).split(separator: " ").prefix(2)
        try Data("[127.0.0.1]:\(port) \(hostKey.joined(separator: " "))\n".utf8).write(to: folder.appendingPathComponent("known_hosts"))
        try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        let process = try ChildProcess("/usr/sbin/sshd", ["-D", "-e", "-f", folder.appendingPathComponent("sshd_config").path],
                                       environment: startEnvironment)
        let server = SSHServer(folder: folder, port: port, process: process)
        // Ready when it accepts a connection.
        for _ in 0..<200 {
            if LocalPorts.canConnect(port) { return server }
            Thread.sleep(forTimeInterval: 0.025)
        }
        server.stop()
        throw TestFailure("sshd did not start on port \(port)")
    }

    private init(folder: URL, port: Int, process: ChildProcess) {
        self.folder = folder
        self.port = port
        self.process = process
    }

    /// A known_hosts file that names another key for this server (a server that is not the one expected).
    public func wrongKnownHosts() throws -> URL {
        let other = try String(contentsOf: folder.appendingPathComponent("other_key.pub"), encoding: .utf8).split(separator: " ").prefix(2)
        let url = folder.appendingPathComponent("wrong_known_hosts")
        try Data("[127.0.0.1]:\(port) \(other.joined(separator: " "))\n".utf8).write(to: url)
        return url
    }

    /// SIGKILL: a child started from a test thread may have SIGTERM blocked.
    public func stop() {
        process.signal(SIGKILL)
    }

    static func run(_ tool: String, _ arguments: [String]) throws {
        guard try runTool(tool, arguments) == 0 else { throw TestFailure("\(tool) \(arguments.joined(separator: " ")) failed") }
    }
}
