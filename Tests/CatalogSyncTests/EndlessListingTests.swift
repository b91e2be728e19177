@testable import CatalogSync
import Foundation
import Hummingbird
import OpenMarketAPI
import Support
import Testing
import TestSupport

/// A server whose list never ends (its last page always one ahead, each page new products):
/// the shop's reading stops past what the first page announced, and at a stop, saying why;
/// nothing is written.
@Suite("A listing that never ends")
struct EndlessListingTests {
    final class Count: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
        var pages: Int { lock.lock(); defer { lock.unlock() }; return value }
    }

    static func endless(_ asked: Count) async throws -> LocalServer {
        let router = Router()
        router.get("/api/products") { request, _ -> Response in
            let page = Int(request.uri.queryParameters["page_no"].map(String.init) ?? "1") ?? 1
            _ = asked.next()
            let items = (0..<20).map { index in
                "{\"id\": \(page * 100 + index), \"vendor_id\": 1, \"name\": \"Endless \(page)-\(index)\", \"thumbnail\": \"t\", \"currency\": \"KRW\", \"price\": 1000, \"bargain_price\": 1000, \"discounted_price\": 0, \"stock\": 1, \"created_at\": \"2022-10-01T00:00:00\", \"issued_at\": \"2022-10-01T00:00:00\"}"
            }
            let body = "{\"pageNo\": \(page), \"itemsPerPage\": 20, \"totalCount\": 40, \"offset\": \((page - 1) * 20), \"limit\": 20, \"lastPage\": \(page + 1), \"hasNext\": true, \"hasPrev\": \(page > 1), \"pages\": [\(items.joined(separator: ","))]}"
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        return try await LocalServer.start(router, label: "endless")
    }

    @Test("pages past the 2 the first page announced (40 products), plus room for 10: the reading stops at page 12, nothing is trusted")
    func endsPastTheAnnouncedPages() async throws {
        let asked = Count()
        let server = try await Self.endless(asked)
        defer { Task { await server.stop() } }
        let client = try OpenMarketClient(ClientConfiguration(server: server.url))
        #expect(throws: LiveCatalog.Failure.self) {
            _ = try LiveCatalog.read(client: client, knownVendor: 1, pageSize: 20, matcher: ServerMatcher(client: client))
        }
        do {
            _ = try LiveCatalog.read(client: client, knownVendor: 1, pageSize: 20, matcher: ServerMatcher(client: client))
        } catch {
            #expect(error.description.contains("is past the 12 pages the server's first page allows for") && error.description.contains("nothing was written"),
                    "\(error.description)")
        }
        #expect(asked.pages <= 2 * 15, "\(asked.pages) pages asked")
    }

    @Test("a stop asked while the shop is read ends the reading at once, saying so")
    func stopEndsTheReading() async throws {
        let asked = Count()
        let server = try await Self.endless(asked)
        defer { Task { await server.stop() } }
        let client = try OpenMarketClient(ClientConfiguration(server: server.url))
        let stop = StopSignal()
        var pages = 0
        do {
            _ = try LiveCatalog.read(client: client, knownVendor: 1, pageSize: 20, matcher: ServerMatcher(client: client),
                                     onPage: { pages = $0; if $0 == 3 { _ = stop.stop("Ctrl-C") } }, stopped: { stop.isStopping })
            Issue.record("the reading went on")
        } catch {
            #expect(error.description.contains("stopped while reading the shop's products") && pages == 3, "\(error.description), \(pages)")
        }
    }
}
