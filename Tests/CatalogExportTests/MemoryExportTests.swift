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
}
