import Foundation
import OpenMarketAPI
import Sandbox
import Testing
import TestSupport

@Suite("HTTPS: the sandbox as a real server speaks it, the client trusts its own CA")
struct TLSTests {
    @Test("the sandbox over HTTPS (nginx in front, as a real server behind TLS): HTTP/2 by ALPN (HTTP/1.1 when asked), the client with --cacert writes and reads, image URLs are https; without the CA it refuses")
    func https() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let certificates = try TestCertificates.make(in: files.directory.appendingPathComponent("tls"))
        let sandbox = try await TestSandbox.start { $0.tls = (certificates.certificate, certificates.key) }
        #expect(sandbox.url.hasPrefix("https://127.0.0.1:"))
        // On threads of their own: the sandbox answers on the cooperative pool, which a
        // blocking wait here would take from it (two such waits hung the whole suite).
        let url = sandbox.url, ca = certificates.ca
        #expect(try await blocking { try Self.httpVersion(url, ca: ca) } == "2")
        #expect(try await blocking { try Self.httpVersion(url, ca: ca, extra: ["--http1.1"]) } == "1.1")

        try await Self.writeAndRead(sandbox, ca: certificates.ca)
        await sandbox.stop()
    }

    @Test("behind a TLS front: image URLs take the scheme from X-Forwarded-Proto and the host from Host")
    func forwarded() async throws {
        let sandbox = try await TestSandbox.start()
        let client = try TestSupport.client(sandbox, sandbox.demo)
        let created = try await blocking {
            try client.register(Product(name: "Behind a front", description: "", price: 1000, currency: "KRW", discountedPrice: 0, stock: 1),
                                images: [UploadImage(data: Data(try Fixtures.jpeg(width: 32, height: 32)), filename: "p.jpg", mimeType: "image/jpeg")])
        }
        let answer = try await curl(["-H", "X-Forwarded-Proto: https", "-H", "Host: shop.example", "\(sandbox.url)/api/products/\(created.id)"])
        let detail = try answer.decode(ProductDetail.self)
        #expect(detail.images?.first?.url == "https://shop.example/images/\(detail.images!.first!.id).jpg", "\(detail.images?.first?.url ?? "")")
        await sandbox.stop()
    }

    static func writeAndRead(_ sandbox: TestSandbox, ca: URL) async throws {
        var configuration = ClientConfiguration(server: URL(string: sandbox.url)!, credentials: VendorCredentials(
            identifier: sandbox.demo.identifier, secret: sandbox.demo.secret))
        configuration.transport.caFile = ca.path
        let client = try OpenMarketClient(configuration)
        let photo = try Fixtures.jpeg(width: 64, height: 48)
        let created = try await blocking {
            try client.register(Product(name: "Green tea over TLS", description: "", price: 1000, currency: "KRW", discountedPrice: 0, stock: 1),
                                images: [UploadImage(data: Data(photo), filename: "p.jpg", mimeType: "image/jpeg")])
        }
        let image = try #require(created.images?.first)
        #expect(image.url.hasPrefix("https://127.0.0.1:") && created.summary.thumbnail.hasPrefix("https://"))
        let downloaded = try await blocking { try client.download(image.url, maxBytes: 1 << 20) }
        #expect([UInt8](downloaded) == photo)
        #expect(client.statistics.connections == 1, "the register and the download share one connection: \(client.statistics)")

        let untrusting = try OpenMarketClient(ClientConfiguration(server: URL(string: sandbox.url)!))
        let refused = await #expect(throws: OpenMarketError.self) { _ = try await blocking { try untrusting.health() } }
        #expect("\(refused.map { "\($0)" } ?? "")".contains("certificate"), "\(String(describing: refused))")
    }

    /// The HTTP version curl negotiated with the server.
    static func httpVersion(_ url: String, ca: URL, extra: [String] = []) throws -> String {
        try runToolOutput("/usr/bin/curl", ["-s", "--max-time", "60", "-o", "/dev/null", "-w", "%{http_version}", "--cacert", ca.path] + extra
                          + ["\(url)/healthChecker"]).output
    }
}
