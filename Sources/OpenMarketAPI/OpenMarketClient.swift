import Foundation
import Logging
import Support
import Synchronization

/// An image to upload: its bytes, file name and MIME type.
public struct UploadImage: Sendable, Equatable {
    public var data: Data
    public var filename: String
    public var mimeType: String

    public init(data: Data, filename: String, mimeType: String) {
        self.data = data
        self.filename = filename
        self.mimeType = mimeType
    }
}

public struct ClientConfiguration: Sendable {
    /// The server, e.g. `https://market.example` (no trailing path needed).
    public var server: URL
    /// Needed for writes only. A 2021 server takes only the secret (the items' password).
    public var credentials: VendorCredentials?
    /// The server's generation, when told (`--api`); nil: found from its answers.
    public var generation: ServerGeneration?
    public var transport = TransportSettings()
    public var retry = RetryPolicy()
    /// Request lines (`GET /api/products → 200 in 12 ms`) at debug level, and
    /// libcurl's header exchange at trace level; secrets are scrubbed from both.
    public var logger = Logger(label: "openmarket.client", factory: { _ in SwiftLogNoOpLogHandler() })
    /// Paces every request of this client (all its workers): a rate cap, and, when the
    /// server answers 429, a pause that every worker waits out, not only the one that
    /// was told (rclone's pacer). Nil: no pacing.
    public var pacer: RateLimiter? = nil

    public init(server: URL, credentials: VendorCredentials? = nil) {
        self.server = server
        self.credentials = credentials
    }
}

/// The Open Market API over libcurl. Blocking calls, safe from any number of
/// threads at once: each call borrows its own easy handle, and all share
/// connections, DNS and TLS sessions through one share handle.
///
/// Blocking is deliberate (the bulk pipeline runs it on worker threads); the
/// `async` variants run the same calls on a thread of their own, so that
/// Swift's cooperative pool is never blocked.
public final class OpenMarketClient: Shop {
    public let configuration: ClientConfiguration
    private let share = CurlShare()
    private let idleHandles = Locked<[CurlEasyBox]>([])
    private let connectionCount = Atomic<Int>(0)
    private let requestCount = Atomic<Int>(0)
    private let overloadCount = Atomic<Int>(0)
    /// The server's generation, once found (see `generation()`).
    let found = Locked(GenerationFound())
    private let redactor: Redactor
    let baseURL: String

    public init(_ configuration: ClientConfiguration) throws(OpenMarketError) {
        guard let scheme = configuration.server.scheme?.lowercased(), scheme == "http" || scheme == "https",
              configuration.server.host != nil else {
            throw .invalidRequest("server URL must be http:// or https:// with a host, got '\(configuration.server.absoluteString)'")
        }
        self.configuration = configuration
        self.redactor = Redactor(configuration.credentials)
        var base = configuration.server.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
    }

    // MARK: The shop (each generation's own: Wire2021.swift, Wire2022.swift)

    public var address: String { configuration.server.absoluteString }

    public var writer: ShopWriter? { configuration.credentials.map(ShopWriter.init) }

    /// What the server's generation can do (found once, see `generation()`).
    public func capabilities() throws(OpenMarketError) -> ShopCapabilities { try wire().capabilities() }

    public func checkCredentials() throws(OpenMarketError) -> OwnerProbe.Credentials { try wire().checkCredentials() }

    public var connectionsOpened: Int { statistics.connections }

    /// The server's health: `GET /healthChecker` on the 2022 servers (`OK`). The 2021
    /// server has none: its answer to the list endpoint stands for it. A server that
    /// answers neither is the health check's error, as it was answered.
    public func health() throws(OpenMarketError) -> String {
        if configuration.generation == .v2021 { _ = try wire(for: .v2021).page(1, perPage: 20, search: nil); return "OK" }
        do {
            let response = try send(.shopRead(baseURL + "/healthChecker"), endpoint: "GET /healthChecker")
            found.withLock { $0.answersHealth = true }
            var text = String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            // The 2022 servers answer the JSON string "OK", quotes included.
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
            return text
        } catch {
            guard error.status == 404, (try? generation()) == .v2021 else { throw error }
            return "OK"
        }
    }

