import CatalogExport
import Foundation
import Manifest
import OpenMarketAPI
import Testing
import TestSupport

/// The exporter against a shop in memory: the catalog as a sheet with its photos, from any
/// shop (the HTTP paths are the sandbox tests beside these).
@Suite("Export from a shop in memory")
struct MemoryExportTests {
    @Test("this vendor's products only, each once, with its photos, in a sheet import reads back")
    func ownProducts() async throws {
        let shop = InMemoryShop()
        try shop.addProducts(7, named: "Exported", photoSeed: 8) { Money(500 * $0) }
        shop.add("Someone else's", vendor: 42)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memory-export-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = ExportOptions(directory: folder)
        options.filter = CatalogFilter(vendor: .me)
        options.perPage = 3
        let exporter = CatalogExporter(options: options, client: shop)
        let summary = try await blocking { try exporter.run() }
        #expect(summary.exported == 7 && summary.failed.isEmpty && summary.imagesDownloaded == 7, "\(summary.failed) \(summary.warnings) \(summary.exported)")
        let rows = try readManifest(URL(fileURLWithPath: summary.manifest))
        #expect(rows.count == 7)
        #expect(Set(rows.compactMap { $0.values[.name] }) == Set((1...7).map { "Exported \($0)" }))
        let images = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("images").path)
        #expect(!images.isEmpty)
    }

    @Test("reads at the server's pace: a far shop (40 ms a request, no queue) is read with more than the 4 at once a fixed export used, a fixed --jobs keeps its number; every product once either way")
    func pace() async throws {
        let shop = InMemoryShop()
        try shop.addProducts(150, named: "Far", photoSeed: 9)
        shop.latency = 0.04
        for adaptive in [true, false] {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memory-export-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            var options = ExportOptions(directory: folder)
            options.filter = CatalogFilter(vendor: .me)
            options.adaptiveJobs = adaptive
            shop.resetMostAtOnce()
            let exporter = CatalogExporter(options: options, client: shop)
            let summary = try await blocking { try exporter.run() }
            #expect(summary.exported == 150 && summary.failed.isEmpty && summary.imagesDownloaded == 150, "\(summary.failed)")
            if adaptive {
                #expect(summary.inFlight > 8 && shop.mostAtOnce > 8, "adaptive: up to \(summary.inFlight), the shop saw \(shop.mostAtOnce) at once")
            } else {
                #expect(summary.inFlight == 4 && shop.mostAtOnce <= 4 + 1, "fixed: \(summary.inFlight), the shop saw \(shop.mostAtOnce)")
            }
        }
    }
}
