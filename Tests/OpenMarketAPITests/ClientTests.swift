import Foundation
import Logging
import OpenMarketAPI
import Sandbox
import Synchronization
import Testing
import TestSupport

/// A client of a test sandbox, with the demo vendor's credentials and quick retries.
func makeClient(_ sandbox: TestSandbox, vendor: SandboxVendor? = nil, retry: RetryPolicy? = nil,
                logger: Logger? = nil) throws -> OpenMarketClient {
    let v = vendor ?? sandbox.demo
    var configuration = ClientConfiguration(server: sandbox.server.url,
                                            credentials: VendorCredentials(identifier: v.identifier, secret: v.secret))
    var policy = retry ?? RetryPolicy()
    if retry == nil {
        policy.baseDelay = 0.02
        policy.maxDelay = 0.2
    }
    configuration.retry = policy
    // These tests count the exchanges of the contract's generation; finding the generation
    // (one more request) is tested by GenerationTests and CaptureTests.
    configuration.generation = .v2022October
    if let logger { configuration.logger = logger }
    return try OpenMarketClient(configuration)
}

func sampleImage(_ seed: UInt64 = 1) throws -> UploadImage {
    UploadImage(data: Data(try Fixtures.jpeg(width: 120, height: 90, seed: seed)), filename: "photo-\(seed).jpg", mimeType: "image/jpeg")
}

/// Captures log lines, to prove what they do not contain.
final class LogCapture: LogHandler, @unchecked Sendable {
    let lines = Mutex<[String]>([])  // written from the client's threads, read after they finished
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        lines.withLock { $0.append("\(event.level) \(event.message)") }
    }
    var all: [String] { lines.withLock { $0 } }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

@Suite("The libcurl client against the sandbox")
struct ClientTests {
    @Test("every endpoint: health, register, page, detail, edit, delete key, delete, download")
    func everyEndpoint() async throws {
        let sandbox = try await TestSandbox.start()
        let client = try makeClient(sandbox)
        #expect(try await client.run { try $0.health() } == "OK")

        let images = [try sampleImage(1), UploadImage(data: Data(Fixtures.png()), filename: "b.png", mimeType: "image/png")]
        let created = try await client.run {
            try $0.register(Product(name: "한라봉 5kg", description: "Jeju", price: 32_000, currency: "KRW",
                                       discountedPrice: 2_000, stock: 4), images: images)
        }
        #expect(created.summary.name == "한라봉 5kg" && created.summary.bargainPrice == 30_000 && created.summary.stock == 4)
        #expect(created.images?.count == 2)

        let page = try await client.run { try $0.page(1, perPage: 10, search: "한라봉") }
        #expect(page.pages.map(\.id) == [created.id] && page.totalCount == 1)
        let none = try await client.run { try $0.page(1, perPage: 10, search: "a&b=c d") }
        #expect(none.pages.isEmpty)

        let detail = try await client.run { try $0.product(id: created.id) }
        #expect(detail == created)

        let edited = try await client.run {
            try $0.edit(id: created.id, ProductPatch(price: 30_000, stock: 0, thumbnailID: created.images![1].id))
        }
        #expect(edited.summary.price == 30_000 && edited.summary.stock == 0)
        #expect(edited.summary.thumbnail == created.images![1].thumbnailURL)

        let original = try await client.run { try $0.download(created.images![0].url, maxBytes: 1_000_000) }
        #expect(original == images[0].data)
        await #expect(throws: OpenMarketError.self) {
            try await client.run { try $0.download(created.images![0].url, maxBytes: 100) }
        }

