import Foundation

/// A certificate authority and a server certificate for 127.0.0.1 made with openssl for a
/// test (HTTPS to the sandbox, as to a real server with its own CA).
public struct TestCertificates: Sendable {
    public let ca: URL
    public let certificate: URL
    public let key: URL

    public static func make(in folder: URL) throws -> TestCertificates {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        try Data("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n".utf8).write(to: folder.appendingPathComponent("ext.cnf"))
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try run(["req", "-x509"] + curve + ["-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2", "-subj", "/CN=openmarket test CA"])
        try run(["req"] + curve + ["-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=127.0.0.1"])
        try run(["x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"), "-CAcreateserial",
                 "-out", path("server.pem"), "-days", "2", "-extfile", path("ext.cnf")])
        return TestCertificates(ca: URL(fileURLWithPath: path("ca.pem")), certificate: URL(fileURLWithPath: path("server.pem")),
                                key: URL(fileURLWithPath: path("server.key")))
    }

    static func run(_ arguments: [String]) throws {
        guard try runTool("/usr/bin/openssl", arguments) == 0 else {
            throw TestFailure("openssl \(arguments.prefix(2).joined(separator: " ")) failed")
        }
    }
}
