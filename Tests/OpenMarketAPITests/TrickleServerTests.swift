import Foundation
import Hummingbird
import OpenMarketAPI
import Testing
import TestSupport

/// A server that answers a few bytes at a time passes libcurl's low-speed check for ever: a read of
/// the shop has a deadline of its own (4 × the answer timeout), and is not asked again past it.
@Suite("A server trickling a byte a second")
struct TrickleServerTests {
    final class Count: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() { lock.lock(); value += 1; lock.unlock() }
        var requests: Int { lock.lock(); defer { lock.unlock() }; return value }
    }

    @Test("a page read ends at its deadline (8 s with a 2 s answer timeout), saying why, asked once")
    func readDeadline() async throws {
        let asked = Count()
        let router = Router()
        router.get("/healthChecker") { _, _ in "\"OK\"" }
        router.get("/api/products") { _, _ -> Response in
            asked.next()
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody { writer in
                // A few bytes every quarter second: well above the low-speed check even on a
                // loaded machine, never a whole answer.
                for _ in 0..<240 {
                    try await writer.write(ByteBuffer(string: "    "))
                    try await Task.sleep(for: .milliseconds(250))
                }
                try await writer.finish(nil)
            })
        }
        let server = try await LocalServer.start(router, label: "trickle")
        var configuration = ClientConfiguration(server: server.url)
        configuration.transport.lowSpeedTime = 2
        #expect(configuration.transport.readDeadline == 8)
        let client = try OpenMarketClient(configuration)
        // Timed on the request's own thread: under the whole suite's load, resuming the awaiting
        // task can wait for a free thread of the cooperative pool far longer than the read.
        let outcome = try await client.run { client -> (error: String?, took: TimeInterval) in
            let started = Date()
            do {
                _ = try client.page(1, perPage: 20)
                return (nil, Date().timeIntervalSince(started))
            } catch {
                return ("\(error)", Date().timeIntervalSince(started))
            }
        }
        #expect(outcome.error?.contains("no whole answer within 8 s") == true, "\(outcome.error ?? "a trickling page was read")")
        let took = outcome.took
        #expect(took >= 7 && took < 20, "\(took) s")
        #expect(asked.requests == 1, "\(asked.requests) requests")
        await server.stop()
    }
}
