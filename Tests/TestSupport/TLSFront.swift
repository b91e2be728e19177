import Foundation
import Support

/// nginx terminating TLS in front of a plain HTTP server on 127.0.0.1, as a real shop's or
/// supplier's server sits behind one: HTTP/2 by ALPN, HTTP/1.1 to a client that asks for it,
/// `Host` and `X-Forwarded-Proto: https` passed on. The tests' HTTPS without a TLS library in
/// the build (swift-nio-ssl's BoringSSL was a quarter of a clean build's CPU).
///
/// An answer the server behind drops reaches the client as nginx's 502, as it does behind any
/// front; a connection idle for `idleTimeout` seconds is closed by nginx.
public final class TLSFront: Sendable {
    public let port: Int
    private let process: ChildProcess
    private let folder: URL

    private init(port: Int, process: ChildProcess, folder: URL) {
        self.port = port
        self.process = process
        self.folder = folder
    }

    /// Returns once nginx accepts connections; the waiting is done on a thread of its own, never
    /// on the cooperative pool.
    public static func start(upstream: Int, certificate: URL, key: URL, idleTimeout: Double? = nil) async throws -> TLSFront {
        try await blocking { try startBlocking(upstream: upstream, certificate: certificate, key: key, idleTimeout: idleTimeout) }
    }

    private static func startBlocking(upstream: Int, certificate: URL, key: URL, idleTimeout: Double?) throws -> TLSFront {
        let nginx = "/usr/sbin/nginx"
        guard FileManager.default.isExecutableFile(atPath: nginx) else {
            throw TestFailure("HTTPS tests need nginx in front of the server: scripts/install-deps --tests")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-front-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var lastError = ""
        // A free port can be taken between asking and binding: a few tries.
        for _ in 0..<5 {
            let port = try LocalPorts.free()
            let keepalive = idleTimeout.map { "\(max(1, Int($0 * 1000)))ms" } ?? "75s"
            let config = """
                daemon off;
                master_process off;
                worker_processes 1;
                pid \(folder.path)/nginx.pid;
                error_log \(folder.path)/error.log warn;
                events { worker_connections 512; }
                http {
                    access_log off;
                    client_body_temp_path \(folder.path)/body;
                    proxy_temp_path \(folder.path)/proxy;
                    fastcgi_temp_path \(folder.path)/fastcgi;
                    uwsgi_temp_path \(folder.path)/uwsgi;
                    scgi_temp_path \(folder.path)/scgi;
                    client_max_body_size 0;
                    keepalive_timeout \(keepalive);
                    server {
                        listen 127.0.0.1:\(port) ssl http2;
                        ssl_certificate \(certificate.path);
                        ssl_certificate_key \(key.path);
                        location / {
                            proxy_pass http://127.0.0.1:\(upstream);
                            proxy_http_version 1.1;
                            proxy_set_header Connection "";
                            proxy_set_header Host $host:$server_port;
                            proxy_set_header X-Forwarded-Proto https;
                            proxy_buffering off;
                            proxy_request_buffering off;
                            proxy_read_timeout 300s;
                        }
                    }
                }
                """
            let file = folder.appendingPathComponent("nginx.conf")
            try Data(config.utf8).write(to: file)
            let log = folder.appendingPathComponent("output.log")
            guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw TestFailure("cannot create \(log.path)") }
            let handle = try FileHandle(forWritingTo: log)
            defer { try? handle.close() }
            let process = try ChildProcess(nginx, ["-p", folder.path, "-c", file.path, "-e", "\(folder.path)/error.log"],
                                           environment: startEnvironment, output: handle.fileDescriptor, error: handle.fileDescriptor)
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning && !LocalPorts.canConnect(port) && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            if process.isRunning && LocalPorts.canConnect(port) { return TLSFront(port: port, process: process, folder: folder) }
            process.terminate()
            lastError = (try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
            lastError += (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        }
        try? FileManager.default.removeItem(at: folder)
        throw TestFailure("nginx did not start in front of 127.0.0.1:\(upstream): \(lastError)")
    }

    /// Stops nginx (open connections are closed) and removes its folder, off the cooperative pool.
    public func stop() async {
        _ = try? await blocking { self.stopBlocking() }
    }

    private func stopBlocking() {
        process.terminate()
        if process.wait(seconds: 10) == nil {
            process.signal(SIGKILL)
            _ = process.wait()
        }
        try? FileManager.default.removeItem(at: folder)
    }
}
