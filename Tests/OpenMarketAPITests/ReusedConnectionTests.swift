import Foundation
import OpenMarketAPI
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A server on a raw socket that answers GETs with keep-alive and, for a POST, reads the
/// whole request and closes the connection without a word: the request was processed
/// and the answer lost, on a connection the client reused.
final class ClosingServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var posts = 0
    private var connections = 0

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    var postsReceived: Int { lock.withLock { posts } }
    var connectionsAccepted: Int { lock.withLock { connections } }

    func close() { shutdown(listener, Int32(SHUT_RDWR)); Glibc.close(listener) }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            lock.withLock { connections += 1 }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        defer { Glibc.close(client) }
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            // One request: its head, then Content-Length bytes of body.
            var head: Range<Int>?
            while head == nil {
                let n = recv(client, &chunk, chunk.count, 0)
                if n <= 0 { return }
                buffer += chunk[0..<n]
                head = buffer.firstRange(of: Array("\r\n\r\n".utf8))
            }
            let text = String(decoding: buffer[..<head!.lowerBound], as: UTF8.self)
            let length = text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            while buffer.count < head!.upperBound + length {
                let n = recv(client, &chunk, chunk.count, 0)
                if n <= 0 { return }
                buffer += chunk[0..<n]
            }
            buffer.removeFirst(head!.upperBound + length)
            if text.hasPrefix("POST") {
                lock.withLock { posts += 1 }
                return  // processed; the answer is lost with the connection
            }
            let answer = Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nOK".utf8)
            _ = answer.withUnsafeBytes { send(client, $0.baseAddress, answer.count, Int32(MSG_NOSIGNAL)) }
        }
    }
}

@Suite("Reused connections and exactly-once registers")
struct ReusedConnectionTests {
    /// libcurl sends a request again on a new connection, silently, when a reused one dies
    /// before any answer byte (lib/transfer.c, Curl_retry_request). For a register the
    /// server may have processed, that is a duplicate product: the client's body refuses to
    /// be rewound, so the register ends ambiguous (the import then looks it up first).
    @Test("a register on a reused connection that dies unanswered is sent once and reported ambiguous")
    func registerIsNotResent() throws {
        let server = try ClosingServer()
        defer { server.close() }
        var configuration = ClientConfiguration(server: URL(string: "http://127.0.0.1:\(server.port)")!,
                                                credentials: VendorCredentials(identifier: "id", secret: "secret"))
        configuration.retry = .none
        configuration.generation = .v2022October  // the connection's exchanges are counted
        let client = try OpenMarketClient(configuration)
        #expect(try client.health() == "OK")
        #expect(server.connectionsAccepted == 1)
        let product = Product(name: "Tea", description: "", price: 1000, currency: "KRW", stock: 1)
        let image = UploadImage(data: Data(repeating: 0xFF, count: 10_000), filename: "1.jpg", mimeType: "image/jpeg")
        #expect {
            try client.register(product, images: [image])
        } throws: { error in
            guard case .ambiguous = error as? OpenMarketError else { return false }
            return true
        }
        // Sent on the reused connection, never again on a new one (libcurl opens the new
        // connection, then cannot rewind the body, and stops).
        Thread.sleep(forTimeInterval: 0.2)
        #expect(server.postsReceived == 1, "libcurl sent the register again")
    }

    @Test("requests that may be repeated reuse the connection: reads and health checks on one connection")
    func readsReuse() throws {
        let server = try ClosingServer()
        defer { server.close() }
        let client = try OpenMarketClient(ClientConfiguration(server: URL(string: "http://127.0.0.1:\(server.port)")!))
        for _ in 0..<5 { #expect(try client.health() == "OK") }
        #expect(server.connectionsAccepted == 1)
    }
}
