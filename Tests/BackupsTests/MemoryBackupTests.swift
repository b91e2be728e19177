@testable import Backups
import Foundation
import OpenMarketAPI
import Testing
import TestSupport

/// A backup of a shop in memory: what a snapshot holds, from any shop.
@Suite("Backups of a shop in memory")
struct MemoryBackupTests {
    @Test("a snapshot holds this vendor's products with their photos, one picture kept and counted once; the next adds none; one deleted since shows in the diff")
    func snapshot() async throws {
        let shop = InMemoryShop()
        let ids = try shop.addProducts(4, named: "Kept", photoSeed: 6) { Money(100 * $0) }
        shop.add("Another vendor's", vendor: 9)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memory-backup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let repository = BackupRepository(url: folder.appendingPathComponent("repo"))
        let first = try await blocking { try BackupRun(repository: repository, client: shop, account: nil).run() }
        // Four products with one picture, read by concurrent workers: stored and counted once.
        #expect(first.products == 4 && first.photosAdded == 1, "\(first.photosAdded) photos, \(first.products) products")
        #expect(repository.allPhotos().count == 1)
        shop.remove(ids[0])
        let second = try await blocking { try BackupRun(repository: repository, client: shop, account: nil).run() }
        #expect(second.products == 3 && second.photosAdded == 0)
        let diff = SnapshotDiff(from: try repository.products(of: first), to: try repository.products(of: second))
        #expect(diff.deleted.count == 1 && diff.created.isEmpty && diff.changed.isEmpty)
        #expect(try repository.products(of: first).allSatisfy { $0.photos.count == 1 })
    }
}
