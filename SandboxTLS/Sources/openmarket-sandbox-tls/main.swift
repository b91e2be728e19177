import Foundation
import Sandbox
import SandboxTLS

// `openmarket sandbox` over HTTPS (HTTP/2 by ALPN), as real servers behind TLS speak. A
// program of its own so that `openmarket` builds without a TLS library: this one compiles
// swift-nio-ssl's BoringSSL the first time it is built.
//   swift run openmarket-sandbox-tls --tls-cert server.pem --tls-key server.key [--data DIR] [--port N] [--idle-timeout S]
// Clients trust its certificate authority with `openmarket … --cacert ca.pem`.

func usage(_ problem: String? = nil) -> Never {
    if let problem { FileHandle.standardError.write(Data("openmarket-sandbox-tls: \(problem)\n".utf8)) }
    print("""
        USAGE: openmarket-sandbox-tls --tls-cert FILE --tls-key FILE [--data DIR] [--host ADDR] [--port N] [--idle-timeout SECONDS]

          --tls-cert FILE       certificate chain (PEM)
          --tls-key FILE        its private key (PEM)
          --data DIR            the sandbox's data folder (default .openmarket/sandbox, as `openmarket sandbox`)
          --host ADDR           address to listen on (default 127.0.0.1)
          --port N              port (default 8443; 0 picks a free one)
          --idle-timeout S      close a keep-alive connection idle this long (default 60)
        """)
    exit(problem == nil ? 0 : 64)
}

var configuration = SandboxConfiguration(dataDirectory: URL(fileURLWithPath: ".openmarket/sandbox"))
configuration.port = 8443
var certificate: String?
var key: String?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    if argument == "-h" || argument == "--help" { usage() }
    guard let value = arguments.next() else { usage("\(argument) needs a value") }
    switch argument {
    case "--tls-cert": certificate = value
    case "--tls-key": key = value
    case "--data": configuration.dataDirectory = URL(fileURLWithPath: value)
    case "--host": configuration.host = value
    case "--port":
        guard let port = Int(value), (0...65535).contains(port) else { usage("--port takes a number 0…65535") }
        configuration.port = port
    case "--idle-timeout":
        guard let seconds = Double(value), seconds > 0 else { usage("--idle-timeout takes seconds above 0") }
        configuration.idleTimeout = seconds
    default: usage("unknown option \(argument)")
    }
}
guard let certificate, let key else { usage("--tls-cert and --tls-key are needed") }
configuration.tls = (URL(fileURLWithPath: certificate), URL(fileURLWithPath: key))
do {
    let server = try await SandboxServer.start(serving: configuration, handleSignals: true)
    print("Open Market sandbox listening on \(server.url.absoluteString) (HTTPS, HTTP/2 by ALPN)")
    print("Data: \(configuration.dataDirectory.standardizedFileURL.path)")
    for vendor in server.vendors {
        print("  \(vendor.name) (id \(vendor.id))  identifier: \(vendor.identifier)  secret: \(vendor.secret)")
    }
    print("(Ctrl-C stops)")
    try await server.wait()
} catch {
    FileHandle.standardError.write(Data("openmarket-sandbox-tls: \(error)\n".utf8))
    exit(1)
}
