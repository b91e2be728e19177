import Foundation
import Hummingbird
import LocalListener
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A supplier's web server on 127.0.0.1 for feed tests: `GET /feed.csv` serves whatever
/// the test set (with an ETag and Last-Modified, and 304 to a conditional GET when
/// `conditional`), `POST /hook` records webhook bodies (answering `hookStatus`).
public final class FeedSourceServer: Sendable {
    struct State {
        var body = Data()
        var contentType = "text/csv; charset=utf-8"
        var conditional = true
        var version = 1
        var gets = 0
        var notModified = 0
        var hooks: [String] = []
        var hookStatus = 200
        var photos: [String: Data] = [:]
        /// GETs of the feed answered 503 before it is served.
        var failures = 0
    }

    private let state = Mutex(State())
    private let service: ListeningService
    private let front: TLSFront?
    public let port: Int
    /// `https` when started with a certificate (a supplier behind its own CA).
    public let scheme: String

    public var feedURL: String { "\(scheme)://127.0.0.1:\(port)/feed.csv" }
    public var hookURL: String { "\(scheme)://127.0.0.1:\(port)/hook" }

    /// Serves `text` from now on (a new version: a new ETag).
    public func serve(_ text: String, contentType: String = "text/csv; charset=utf-8") {
        state.withLock {
            $0.body = Data(text.utf8)
            $0.contentType = contentType
            $0.version += 1
        }
    }

    /// Serves `bytes` at `/photos/NAME`; returns its URL.
    public func servePhoto(_ name: String, _ bytes: [UInt8]) -> String {
        state.withLock { $0.photos[name] = Data(bytes) }
        return "\(scheme)://127.0.0.1:\(port)/photos/\(name)"
    }

    public func answerConditionalGets(_ yes: Bool) { state.withLock { $0.conditional = yes } }
    public func answerHooks(with status: Int) { state.withLock { $0.hookStatus = status } }
    /// The next `count` GETs of the feed are answered 503 (a server restarting).
    public func fail(next count: Int) { state.withLock { $0.failures = count } }
    /// GETs of the feed so far, and how many were answered 304.
    public var gets: (all: Int, notModified: Int) { state.withLock { ($0.gets, $0.notModified) } }
    /// The webhook bodies received, oldest first.
    public var hooks: [String] { state.withLock { $0.hooks } }

    private init(port: Int, scheme: String, service: ListeningService, front: TLSFront?) {
        self.port = port
        self.scheme = scheme
        self.service = service
        self.front = front
    }

    /// Over HTTPS with `tls` (its certificate signed by a test CA a client must be given).
    public static func start(tls: TestCertificates? = nil) async throws -> FeedSourceServer {
        let holder = Holder()
        let router = Router()
        router.get("/feed.csv") { request, _ -> Response in
            holder.server!.answerFeed(request)
        }
        router.get("/photos/:name") { _, context -> Response in
            holder.server!.photo(context.parameters.get("name") ?? "")
        }
        router.post("/hook") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            return holder.server!.record(String(buffer: body))
        }
        var logger = Logger(label: "feed-source")
        logger.logLevel = .warning
        let configuration = ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0))
        // On the servers' own threads, as the sandbox's: a test that blocks the cooperative pool
        // (2 threads on 2 cores) must not hold the supplier's answers (a feed fetched twice, a
        // Shopify import at 0.1 rows/s, in a full run).
        let service = try await ListeningService.start(label: "feed source", logger: logger) { running in
            Application(router: router, configuration: configuration, onServerRunning: running, logger: logger)
        }
        // Over HTTPS: nginx in front, as a supplier's server behind its own CA.
        var front: TLSFront?
        if let tls {
            let upstream = service.port
            do {
                front = try await TLSFront.start(upstream: upstream, certificate: tls.certificate, key: tls.key)
            } catch {
                await service.stop()
                throw error
            }
        }
        let server = FeedSourceServer(port: front?.port ?? service.port, scheme: tls == nil ? "http" : "https", service: service, front: front)
        holder.server = server
        return server
    }

    public func stop() async {
        await front?.stop()
        await service.stop()
    }

    private func answerFeed(_ request: Request) -> Response {
        state.withLock { state in
            state.gets += 1
            if state.failures > 0 {
                state.failures -= 1
                return Response(status: .serviceUnavailable, headers: [.retryAfter: "0"])
            }
            let etag = "\"v\(state.version)\""
            let modified = "Mon, 23 Nov 2026 0\(state.version % 10):00:00 GMT"
            if state.conditional, request.headers[.ifNoneMatch] == etag {
                state.notModified += 1
                return Response(status: .notModified, headers: [.eTag: etag])
            }
            var headers: HTTPFields = [.contentType: state.contentType]
            if state.conditional {
                headers[.eTag] = etag
                headers[.lastModified] = modified
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: state.body)))
        }
    }

    private func photo(_ name: String) -> Response {
        guard let data = state.withLock({ $0.photos[name] }) else { return Response(status: .notFound) }
        return Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private func record(_ body: String) -> Response {
        state.withLock { state in
            state.hooks.append(body)
            return Response(status: HTTPResponse.Status(code: state.hookStatus))
        }
    }

    private final class Holder: @unchecked Sendable {
        var server: FeedSourceServer?
    }
}