    /// One page of the catalog (newest first on the 2022 servers; see `ProductPage`).
    public func page(_ number: Int = 1, perPage: Int = 20, search: String? = nil) throws(OpenMarketError) -> ProductPage {
        if knownGeneration == nil, found.withLock({ $0.answersHealth }) {
            // A 2022 server (it has a health check): this page's own keys say which.
            return try wire(for: .v2022October).page(number, perPage: perPage, search: search)
        }
        return try wire().page(number, perPage: perPage, search: search)
    }

    /// One product. A 403 right after an edit is retried briefly.
    public func product(id: Int) throws(OpenMarketError) -> ProductDetail {
        try wire().product(id: id)
    }

    /// Registers a product. Throws `.ambiguous` when the request may have created a
    /// product without an answer coming back.
    public func register(_ product: Product, images: [UploadImage]) throws(OpenMarketError) -> ProductDetail {
        try wire().register(product, images: images)
    }

    /// Edits a product: only the fields given change.
    public func edit(id: Int, _ changes: ProductPatch) throws(OpenMarketError) -> ProductDetail {
        try wire().edit(id: id, changes)
    }

    /// The harmless question only a product's owner gets a yes to: its delete key on the
    /// 2022 servers (`/secret` or `/archived`); on the 2021 server, an edit that carries
    /// only the password, as the apps checked it (the answer is then not a key, and is
    /// never needed: a 2021 delete sends the password). 403 for another's, 404 for none.
    public func deleteKey(id: Int) throws(OpenMarketError) -> String {
        try wire().deleteKey(id: id)
    }

    /// The delete key in the `/archived` answer: a bare key (quoted or not), or — as the
    /// 2022-10 server's answer is read by the apps that used it, a "URI" — a path or a URL
    /// that ends with it (`/api/products/12/KEY`, `https://host/api/products/12/KEY`).
    public static func deleteKey(inAnswer text: String) -> String? {
        var answer = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if answer.count >= 2, answer.hasPrefix("\""), answer.hasSuffix("\"") { answer = String(answer.dropFirst().dropLast()) }
        if answer.contains("/") {
            let path = URL(string: answer)?.path ?? answer
            answer = path.split(separator: "/").last.map(String.init) ?? ""
            answer = answer.removingPercentEncoding ?? answer
        }
        guard !answer.isEmpty, !answer.contains(where: { $0.isWhitespace }) else { return nil }
        return answer
    }

    /// Deletes a product. A 404 on a retried DELETE means an earlier attempt already
    /// deleted it, and counts as done.
    public func delete(id: Int) throws(OpenMarketError) {
        try wire().delete(id: id)
    }

