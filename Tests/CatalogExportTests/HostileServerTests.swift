import CatalogExport
import Foundation
import Hummingbird
import OpenMarketAPI
import Testing
import Words
import TestSupport

/// A server that answers the export badly on purpose.
struct HostileServer {
    enum Mode: Sendable { case repeatingPages, endlessPages, brokenPage }

    let url: URL
    let stop: @Sendable () async -> Void

    static func start(_ mode: Mode) async throws -> HostileServer {
        let router = Router()
        let photo = try Fixtures.jpeg(width: 10, height: 10)
        let base = BaseURL()
        router.get("/api/products") { request, _ in
            let page = Int(request.uri.queryParameters.get("page_no") ?? "1") ?? 1
            switch mode {
            case .brokenPage:
                return json("{\"pageNo\": 1, \"pages\": [")
            case .repeatingPages:
                // hasNext forever, the same products on every page.
                return json(pageJSON(ids: Array(1...6), hasNext: true))
            case .endlessPages:
                // hasNext forever, new products on every page, though it announced one page.
                return json(pageJSON(ids: [1000 + page * 2, 1001 + page * 2], hasNext: true))
            }
        }
        router.get("/api/products/{id}") { _, context in
            let id = context.parameters.get("id", as: Int.self) ?? 0
            let host = base.value
            func detail(_ id: Int, name: String, images: [String]) -> Response {
                let list = images.map { "{\"id\": 1, \"url\": \"\($0)\", \"thumbnail_url\": \"\($0)\"}" }.joined(separator: ",")
                return json("""
                {"id": \(id), "vendor_id": 1, "name": "\(name)", "description": "d", "thumbnail": "t", "currency": "KRW",
                 "price": 1000, "bargain_price": 1000, "discounted_price": 0, "stock": 1,
                 "created_at": "2024-01-01T00:00:00", "issued_at": "2024-01-01T00:00:00", "images": [\(list)]}
                """)
            }
            switch id {
            case 1: return detail(1, name: "Reads a local file", images: ["file:///etc/passwd"])
            case 2: return detail(2, name: "../../x", images: ["\(host)/files/..%2F..%2Fx.jpg", "\(host)/files/%0Aevil%2F..%00.jpg"])
            case 3: return detail(3, name: "Huge photo", images: ["\(host)/huge.jpg"])
            case 4: return json("{\"id\": 4, \"name\": ")
            case 5: return detail(99, name: "Someone else", images: ["\(host)/files/a.jpg"])
            case 6: return detail(6, name: "Not a photo", images: ["\(host)/page.html"])
            default: return detail(id, name: "Endless \(id)", images: ["\(host)/files/a.jpg"])
            }
        }
        router.get("/files/{name}") { _, _ in
            Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(bytes: photo)))
        }
        router.get("/huge.jpg") { _, _ in
            var buffer = ByteBuffer(bytes: [0xFF, 0xD8, 0xFF, 0xE0])
            buffer.writeRepeatingByte(0x42, count: 50 * 1024 * 1024)
            return Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: buffer))
        }
        router.get("/page.html") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(string: "<html>hello</html>")))
        }
        let server = try await LocalServer.start(router, label: "hostile")
        base.value = server.url.absoluteString
        return HostileServer(url: server.url, stop: server.stop)
    }

    static func pageJSON(ids: [Int], hasNext: Bool) -> String {
        let items = ids.map { id in
            """
            {"id": \(id), "vendor_id": 1, "name": "p\(id)", "thumbnail": "t", "currency": "KRW", "price": 1,
             "bargain_price": 1, "discounted_price": 0, "stock": 1, "created_at": "2024-01-01T00:00:00", "issued_at": "2024-01-01T00:00:00"}
            """
        }.joined(separator: ",")
        return "{\"pageNo\": 1, \"itemsPerPage\": 100, \"totalCount\": \(ids.count), \"lastPage\": 1, \"hasNext\": \(hasNext), \"pages\": [\(items)]}"
    }

    static func json(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    final class BaseURL: @unchecked Sendable {
        private let lock = NSLock()
        private var text = ""
        var value: String {
            get { lock.lock(); defer { lock.unlock() }; return text }
            set { lock.lock(); text = newValue; lock.unlock() }
        }
    }
}

