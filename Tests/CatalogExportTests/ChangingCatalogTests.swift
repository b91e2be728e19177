import CatalogExport
import Foundation
import Manifest
import OpenMarketAPI
import Sandbox
import Testing
import TestSupport

@Suite("export while the catalog changes")
struct ChangingCatalogTests {
    @Test("products created and deleted during the export: none that existed throughout is missed, none is doubled")
    func churn() async throws {
        // A little latency makes the scan long enough to be overtaken by the changes.
        let sandbox = try await TestSandbox.start { $0.faults.latencyMilliseconds = 2 }
        defer { Task { await sandbox.stop() } }
        let initial = try await seed(sandbox, sandbox.demo, count: 400, prefix: "Initial")
        let files = try Scratch()
        defer { files.cleanup() }
        var options = ExportOptions(directory: files.directory)
        options.images = .none
        options.perPage = 10
        options.jobs = 2

        final class Churn: @unchecked Sendable {
            let lock = NSLock()
            var running = true
            var deleted = Set<Int>()
            var created = 0
            var isRunning: Bool { lock.lock(); defer { lock.unlock() }; return running }
            func finish() -> (deleted: Set<Int>, created: Int) {
                lock.lock(); defer { lock.unlock() }
                running = false
                return (deleted, created)
            }
        }
        let churn = Churn()
        let writer = try client(sandbox, sandbox.demo)
        let photo = UploadImage(data: Data(try Fixtures.jpeg(width: 8, height: 8)), filename: "c.jpg", mimeType: "image/jpeg")
        let changes = Thread {
            var generator = SplitMix(seed: 7)
            var remaining = initial
            // Until the export ends, or the first products are all deleted (a slow export on a busy
            // machine: a remainder by 0 crashed the whole test process in CI).
            while churn.isRunning, remaining.count >= 2 {
                // Delete an early product (shifting later pages back: items slip between pages) …
                let victim = remaining.remove(at: Int(generator.next() % UInt64(remaining.count / 2)))
                if (try? writer.delete(id: victim)) != nil {
                    churn.lock.lock(); churn.deleted.insert(victim); churn.lock.unlock()
                }
                // … and create one (shifting every page forward: items are seen twice).
                if (try? writer.register(Product(name: "Created meanwhile", description: "", price: 1, currency: "KRW",
                                                    discountedPrice: 0, stock: 1), images: [photo])) != nil {
                    churn.lock.lock(); churn.created += 1; churn.lock.unlock()
                }
            }
        }
        changes.start()
        let summary = try await export(options, try client(sandbox))
        _ = churn.finish()
        while !changes.isFinished { try await Task.sleep(for: .milliseconds(10)) }
        let (deleted, created) = churn.finish()
        #expect(deleted.count >= 10 && created >= 10, "the changes did not overlap the export (\(deleted.count) deleted, \(created) created)")
        let exported = try readManifest(files.directory.appendingPathComponent("products.csv")).map { Int($0.values[.id]!)! }
        #expect(Set(exported).count == exported.count, "an id is in the export twice")
        let survivors = Set(initial).subtracting(deleted)
        let missed = survivors.subtracting(exported)
        #expect(missed.isEmpty, "missed \(missed.sorted()) that existed throughout")
        #expect(summary.passes >= 2)
        #expect(summary.exported == exported.count)
    }
}
