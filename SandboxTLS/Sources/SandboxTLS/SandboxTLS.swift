import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import NIOSSL
import Sandbox

/// The sandbox over HTTPS, as real servers behind TLS speak: HTTP/2 by ALPN, HTTP/1.1 to a
/// client that asks for it. In a package of its own (SandboxTLS/, with swift-nio-ssl's BoringSSL)
/// with `openmarket-sandbox-tls`, so that neither `openmarket` nor its tests build it.
extension SandboxServer {
    /// Starts the sandbox, over HTTPS when `configuration.tls` names a certificate and key.
    public static func start(serving configuration: SandboxConfiguration, handleSignals: Bool = false) async throws -> SandboxServer {
        try await start(configuration, handleSignals: handleSignals, server: try tlsServer(configuration))
    }

    /// HTTPS with HTTP/2 by ALPN for a configuration with a certificate; nil (HTTP/1.1) without.
    public static func tlsServer(_ configuration: SandboxConfiguration) throws -> HTTPServerBuilder? {
        guard let (certificate, key) = configuration.tls else { return nil }
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(certificate.path).map { NIOSSLCertificateSource.certificate($0) }
            let tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain, privateKey: .privateKey(try NIOSSLPrivateKey(file: key.path, format: .pem)))
            // The idle timer (from the connection's start) and a graceful stop both send GOAWAY
            // and a PING; once the client answers, its open streams get a second to finish.
            // A client that never answers keeps the connection: libcurl reads nothing on an
            // idle connection, so a client in this process must be gone before `stop()`.
            return try .http2Upgrade(tlsConfiguration: tls, configuration: .init(
                idleTimeout: .milliseconds(Int64(configuration.idleTimeout * 1000)), gracefulCloseTimeout: .seconds(1)))
        } catch {
            throw SandboxStartError(message: "cannot use the TLS certificate \(certificate.path) and key \(key.path): \(error)")
        }
    }
}
