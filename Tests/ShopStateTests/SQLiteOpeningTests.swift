import Foundation
@testable import ShopState
import Testing

/// openmarket's SQLite files made by several openings at once: runs started together on a
/// fresh machine (a feed's night run and an import, shards in one home) each open the
/// account's link store and the photo hash cache.
@Suite("SQLite files opened by many at once", .serialized)
struct SQLiteOpeningTests {
    /// Errors of `rounds` new files, each opened 8 times at once.
    static func openings(_ rounds: Int, _ open: @escaping @Sendable (URL) throws -> Void) async -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openings-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var errors: [String] = []
        for round in 0..<rounds {
            let url = folder.appendingPathComponent("file-\(round).sqlite")
            errors += await withTaskGroup(of: String?.self) { group in
                for _ in 0..<8 { group.addTask { do { try open(url); return nil } catch { return "\(error)" } } }
                return await group.reduce(into: [String]()) { if let error = $1 { $0.append(error) } }
            }
        }
        return errors
    }

    // Before the lock covered the switch to WAL as well as the migrations, 14 to 40 of 2,400
    // such openings failed at once with "database is locked" (one at a time: the suite is
    // serialized, since the two side by side hid it).
    @Test("a new link store opened 8 times at once, 100 times over: every opening succeeds")
    func linkStores() async {
        let errors = await Self.openings(100) { _ = try LinkStore.open(.file($0)) }
        #expect(errors.isEmpty, "\(errors.count) of 800 failed, the first: \(errors.first ?? "")")
    }

    @Test("a new photo hash cache opened 8 times at once, 100 times over: every opening succeeds")
    func photoHashes() async {
        let errors = await Self.openings(100) { _ = try PhotoHashes(url: $0) }
        #expect(errors.isEmpty, "\(errors.count) of 800 failed, the first: \(errors.first ?? "")")
    }
}