        let key = try await client.run { try $0.deleteKey(id: created.id) }
        #expect(!key.isEmpty)
        try await client.run { try $0.delete(id: created.id) }
        do {
            _ = try await client.run { try $0.product(id: created.id) }
            Issue.record("the product should be gone")
        } catch let error as OpenMarketError {
            #expect(error.status == 404)
            #expect(error.description.contains("GET /api/products/\(created.id)"))
            #expect(error.description.contains("no product with id"))
        }
        await sandbox.stop()
    }

    @Test("a rule broken is a clear error with the server's message, not retried")
    func serverMessage() async throws {
        let sandbox = try await TestSandbox.start()
        let client = try makeClient(sandbox)
        do {
            _ = try await client.run {
                try $0.register(Product(name: "ab", description: "", price: 1, currency: "KRW"), images: [try sampleImage()])
            }
            Issue.record("expected a 400")
        } catch let error as OpenMarketError {
            #expect(error == .http(endpoint: "POST /api/products", status: 400, message: "name: must be 3 to 100 characters, got 2"))
        }
        #expect(client.statistics.requests == 1)
        await sandbox.stop()
    }

    @Test("retryable statuses are recovered from", arguments: [[500], [502], [503], [504], [500, 502, 503, 504]])
    func retryableStatuses(_ statuses: [Int]) async throws {
        let sandbox = try await TestSandbox.start {
            $0.faults.failRate = 0.5
            $0.faults.failStatuses = statuses
        }
        var policy = RetryPolicy()
        policy.baseDelay = 0.01
        policy.maxDelay = 0.05
        policy.maxAttempts = 30
        let client = try makeClient(sandbox, retry: policy)
        for _ in 0..<15 {
            let page = try await client.run { try $0.page() }
            #expect(page.totalCount == 0)
        }
        // With half the requests failing, 15 successes needed about 30 exchanges.
        #expect(client.statistics.requests > 15)
        await sandbox.stop()
    }

    @Test("429 is recovered from and Retry-After is respected (measured)")
    func retryAfter() async throws {
        let sandbox = try await TestSandbox.start { $0.faults.rateLimitPerSecond = 1 }
        let capture = LogCapture()
        capture.logLevel = .debug
        let client = try makeClient(sandbox, logger: Logger(label: "test", factory: { _ in capture }))
        // Four requests at once against 1 per second: most meet a 429 first.
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { _ = try await client.run { try $0.page() } } }
            try await group.waitForAll()
        }
        let elapsed = clock.now - start
        let lines = capture.all
        let limited = lines.filter { $0.contains("→ 429") }.count
        #expect(limited >= 1, "\(lines)")
        // Every wait after a 429 follows Retry-After: 1, far above the 20 ms back-off.
        let waits = lines.compactMap { line -> Int? in
            guard let range = line.range(of: "retrying in ") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        #expect(waits.count == limited)
        #expect(waits.allSatisfy { $0 >= 1000 }, "\(waits)")
        #expect(elapsed >= .milliseconds(1000), "\(elapsed)")
        #expect(client.statistics.requests == 4 + limited)
        await sandbox.stop()
    }

    @Test("a register whose answer is lost is reported as ambiguous, and it was stored")
    func ambiguousRegister() async throws {
        let sandbox = try await TestSandbox.start { $0.faults.dropRate = 1 }
        let client = try makeClient(sandbox)
        do {
            _ = try await client.run {
                try $0.register(Product(name: "Lost answer", description: "", price: 1, currency: "KRW"), images: [try sampleImage()])
            }
            Issue.record("expected an ambiguous outcome")
        } catch let error as OpenMarketError {
            guard case .ambiguous(let endpoint, _) = error else { Issue.record("got \(error)"); return }
            #expect(endpoint == "POST /api/products")
            #expect(error.description.contains("check the server"))
        }
        // Sent once, never repeated by the client.
        #expect(client.statistics.requests == 0)
        await sandbox.stop(removeData: false)
        let check = try await TestSandbox.start(directory: sandbox.directory)
        let page = try await makeClient(check).run { try $0.page() }
        #expect(page.pages.map(\.name) == ["Lost answer"])
        await check.stop()
    }

    @Test("each register call makes at most one product, even on a reused connection that the server drops")
    func noSilentResend() async throws {
        let sandbox = try await TestSandbox.start { $0.faults.dropRate = 0.5 }
        let client = try makeClient(sandbox)
        let image = try sampleImage()
        var created = 0, ambiguous = 0
        for i in 0..<30 {
            do {
                // A read first, so that the register could go out on a kept-alive connection.
                _ = try? await client.run { try $0.page() }
                _ = try await client.run { try $0.register(Product(name: "Call \(i)", description: "", price: 1, currency: "KRW"), images: [image]) }
                created += 1
            } catch OpenMarketError.ambiguous {
                ambiguous += 1
            }
        }
        #expect(ambiguous > 0 && created > 0)
        await sandbox.stop(removeData: false)
        let check = try await TestSandbox.start(directory: sandbox.directory)
        let names = try await makeClient(check).run { try $0.page(1, perPage: 100).pages.map(\.name) }
        // Every call reached the server exactly once: libcurl did not send any of them twice.
        #expect(names.count == 30 && Set(names).count == 30, "\(names.count) products for 30 calls")
        await check.stop()
    }

    @Test("a register that met a 5xx is ambiguous too; a GET under drops is retried until it gives up")
    func registerNotRepeated() async throws {
        let sandbox = try await TestSandbox.start { $0.faults.failRate = 1 }
        let client = try makeClient(sandbox)
        await #expect(throws: OpenMarketError.ambiguous(endpoint: "POST /api/products", reason: "HTTP 500 injected failure (--fail-rate)")) {
            try await client.run {
                try $0.register(Product(name: "Five hundred", description: "", price: 1, currency: "KRW"), images: [try sampleImage()])
            }
        }
        #expect(client.statistics.requests == 1)
        await sandbox.stop()

        let dropping = try await TestSandbox.start { $0.faults.dropRate = 1 }
        var policy = RetryPolicy()
        policy.baseDelay = 0.01
        policy.maxAttempts = 3
        let reader = try makeClient(dropping, retry: policy)
        do {
            _ = try await reader.run { try $0.page() }
            Issue.record("expected failure")
        } catch let error as OpenMarketError {
            guard case .retriesExhausted(_, let attempts, let last) = error else { Issue.record("got \(error)"); return }
            #expect(attempts == 3)
            #expect(last.contains("libcurl error 52"))
        }
        await dropping.stop()
    }

    @Test("a register to a closed port is retried (never sent) and then fails, not ambiguous")
    func connectionRefused() async throws {
        let sandbox = try await TestSandbox.start()
        let url = sandbox.server.url
        let demo = sandbox.demo
        await sandbox.stop()
        var configuration = ClientConfiguration(server: url, credentials: VendorCredentials(identifier: demo.identifier, secret: demo.secret))
        configuration.retry.baseDelay = 0.01
        configuration.retry.maxAttempts = 3
        let client = try OpenMarketClient(configuration)
        do {
            _ = try await client.run {
                try $0.register(Product(name: "Nowhere", description: "", price: 1, currency: "KRW"), images: [try sampleImage()])
            }
            Issue.record("expected failure")
        } catch let error as OpenMarketError {
            guard case .retriesExhausted(_, let attempts, let last) = error else { Issue.record("got \(error)"); return }
            #expect(attempts == 3)
            #expect(last.contains("libcurl error 7"))
        }
    }

    @Test("the identifier and the secret never appear in errors, logs or libcurl's debug dump")
    func secretsNeverLeak() async throws {
        let sandbox = try await TestSandbox.start()
        let capture = LogCapture()
        let logger = Logger(label: "test", factory: { _ in capture })
        let demo = sandbox.demo
        let client = try makeClient(sandbox, logger: logger)
        var errors: [String] = []
        func collect(_ body: @escaping @Sendable (OpenMarketClient) throws -> Void, with client: OpenMarketClient) async {
            do { try await client.run(body) } catch { errors.append("\(error)"); errors.append(String(reflecting: error)) }
        }
        // Wrong secret (403), unknown identifier (401), a bad edit, a missing product, a delete of someone else's.
        let wrongSecret = try OpenMarketClient({
            var c = ClientConfiguration(server: sandbox.server.url, credentials: VendorCredentials(identifier: demo.identifier, secret: "S3cret-wrong-value"))
            c.logger = logger
            return c
        }())
        await collect({ _ = try $0.register(Product(name: "Secretive", description: "", price: 1, currency: "KRW"), images: [try sampleImage()]) }, with: wrongSecret)
        let unknown = try OpenMarketClient(ClientConfiguration(server: sandbox.server.url,
            credentials: VendorCredentials(identifier: "ffffffff-0000-4000-8000-000000000000", secret: demo.secret)))
        await collect({ _ = try $0.edit(id: 1, ProductPatch(name: "x")) }, with: unknown)
        let created = try await client.run {
            try $0.register(Product(name: "Mine", description: "", price: 1, currency: "KRW"), images: [try sampleImage()])
        }
        await collect({ _ = try $0.edit(id: created.id, ProductPatch(price: -1)) }, with: client)
        await collect({ _ = try $0.product(id: 424242) }, with: client)
        let other = try makeClient(sandbox, vendor: sandbox.other, logger: logger)
        await collect({ try $0.delete(id: created.id) }, with: other)
        #expect(errors.count == 10)
        let lines = capture.all
        #expect(lines.contains { $0.hasPrefix("debug") && $0.contains("POST /api/products → 201") })
        #expect(lines.contains { $0.contains("> identifier: [redacted]") }, "the debug dump shows the header, redacted")
        for text in errors + lines + ["\(client.configuration.credentials!)", String(reflecting: client.configuration.credentials!)] {
            for secret in [demo.identifier, demo.secret, sandbox.other.identifier, sandbox.other.secret, "S3cret-wrong-value",
                           "ffffffff-0000-4000-8000-000000000000"] {
                #expect(!text.contains(secret), "leaked in: \(text)")
            }
        }
        #expect(Redactor(VendorCredentials(identifier: "abcd-1234", secret: "hunter22")).scrub("echo abcd-1234 hunter22")
                == "echo [redacted] [redacted]")
        await sandbox.stop()
    }

    @Test("8 threads × 50 GETs share connections without a crash")
    func concurrentWorkers() async throws {
        let sandbox = try await TestSandbox.start()
        let client = try makeClient(sandbox)
        let created = try await client.run {
            try $0.register(Product(name: "Popular", description: "", price: 1, currency: "KRW"), images: [try sampleImage()])
        }
        let failures = Counter()
        let before = client.statistics
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await client.run { client in
                        for _ in 0..<50 {
                            if (try? client.product(id: created.id))?.summary.name != "Popular" {
                                failures.increment()
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let after = client.statistics
        #expect(failures.value == 0)
        #expect(after.requests - before.requests == 400)
        // Connections are shared and kept alive: at most one per worker, not one per request.
        #expect(after.connections - before.connections <= 8, "\(after.connections - before.connections) connections for 400 requests")
        await sandbox.stop()
    }

    @Test("only http and https: other schemes are refused, before sending")
    func schemes() async throws {
        #expect(throws: OpenMarketError.self) { try OpenMarketClient(ClientConfiguration(server: URL(string: "file:///etc")!)) }
        #expect(throws: OpenMarketError.self) { try OpenMarketClient(ClientConfiguration(server: URL(string: "ftp://host/")!)) }
        let client = try OpenMarketClient(ClientConfiguration(server: URL(string: "http://127.0.0.1:9")!))
        await #expect(throws: OpenMarketError.self) { try await client.run { try $0.download("file:///etc/passwd", maxBytes: 100) } }
    }
}
