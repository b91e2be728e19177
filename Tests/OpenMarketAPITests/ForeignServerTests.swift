import Foundation
import Hummingbird
import OpenMarketAPI
import TestSupport
import Testing

/// A small server that answers the way other servers do: older key styles,
/// redirects, broken JSON. Started in-process on port 0.
struct ForeignServer {
    let url: URL
    let stop: @Sendable () async -> Void

    static func start() async throws -> ForeignServer {
        let router = Router()
        router.get("/api/products") { _, _ in
            json("""
            {"pageNo": 1, "itemPerPage": 2, "totalCount": 3, "lastPage": 2, "hasNext": true,
             "pages": [{"id": 12.0, "vendor_id": 3, "name": "Older server", "thumbnail": "t", "currency": "KRW",
                        "price": 1500, "bargain_price": 1500.0, "discounted_price": 0, "stock": 5.0,
                        "created_at": "2021-03-01T09:30:00.123456", "issued_at": "2021-03-01T09:30:00",
                        "extra": {"nested": true}}]}
            """)
        }
        router.get("/api/products/1") { _, _ in
            json("""
            {"id": 1, "vendor_id": 3, "name": "No images", "thumbnail": "t", "currency": "USD", "price": 9.99,
             "created_at": "2021-03-01T09:30:00"}
            """)
        }
        router.get("/api/products/2") { _, _ in json("{\"id\": 2, \"name\": ") }
        // A read right after an edit: 403 twice, then the product (as real servers did for a moment).
        let reads = Reads()
        router.get("/api/products/4") { _, _ in
            reads.count() <= 2 ? Response(status: .forbidden)
                : json(#"{"id": 4, "vendor_id": 3, "name": "Edited", "currency": "KRW", "price": 10, "created_at": "2021-03-01T09:30:00"}"#)
        }
        router.get("/api/products/5") { _, _ in Response(status: .forbidden) }
        router.get("/api/products/3") { _, _ in json("{\"id\": \"three\", \"name\": \"x\"}") }
        // Numbers no sheet could give: each refuses the answer, naming the product and the field.
        for (id, fields) in [(6, #""price": -5"#), (7, #""price": 100, "stock": -1"#), (8, #""price": 100, "discounted_price": 150"#),
                             (9, #""price": 100, "discounted_price": -1"#)] {
            router.get("/api/products/\(id)") { _, _ in
                json(#"{"id": \#(id), "vendor_id": 3, "name": "Odd numbers", "currency": "KRW", \#(fields), "created_at": "2021-03-01T09:30:00"}"#)
            }
        }
        router.get("/api/products/10") { _, _ in
            json(#"{"id": 0, "vendor_id": 3, "name": "No id", "currency": "KRW", "price": 1, "created_at": "2021-03-01T09:30:00"}"#)
        }
        // An id past 2^53 written with a fraction: read digit by digit, it names that product and no neighbour.
        router.get("/api/products/11") { _, _ in
            json(#"{"id": 9007199254740993.0, "vendor_id": 3, "name": "Far id", "currency": "KRW", "price": 1, "created_at": "2021-03-01T09:30:00"}"#)
        }
        router.get("/api/products/13") { _, _ in
            json(#"{"id": 13.5, "vendor_id": 3, "name": "Half id", "currency": "KRW", "price": 1, "created_at": "2021-03-01T09:30:00"}"#)
        }
        router.get("/redirect-file") { _, _ in
            Response(status: .found, headers: [.location: "file:///etc/passwd"])
        }
        router.get("/redirect-image") { _, _ in
            Response(status: .found, headers: [.location: "/image.jpg"])
        }
        router.get("/image.jpg") { _, _ in
            Response(status: .ok, headers: [.contentType: "image/jpeg"],
                     body: .init(byteBuffer: ByteBuffer(bytes: [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3])))
        }
        let server = try await LocalServer.start(router, label: "foreign")
        return ForeignServer(url: server.url, stop: server.stop)
    }

    final class Reads: @unchecked Sendable {
        private let lock = NSLock()
        private var reads = 0
        func count() -> Int { lock.withLock { reads += 1; return reads } }
    }

    static func json(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

@Suite("The client against answers shaped like other servers'")
struct ForeignServerTests {
    @Test("a 403 on a read right after an edit is asked again in the one retry loop (4 attempts at most), then said")
    func readAfterEdit() async throws {
        let server = try await ForeignServer.start()
        var configuration = ClientConfiguration(server: server.url)
        configuration.generation = .v2022October
        configuration.retry.baseDelay = 0.01
        let client = try OpenMarketClient(configuration)
        let detail = try await client.run { try $0.product(id: 4) }
        #expect(detail.summary.name == "Edited")
        await #expect(throws: OpenMarketError.self) { _ = try await client.run { try $0.product(id: 5) } }
        #expect(client.statistics.requests == 3 + 4, "three for the edited product, four for the one that stays forbidden")
        await server.stop()
    }

    @Test("older key styles and number forms decode over HTTP")
    func olderShapes() async throws {
        let server = try await ForeignServer.start()
        let client = try OpenMarketClient(ClientConfiguration(server: server.url))
        let page = try await client.run { try $0.page() }
        #expect(page.itemsPerPage == 2 && page.pages.first?.id == 12 && page.pages.first?.stock == 5)
        let detail = try await client.run { try $0.product(id: 1) }
        #expect(detail.images == nil && detail.summary.price == 9.99 && detail.summary.description == nil)
        await server.stop()
    }

    @Test("malformed JSON is a decoding error that says where")
    func malformed() async throws {
        let server = try await ForeignServer.start()
        let client = try OpenMarketClient(ClientConfiguration(server: server.url))
        await #expect(throws: OpenMarketError.decoding(endpoint: "GET /api/products/2", detail: "not JSON")) {
            try await client.run { try $0.product(id: 2) }
        }
        do {
            _ = try await client.run { try $0.product(id: 3) }
            Issue.record("expected a decoding error")
        } catch let error as OpenMarketError {
            guard case .decoding(_, let detail) = error else { Issue.record("got \(error)"); return }
            #expect(detail.contains("id"), "\(detail)")
        }
        await server.stop()
    }

    @Test("a negative price, stock or sale price, a sale price above the price, an id of 0 or 13.5: the answer is refused naming the product and the field; an id 9007199254740993.0 is read exactly")
    func numbersChecked() async throws {
        let server = try await ForeignServer.start()
        var configuration = ClientConfiguration(server: server.url)
        configuration.generation = .v2022October
        let client = try OpenMarketClient(configuration)
        for (id, said) in [(6, "price -5 is below 0"), (7, "stock -1 is below 0"), (8, "discounted_price 150 is above the price 100"),
                           (9, "discounted_price -1 is below 0"), (10, "id 0 is no id"), (13, "13.5")] {
            do {
                let detail = try await client.run { try $0.product(id: id) }
                Issue.record("product \(id) taken: \(detail)")
            } catch let error as OpenMarketError {
                guard case .decoding(let endpoint, let detail) = error else { Issue.record("\(id): \(error)"); continue }
                #expect(endpoint == "GET /api/products/\(id)" && detail.contains(said), "\(id): \(detail)")
            }
        }
        let far = try await client.run { try $0.product(id: 11) }
        #expect(far.id == 9_007_199_254_740_993)
        await server.stop()
    }

    @Test("a redirect to file:// is refused; a redirect within http is followed")
    func redirects() async throws {
        let server = try await ForeignServer.start()
        let client = try OpenMarketClient(ClientConfiguration(server: server.url))
        let base = server.url.absoluteString
        do {
            _ = try await client.run { try $0.download(base + "/redirect-file", maxBytes: 1_000_000) }
            Issue.record("a file:// redirect must not be followed")
        } catch let error as OpenMarketError {
            guard case .transport(_, let code, let message) = error else { Issue.record("got \(error)"); return }
            #expect(code == 1, "CURLE_UNSUPPORTED_PROTOCOL, got \(code): \(message)")
        }
        let image = try await client.run { try $0.download(base + "/redirect-image", maxBytes: 1_000_000) }
        #expect(Array(image) == [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3])
        await server.stop()
    }
}