    /// Downloads a file (an image) by absolute http(s) URL, following
    /// redirects within http/https, refusing answers over `maxBytes`.
    public func download(_ url: String, maxBytes: Int) throws(OpenMarketError) -> Data {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidRequest("only http and https URLs can be downloaded, got '\(redactor.scrub(url))'")
        }
        var request = HTTPRequest(method: .get, url: url, followRedirects: true)
        request.maxResponseBytes = maxBytes
        // A photo's host that does not resolve will not resolve on the next try either (a typo,
        // a shop that closed): the row fails at once, naming the host, instead of waiting out retries.
        return try send(request, endpoint: "GET \(parsed.path)", retryTransport: Self.downloadRetryableTransportCodes).body
    }

    /// Answers that said the server is overloaded (429, 503) and requests that timed out, so
    /// far: the import's number of writes in flight halves when it grows.
    public var overloads: Int { overloadCount.load(ordering: .relaxed) }

    /// Exchanges answered so far, and the connections they needed: with
    /// connection reuse, far fewer connections than exchanges.
    public var statistics: (requests: Int, connections: Int) {
        (requestCount.load(ordering: .relaxed), connectionCount.load(ordering: .relaxed))
    }

    // MARK: Async variants (same calls, on a thread of their own)

    public func run<T: Sendable>(_ call: @escaping @Sendable (OpenMarketClient) throws -> T) async throws -> T {
        try await BlockingThread.run("openmarket.client") { try call(self) }
    }

    // MARK: The exchange, with retries

    /// `transient`: statuses this request also asks again, for its first `transientAttempts`
    /// (a 403 on a read right after an edit: real servers answered so for a moment) — in the
    /// one retry loop, not a loop around it.
    func send(_ request: HTTPRequest, endpoint: String, idempotent: Bool? = nil,
                      treatRetried404AsSuccess: Bool = false, transient: Set<Int> = [],
                      transientAttempts: Int = 4,
                      retryTransport: Set<Int> = OpenMarketClient.retryableTransportCodes) throws(OpenMarketError) -> HTTPResponse {
        let policy = configuration.retry
        let canRepeat = idempotent ?? (request.method != .post)
        // A read of the shop has a deadline (a photo's download or a feed's source has none:
        // bytes that keep coming are a big file, not a trickle).
        var request = request
        if request.readsShop, request.deadline == nil {
            request.deadline = configuration.transport.readDeadline
        }
        let deadline = request.deadline
        let logger = configuration.logger
        var debug: (@Sendable (String) -> Void)? = nil
        if logger.logLevel <= .trace {
            debug = { line in logger.trace(Logger.Message(stringLiteral: line)) }
        }
        return try policy.run({ attempt -> Attempt<HTTPResponse, OpenMarketError> in
            configuration.pacer?.acquire()
            let started = ContinuousClock.now
            let outcome: Result<HTTPResponse, TransportFailure>
            let easy = borrowHandle()
            do throws(TransportFailure) {
                outcome = .success(try easy.easy.perform(request, settings: configuration.transport, share: share,
                                                         redactor: redactor, debug: debug))
            } catch {
                outcome = .failure(error)
            }
            returnHandle(easy)
            let elapsed = ContinuousClock.now - started
            switch outcome {
            case .success(let response):
                connectionCount.add(response.newConnections, ordering: .relaxed)
                requestCount.add(1, ordering: .relaxed)
                if response.status == 429 || response.status == 503 { overloadCount.add(1, ordering: .relaxed) }
                logger.debug("\(endpoint) → \(response.status) in \(elapsed.milliseconds) ms (attempt \(attempt))")
                if (200..<300).contains(response.status) { return .done(response) }
                if treatRetried404AsSuccess && response.status == 404 && attempt > 1 { return .done(response) }
                let failure = OpenMarketError.http(endpoint: endpoint, status: response.status, message: serverMessage(response))
                if transient.contains(response.status) {
                    return attempt < transientAttempts ? .again(failure, after: nil) : .failed(failure)
                }
                guard policy.retryableStatuses.contains(response.status) else { return .failed(failure) }
                // A register that reached the server and failed with 5xx may have been applied.
                if !canRepeat && response.status != 429 {
                    return .failed(.ambiguous(endpoint: endpoint, reason: "HTTP \(response.status) \(serverMessage(response))"))
                }
                let retryAfter = RetryPolicy.retryAfter(response.headers["retry-after"])
                if response.status == 429 {
                    // Refused before anything was done: every worker pauses, and the request waits
                    // its turn without spending one of its attempts.
                    configuration.pacer?.pause(for: retryAfter ?? policy.backoff(afterAttempt: attempt))
                    return .refused(failure, after: retryAfter)
                }
                return .again(failure, after: retryAfter)
            case .failure(let transport):
                logger.debug("\(endpoint) → libcurl error \(transport.code) in \(elapsed.milliseconds) ms (attempt \(attempt))")
                if transport.code == 28 { overloadCount.add(1, ordering: .relaxed) }  // timed out
                let failure = OpenMarketError.transport(endpoint: endpoint, code: transport.code, message: transport.message)
                // Past the whole exchange's deadline: a server that slow is not asked again.
                if transport.code == 28, let deadline, elapsed >= .milliseconds(Int(deadline * 1000) - 50) {
                    return .failed(.transport(endpoint: endpoint, code: transport.code,
                                              message: "no whole answer within \(Int(deadline)) s (\(transport.message)); the server is too slow to read, so it was not asked again"))
                }
                guard retryTransport.contains(transport.code) else { return .failed(failure) }
                if !canRepeat && !transport.neverSent {
                    return .failed(.ambiguous(endpoint: endpoint, reason: transport.message))
                }
                return .again(failure, after: nil)
            }
        }, exhausted: { last, attempts in
            .retriesExhausted(endpoint: endpoint, attempts: attempts, last: last.description)
        }, beforeWait: { wait in
            logger.debug("\(endpoint): retrying in \(Int(wait * 1000)) ms")
        })
    }

    /// libcurl codes worth another attempt: name resolution, connection,
    /// timeouts, a connection that broke or closed without an answer.
    /// 65: libcurl wanted to send a body again on a new connection, which a register refuses.
    static let retryableTransportCodes: Set<Int> = [5, 6, 7, 28, 35, 52, 55, 56, 16, 92, 18, 65]
    /// A download's: all but a host that does not resolve (6), which is no passing fault.
    static let downloadRetryableTransportCodes = retryableTransportCodes.subtracting([6])

    private func serverMessage(_ response: HTTPResponse) -> String {
        redactor.scrub(ServerAnswers.errorMessage(response.body))
    }

    func page(_ response: HTTPResponse, generation: ServerGeneration, number: Int, search: String?,
              endpoint: String) throws(OpenMarketError) -> ProductPage {
        try ServerAnswers.page(response.body, generation: generation, number: number, search: search,
                               endpoint: endpoint, scrub: redactor.scrub)
    }

    func detail(_ response: HTTPResponse, generation: ServerGeneration, endpoint: String) throws(OpenMarketError) -> ProductDetail {
        try ServerAnswers.detail(response.body, generation: generation, endpoint: endpoint, scrub: redactor.scrub)
    }

    static func explain(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?:
            return "missing \(path(context.codingPath + [key]))"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            return "wrong type at \(path(context.codingPath)): \(context.debugDescription)"
        case .dataCorrupted(let context)?:
            return context.codingPath.isEmpty ? "not JSON" : "\(path(context.codingPath)): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    func requireCredentials(for endpoint: String) throws(OpenMarketError) -> VendorCredentials {
        guard let credentials = configuration.credentials else {
            throw .invalidRequest("\(endpoint) needs vendor credentials: --identifier and --secret, OPENMARKET_IDENTIFIER and OPENMARKET_SECRET, or the config file")
        }
        return credentials
    }

    func json<Body: Encodable>(_ body: Body) throws(OpenMarketError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do { return try encoder.encode(body) } catch { throw .invalidRequest("cannot encode the request body") }
    }

    private func borrowHandle() -> CurlEasyBox {
        idleHandles.withLock { $0.popLast() } ?? CurlEasyBox()
    }

    private func returnHandle(_ handle: CurlEasyBox) {
        idleHandles.withLock { if $0.count < 64 { $0.append(handle) } }
    }

    static func encodeQuery(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static func encodePath(_ text: String) -> String { encodeQuery(text) }
}

/// A value behind a pthread mutex (NSLock). Used instead of `Synchronization.Mutex`
/// because the thread sanitizer sees pthread locking but not Mutex's futex on
/// Linux, and reported its critical sections as races.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// An easy handle that travels between threads, used by one at a time.
final class CurlEasyBox: @unchecked Sendable {
    let easy = CurlEasy()
}

extension Duration {
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
