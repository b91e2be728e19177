import Foundation
import Hummingbird
import Logging
import NIOCore
import OpenMarketContract
import Synchronization

/// Turns every error into the contract's JSON error body `{code, message}`.
struct JSONErrorMiddleware: RouterMiddleware {
    typealias Context = SandboxContext
    /// The 2021 server (Vapor) answered errors as `{"error": true, "reason": "..."}`.
    var api: SandboxAPI = .v2022October

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as SandboxError where api == .v2021 {
            return Self.response2021(status: error.status, reason: error.message)
        } catch let error as SandboxError {
            return Self.response(status: error.status, message: error.message)
        } catch let error as any HTTPResponseError where api == .v2021 {
            return Self.response2021(status: error.status.code, reason: error.status.code == 404 ? "Not Found" : error.status.reasonPhrase)
        } catch let error as any HTTPResponseError {
            let message: String = switch error.status.code {
            case 404: "no such endpoint: \(request.method) \(request.uri.path)"
            case 413: "request body too large"
            default: (error as? HTTPError)?.body ?? error.status.reasonPhrase
            }
            return Self.response(status: error.status.code, message: message)
        } catch {
            context.logger.error("internal error: \(error)")
            return Self.response(status: 500, message: "internal error in the sandbox")
        }
    }

    static func response2021(status: Int, reason: String) -> Response {
        let body = (try? JSONSerialization.data(withJSONObject: ["error": true, "reason": reason] as [String: Any])) ?? Data()
        return Response(status: .init(code: status), headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func response(status: Int, message: String, headers: HTTPFields = [:]) -> Response {
        let body = (try? SandboxJSON.encode(APIErrorBody(code: status, message: message))) ?? Data()
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: .init(code: status), headers: fields,
                        body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// Fault injection: rate limit (429), failures (500), latency, dropped
/// connections. See `FaultInjection`.
struct FaultMiddleware: RouterMiddleware {
    typealias Context = SandboxContext
    let faults: FaultInjection
    let maxBodyBytes: Int
    let window = RateWindow()
    let pool: ServerPool?

    /// Writes seen, for `silentAfterWrites`.
    private let writes = WriteCount()

    init(faults: FaultInjection, maxBodyBytes: Int) {
        self.faults = faults
        self.maxBodyBytes = maxBodyBytes
        pool = faults.workers.map(ServerPool.init(size:))
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard faults.isActive, request.uri.path != "/healthChecker" else {
            return try await next(request, context)
        }
        if let limit = faults.rateLimitPerSecond {
            let now = Date().timeIntervalSince1970
            let second = Int(now)
            let allowed = window.admit(second: second, limit: limit)
            if !allowed {
                return JSONErrorMiddleware.response(
                    status: 429, message: "rate limit of \(limit) requests per second exceeded (--rate-limit)",
                    headers: [.retryAfter: "1"])
            }
        }
        if let gate = faults.gate, gate.counts(method: request.method.rawValue, path: request.uri.path) {
            await gate.pass()
        }
        if faults.failRate > 0, Double.random(in: 0..<1) < faults.failRate {
            throw SandboxError(status: faults.failStatuses.randomElement() ?? 500, message: "injected failure (--fail-rate)")
        }
        if let pool {
            // A busy server: served by one of its workers, in turn.
            await pool.acquire()
            do {
                let response = try await serve(request, context: context, next: next)
                await pool.release()
                return response
            } catch {
                await pool.release()
                throw error
            }
        }
        return try await serve(request, context: context, next: next)
    }

    private func serve(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if faults.latencyMilliseconds > 0 {
            try await Task.sleep(for: .milliseconds(faults.latencyMilliseconds))
        }
        if let answered = faults.silentAfterWrites, request.method != .get, await writes.next() > answered {
            // Stopped answering: read, held and dropped when the client gives up.
            var request = request
            _ = try? await request.collectBody(upTo: maxBodyBytes)
            try await Task.sleep(for: .seconds(3600))
            throw SandboxError(status: 503, message: "silent (--silent-after)")
        }
        if faults.storeLateMilliseconds > 0, request.method == .post, request.uri.path == "/api/products" {
            // Read whole, then silent: the client may give up before it is stored.
            var request = request
            _ = try await request.collectBody(upTo: maxBodyBytes)
            try await Task.sleep(for: .milliseconds(faults.storeLateMilliseconds))
            return try await next(request, context)
        }
        if faults.dropRate > 0, Double.random(in: 0..<1) < faults.dropRate {
            let isRegister = request.method == .post && request.uri.path == "/api/products"
            var request = request
            if isRegister {
                // The product is stored; only the answer is lost.
                _ = try await next(request, context)
            } else {
                _ = try? await request.collectBody(upTo: maxBodyBytes)
            }
            context.logger.info("dropping the connection (--drop-rate)")
            try? await context.channel.close()
            return Response(status: .ok)
        }
        return try await next(request, context)
    }
}

/// Writes counted across connections.
actor WriteCount {
    private var value = 0
    func next() -> Int { value += 1; return value }
}

/// The workers of a busy server: at most `size` requests served at once, the others waiting
/// their turn in order.
actor ServerPool {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(size: Int) { free = max(1, size) }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}

/// Requests counted in the current one-second window, shared by all connections.
final class RateWindow: Sendable {
    private let state = Mutex<(second: Int, count: Int)>((0, 0))

    func admit(second: Int, limit: Int) -> Bool {
        state.withLock { state in
            if state.second != second { state = (second, 0) }
            state.count += 1
            return state.count <= limit
        }
    }
}

/// Requests answered, by method (`GET`, `POST`, `PATCH`, `DELETE`): what a client
/// really sent, for tests and benchmarks (`GET /sandbox/requests`).
public final class RequestCounts: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    public init() {}

    public var byMethod: [String: Int] { counts.withLock { $0 } }

    /// Requests that change the catalog (POST, PATCH, DELETE; asking for a delete key,
    /// `POST …/archived`, changes nothing and is counted apart as `ARCHIVED`).
    public var writes: Int { counts.withLock { ($0["POST"] ?? 0) + ($0["PATCH"] ?? 0) + ($0["DELETE"] ?? 0) } }

    func add(_ method: String) { counts.withLock { $0[method, default: 0] += 1 } }
}

struct CountRequestsMiddleware: RouterMiddleware {
    typealias Context = SandboxContext
    let counts: RequestCounts

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path.hasSuffix("/archived") {
            counts.add("ARCHIVED")
        } else if path != "/sandbox/requests" {
            counts.add(request.method.rawValue)
        }
        return try await next(request, context)
    }
}
