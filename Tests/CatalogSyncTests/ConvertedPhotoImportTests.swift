import CatalogSync
import Foundation
import ImagePrep
import OpenMarketAPI
import Support
import Testing
import TestSupport

/// A static file server on 127.0.0.1 (Python's http.server), for photos given by URL.
final class FileServer {
    let process: ChildProcess
    let port: Int

    init(directory: URL) throws {
        let output = Pipe()
        process = try ChildProcess("/usr/bin/env", ["python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory.path],
                                   environment: startEnvironment, output: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let range = text.range(of: "port "), let port = Int(text[range.upperBound...].prefix { $0.isNumber }) else {
            process.signal(SIGKILL)
            throw CocoaError(.fileReadUnknown)
        }
        self.port = port
    }

    func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

    /// Stops the server and waits (a bounded time) for it to be gone. SIGKILL: a child
    /// started from a test thread inherits its blocked signals, SIGTERM among them (seen:
    /// servers left running after the suite).
    func stop() {
        process.signal(SIGKILL)
        _ = process.wait(seconds: 10)
    }
}

@Suite("Importing photos as merchants have them")
struct ConvertedPhotoImportTests {
    @Test("a Mac's NFD name, a Windows sheet's letter case, an iPhone's HEIC and a WebP by URL: every product made, every photo a JPEG; the sheet again in the other Unicode form changes nothing")
    func merchantsPhotos() async throws {
        let shop = try await Shop.open()
        do { try await merchantsPhotos(shop) } catch {
            await shop.close()
            throw error
        }
        await shop.close()
    }

    private func merchantsPhotos(_ shop: Shop) async throws {
        let dir = shop.files.directory
        _ = try shop.files.write(Fixtures.jpeg(width: 64, height: 48, seed: 3), named: "녹차 사진.jpg".decomposedStringWithCanonicalMapping)
        _ = try shop.files.write(Fixtures.jpeg(width: 64, height: 48, seed: 4), named: "IMG_0003.JPG")
        let source = try shop.files.write(Fixtures.jpeg(width: 640, height: 480, seed: 5), named: "source.jpg")
        try ImageMagick.convert([source, "-quality", "80", dir.appendingPathComponent("IMG_0004.HEIC").path])
        let web = dir.appendingPathComponent("web")
        try FileManager.default.createDirectory(at: web, withIntermediateDirectories: true)
        try ImageMagick.convert([source, "-quality", "80", web.appendingPathComponent("tea.webp").path])
        let server = try FileServer(directory: web)
        defer { server.stop() }

        let sheet = """
            key,name,price,stock,images
            M1,녹차 한 상자,12000,3,녹차 사진.jpg
            M2,홍차 한 상자,13000,4,img_0003.jpg
            M3,보이차 한 상자,14000,5,IMG_0004.HEIC
            M4,백차 한 상자,15000,6,\(server.url("tea.webp"))

            """
        let first = try await shop.run(try shop.sheet("products.csv", sheet))
        #expect(first.summary.counts["created"] == 4, "\(first.rows.map { "\($0.row) \($0.status) \($0.error ?? "")" })")
        #expect(first.row(3)?.note?.contains("IMG_0003.JPG") == true, "\(first.row(3)?.note ?? "no note")")

        let reader = try shop.vendor
        for row in first.rows {
            let id = try #require(row.productID)
            let photos = try await blocking { try (reader.product(id: id).images ?? []).map { try reader.download($0.url, maxBytes: 1 << 20) } }
            #expect(photos.count == 1)
            #expect(photos.allSatisfy { ImageFormat.sniff($0) == .jpeg }, "row \(row.row): the shop holds JPEGs")
        }
        let converted = try #require(first.row(4))
        #expect(converted.imagesBefore.first ?? 0 > 0 && converted.imagesAfter.first ?? 0 > 0)

        // The same sheet under another name, typed on a Mac (names decomposed): one key, one product.
        let writes = shop.writes
        let again = try await shop.run(try shop.sheet("products-mac.csv", sheet.decomposedStringWithCanonicalMapping))
        #expect(again.summary.counts["unchanged"] == 4, "\(again.rows.map { "\($0.row) \($0.status) \($0.error ?? "") \($0.changes ?? "")" })")
        #expect(shop.writes == writes, "nothing sent")
    }
}
