import Foundation
import LocalListener
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A small server that answers with files captured from the live servers, byte for byte:
/// each route serves one file (or a literal text), as that generation answered it. Not the
/// sandbox: nothing here was written by this project.
public struct CaptureServer: Sendable {
    public let url: String
    private let stopServer: @Sendable () async -> Void

    /// The captured answers beside the tests (a copy of `../shared/fixtures/real`).
    public static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/real")

    public enum Body: Sendable {
        case file(String)
        case text(String)
        case status(Int, String)
        case fileWithStatus(Int, String)
    }

    /// `routes`: a path (its query ignored), or `METHOD path` for another method than GET, →
    /// what it answers.
    public static func start(_ routes: [String: Body]) async throws -> CaptureServer {
        let router = Router()
        for (route, body) in routes {
            let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
            let method = parts.count == 2 ? HTTPRequest.Method(rawValue: parts[0]) ?? .get : .get
            let path = parts.count == 2 ? parts[1] : route
            router.on(RouterPath(path), method: method) { _, _ in
                switch body {
                case .file(let name):
                    let data = try Data(contentsOf: fixtures.appendingPathComponent(name))
                    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
                case .fileWithStatus(let code, let name):
                    let data = try Data(contentsOf: fixtures.appendingPathComponent(name))
                    return Response(status: .init(code: code), headers: [.contentType: "application/json"],
                                    body: .init(byteBuffer: ByteBuffer(bytes: data)))
                case .text(let text):
                    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
                case .status(let code, let text):
                    return Response(status: .init(code: code), headers: [.contentType: "application/json"],
                                    body: .init(byteBuffer: ByteBuffer(string: text)))
                }
            }
        }
        let server = try await LocalServer.start(router, label: "captures")
        return CaptureServer(url: server.url.absoluteString, stopServer: server.stop)
    }

    public func stop() async { await stopServer() }
}

/// A Hummingbird router served on a free loopback port, for servers a test writes by hand.
public struct LocalServer: Sendable {
    public let url: URL
    public let stop: @Sendable () async -> Void

    public static func start(_ router: Router<BasicRequestContext>, label: String) async throws -> LocalServer {
        let service = try await ListeningService.start(label: label, logger: Logger(label: label)) { onServerRunning in
            Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), onServerRunning: onServerRunning)
        }
        return LocalServer(url: URL(string: "http://127.0.0.1:\(service.port)")!, stop: { await service.stop() })
    }
}

/// A local server on 127.0.0.1 that answers every page with a line of HTML and keeps the
/// `Cookie` headers it was sent: another local program, as a browser visits it.
public final class CookieWitness: @unchecked Sendable {
    public private(set) var url: URL = URL(string: "http://127.0.0.1")!
    private var server: LocalServer?
    private let lock = NSLock()
    private var seen: [String] = []
    private var requests = 0

    private init() {}

    public static func start() async throws -> CookieWitness {
        let witness = CookieWitness()
        let router = Router()
        @Sendable func answer(_ request: Request, _ context: BasicRequestContext) -> Response {
            witness.lock.withLock {
                witness.requests += 1
                witness.seen.append(contentsOf: request.headers[values: .cookie])
            }
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: "<!doctype html><title>another local app</title><p id=\"other\">another local app</p>")))
        }
        router.get("/", use: answer)
        router.get("**", use: answer)
        let server = try await LocalServer.start(router, label: "cookie-witness")
        witness.server = server
        witness.url = server.url
        return witness
    }

    /// Every `Cookie` header received, and how many requests came.
    public var cookies: (headers: [String], requests: Int) { lock.withLock { (seen, requests) } }

    public func stop() async { await server?.stop() }
}