@Suite("export against a hostile server")
struct HostileServerTests {
    @Test("file URLs, path tricks, a 50 MB photo, broken JSON, a wrong product, a page that never ends: refused, nothing outside --out")
    func hostile() async throws {
        let server = try await HostileServer.start(.repeatingPages)
        defer { Task { await server.stop() } }
        let scratch = try Scratch()
        defer { scratch.cleanup() }
        let out = scratch.directory.appendingPathComponent("out")
        var options = ExportOptions(directory: out)
        options.jobs = 3
        let summary = try await export(options, try OpenMarketClient(ClientConfiguration(server: server.url)))
        let failures = Dictionary(uniqueKeysWithValues: summary.failed.map { ($0.id, $0.error) })
        #expect(Set(failures.keys) == [1, 3, 4, 5, 6], "\(summary.failed)")
        #expect(failures[1]?.contains("'file:///etc/passwd' is not http or https") == true, "\(failures[1] ?? "")")
        #expect(failures[3]?.contains("answer larger than \(25 * 1024 * 1024) bytes") == true, "\(failures[3] ?? "")")
        #expect(failures[4]?.contains("GET /api/products/4") == true, "\(failures[4] ?? "")")
        #expect(failures[5]?.contains("with product 99") == true)
        #expect(failures[6]?.contains("not a JPEG or PNG") == true)
        #expect(summary.warnings.contains { $0.contains("repeated page 1") }, "\(summary.warnings)")
        #expect(summary.exported == 1)

        // Nothing outside --out; inside, the names are safe.
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.directory.path) == ["out"])
        let files = filesUnder(out)
        let photos = files.filter { $0.hasPrefix("images/") }
        #expect(photos.count == 2)
        for path in photos {
            let parts = path.split(separator: "/")
            #expect(parts.count == 3 && parts[1] == "2", "\(path)")
            #expect(!parts[2].contains("..") && !parts[2].hasPrefix(".") && parts[2].unicodeScalars.allSatisfy { $0.value >= 0x20 }, "\(path)")
        }
        let rows = try readManifest(out.appendingPathComponent("products.csv"))
        #expect(rows.count == 1 && rows[0].values[.name] == "../../x" && rows[0].images == photos)
        // The failed products are kept for --resume.
        #expect(files.contains(".openmarket-export.jsonl"))
    }

    @Test("a server that says hasNext forever with new products on each page: the scan stops past the pages it announced plus room, the export fails saying so, no manifest")
    func endless() async throws {
        let server = try await HostileServer.start(.endlessPages)
        defer { Task { await server.stop() } }
        let scratch = try Scratch()
        defer { scratch.cleanup() }
        var options = ExportOptions(directory: scratch.directory)
        options.images = .none
        do {
            let summary = try await export(options, try OpenMarketClient(ClientConfiguration(server: server.url)))
            Issue.record("an endless listing exported: \(summary.exported) of \(summary.listed)")
        } catch let error as ExportError {
            #expect(error.description.contains("goes on past page 11, far past the 1 pages its first page announced")
                    && error.phrase.text(.ko).contains("믿을 수 없어"), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.directory.appendingPathComponent("products.csv").path))
    }

    @Test("a catalog page that is not JSON stops the export with the endpoint named; no manifest appears")
    func brokenPage() async throws {
        let server = try await HostileServer.start(.brokenPage)
        defer { Task { await server.stop() } }
        let scratch = try Scratch()
        defer { scratch.cleanup() }
        let options = ExportOptions(directory: scratch.directory)
        await #expect(throws: OpenMarketError.self) {
            _ = try await export(options, try OpenMarketClient(ClientConfiguration(server: server.url)))
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.directory.appendingPathComponent("products.csv").path))
    }
}

@Suite("safe file names")
struct SafeNameTests {
    @Test("separators, dot-dot, control characters, length", arguments: [
        ("http://h/images/a.jpg", 0, "1-a.jpg"),
        ("http://h/x/..%2F..%2Fetc%2Fpasswd", 1, "2-____etc_passwd"),
        ("http://h/x/%2E%2E", 0, "1-image"),
        ("http://h/x/a%0Ab%00c%1B.jpg", 2, "3-abc.jpg"),
        ("http://h/x/..", 0, "1-image"),
        ("http://h/", 0, "1-image"),
        ("http://h/x/back%5Cslash.png", 0, "1-back_slash.png"),
    ])
    func names(url: String, index: Int, expected: String) {
        #expect(SafeName.forImage(url: url, index: index) == expected)
    }

    @Test("long names are cut to 100 bytes at a character boundary, keeping the extension")
    func long() {
        let name = SafeName.forImage(url: "http://h/" + String(repeating: "가", count: 80) + ".jpeg", index: 0)
        #expect(name.utf8.count <= 100 && name.hasSuffix(".jpeg") && name.hasPrefix("1-가"))
        #expect(String(decoding: Array(name.utf8), as: UTF8.self) == name)
    }
}
