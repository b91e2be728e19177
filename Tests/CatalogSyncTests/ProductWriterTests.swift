@testable import CatalogSync
import TestSupport
import Foundation
import Manifest
import OpenMarketAPI
import ShopState
import Support
import Testing

/// The one product writer, against a shop in memory: the order of intent, request, record
/// and link, what a lost answer and a state that cannot be written do. No server.
@Suite("One product's write, exactly once (in memory)")
struct ProductWriterTests {
    /// Intents kept in memory, in order; `refuse` makes `sending` fail (a full disk).
    struct DiskFull: Error, CustomStringConvertible { var description = "No space left on device" }

    final class Intents: WriteIntents, @unchecked Sendable {
        private let lock = NSLock()
        private(set) var lines: [String] = []
        var refuse = false
        func sending(_ subject: WriteSubject, durable: Bool) throws {
            if refuse { throw DiskFull() }
            add("sent \(subject.key ?? "-")")
        }
        func done(_ subject: WriteSubject, id: Int) throws { add("done \(subject.key ?? "-") \(id)") }
        func failed(_ subject: WriteSubject, _ error: String) { add("failed \(subject.key ?? "-")") }
        private func add(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
    }

    struct Setup {
        let shop = InMemoryShop()
        let intents = Intents()
        let stop = StopSignal()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("writer-\(UUID().uuidString)")
        let links: LinkStore
        let recorder: RunRecorder
        let writer: ProductWriter

        init() throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            links = try LinkStore.open(.file(folder.appendingPathComponent("links.sqlite")))
            recorder = try RunRecorder(folder: folder, header: RunHeader(kind: .import, account: "", server: "memory", source: "s.csv"),
                                       client: shop)
            var fast = ProductWriter.lostAnswers
            fast.seconds = 0.5
            fast.firstLook = 0.01
            writer = ProductWriter(shop: shop, matcher: ServerMatcher(client: shop), links: links, recorder: recorder,
                                   intents: intents, lostAnswers: fast, stopping: stop)
        }

        func record() throws -> [RunEntry] { try RunRecorder.read(folder) ?? [] }
    }

    static func draft(_ name: String, price: Money = 1000) -> ProductDraft {
        var draft = ProductDraft(row: 2, key: "K", id: nil, name: name, description: "", price: price, currency: "KRW",
                                 discountedPrice: 0, stock: 1, images: [])
        draft.given = ProductDraft.allFields
        return draft
    }

    @Test("a register: intent, request, record, link in that order; a lost answer is found, never sent twice")
    func register() throws {
        let setup = try Setup()
        defer { try? FileManager.default.removeItem(at: setup.folder) }
        setup.shop.dropAnswers = 1
        let draft = Self.draft("Tea")
        let subject = WriteSubject(key: "K", row: 2)
        let made = try setup.writer.register(RowWork.newProduct(draft), images: [], for: subject, matching: draft,
                                             pending: ProductLink(key: "K", byName: false, productID: nil, state: .pending,
                                                                  pushed: nil, photos: nil))
        #expect(made.found && made.attempts == 1)
        #expect(setup.shop.callCounts["register"] == 1, "\(setup.shop.callCounts)")
        #expect(try setup.links.link("K")?.state == .pending)
        try setup.writer.settle(subject, id: made.product.id, pushed: Product(made.product), photos: nil, created: true)
        #expect(setup.intents.lines == ["sent K", "done K \(made.product.id)"])
        #expect(try setup.links.link("K")?.productID == made.product.id && setup.links.link("K")?.state == .linked)
        #expect(try setup.record().map(\.event) == [.begin, .created])
    }

    @Test("an intent that cannot be written sends nothing and stops the run")
    func intentRefused() throws {
        let setup = try Setup()
        defer { try? FileManager.default.removeItem(at: setup.folder) }
        setup.intents.refuse = true
        let draft = Self.draft("Tea")
        #expect { try setup.writer.register(RowWork.newProduct(draft), images: [], for: WriteSubject(key: "K"), matching: draft) }
            throws: { ($0 as? WriteFailure)?.kind == .notSent }
        #expect(setup.shop.callCounts["register"] == nil)
        #expect(setup.stop.reason?.contains("No space left on device") == true)
        // Stopped: the next write is not sent either.
        setup.intents.refuse = false
        #expect(throws: WriteFailure.self) { try setup.writer.delete(id: setup.shop.add("Other"), for: WriteSubject(), photoHashes: nil) }
        #expect(setup.shop.callCounts["delete"] == nil)
    }

    @Test("an edit is recorded before and after, then sent; a refused one is failed in the journal")
    func edit() throws {
        let setup = try Setup()
        defer { try? FileManager.default.removeItem(at: setup.folder) }
        let id = setup.shop.add("Tea", price: 1000)
        let before = Product(try setup.shop.product(id: id).summary)
        var after = before
        after.price = 1200
        let edited = try setup.writer.edit(id: id, before.patch(to: after), for: WriteSubject(key: "K"), recording: (before, after))
        #expect(edited.summary.price == 1200)
        let updating = try #require(try setup.record().first { $0.event == .updating })
        #expect(updating.before?.price == 1000 && updating.after?.price == 1200)
        setup.shop.failing = ["edit"]
        #expect { try setup.writer.edit(id: id, ProductPatch(stock: 3), for: WriteSubject(key: "K"), recording: nil) }
            throws: { ($0 as? WriteFailure)?.kind == .refused }
        #expect(setup.intents.lines == ["sent K", "sent K", "failed K"])
    }

    @Test("a delete saves the product for undo, deletes it, and unlinks only the key that named it")
    func delete() throws {
        let setup = try Setup()
        defer { try? FileManager.default.removeItem(at: setup.folder) }
        let id = setup.shop.add("Tea")
        let other = setup.shop.add("Coffee")
        try setup.links.save(ProductLink(key: "K", byName: false, productID: id, state: .linked, pushed: nil, photos: ["h"]))
        try setup.links.save(ProductLink(key: "L", byName: false, productID: other, state: .linked, pushed: nil, photos: nil))
        try setup.writer.delete(id: id, for: WriteSubject(key: "K"), photoHashes: ["h"])
        try setup.writer.delete(id: other, for: WriteSubject(key: "K"), photoHashes: nil)
        #expect(throws: OpenMarketError.self) { try setup.shop.product(id: id) }
        #expect(try setup.links.link("K") == nil)
        #expect(try setup.links.link("L")?.productID == other, "a key naming another product is left")
        let deleting = try setup.record().filter { $0.event == .deleting }
        #expect(deleting.map(\.id) == [id, other] && deleting.first?.before?.name == "Tea" && deleting.first?.photoHashes == ["h"])
    }
}
