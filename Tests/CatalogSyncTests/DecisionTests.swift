@testable import CatalogSync
import Foundation
import Words
import Manifest
import OpenMarketAPI
import ShopState
import Testing
import TestSupport

/// What a row does to the shop, decided against a shop in memory: no server, no files.
@Suite("Decisions against a shop in memory")
struct DecisionTests {
    static func draft(_ row: Int, key: String?, name: String, price: Money = 1000, stock: Int = 1,
                      given: ColumnSet = ProductDraft.allFields) -> ProductDraft {
        var draft = ProductDraft(row: row, key: key, id: nil, name: name, description: "", price: price, currency: "KRW",
                                 discountedPrice: 0, stock: stock, images: [.url("http://photos.test/\(row).jpg")])
        draft.given = given
        return draft
    }

    static func planner(_ shop: InMemoryShop, links: [ProductLink] = [], vendor: Int? = nil,
                        _ configure: (inout SyncOptions) -> Void = { _ in }) throws -> SyncPlanner {
        var options = SyncOptions(manifest: URL(fileURLWithPath: "/sheet.csv"), journal: URL(fileURLWithPath: "/journal"))
        configure(&options)
        let matcher = ServerMatcher(client: shop)
        let live = try LiveCatalog.read(client: shop, knownVendor: vendor, pageSize: 2, matcher: matcher)
        return SyncPlanner(options: options, links: LinkTable(links), live: live,
                           matcher: matcher, client: shop)
    }

    static func linked(_ key: String, _ id: Int) -> ProductLink {
        ProductLink(key: key, byName: false, productID: id, state: .linked, pushed: nil, photos: nil)
    }

    @Test("the live catalog: every page read, only this vendor's products, the vendor learnt by one delete-key question")
    func liveCatalog() throws {
        let shop = InMemoryShop(vendor: 7)
        shop.add("Theirs A", vendor: 3)
        let mine = shop.add("Mine A")
        shop.add("Theirs B", vendor: 3)
        let mine2 = shop.add("Mine B")
        shop.add("Theirs C", vendor: 4)
        let live = try LiveCatalog.read(client: shop, knownVendor: nil, pageSize: 2, matcher: ServerMatcher(client: shop))
        #expect(live.vendorID == 7 && Set(live.products.keys) == [mine, mine2])
        #expect(live.pages == 3 && shop.callCounts["page"] == 3)
        #expect((shop.callCounts["deleteKey"] ?? 0) <= 3, "one question per vendor at most")
        let known = try LiveCatalog.read(client: shop, knownVendor: 7, pageSize: 100, matcher: ServerMatcher(client: shop))
        #expect(Set(known.products.keys) == [mine, mine2])
    }

    @Test("a page that cannot be read stops everything: never 'no products'")
    func unreadableShop() {
        let shop = InMemoryShop()
        shop.add("Tea")
        shop.failing = ["page"]
        #expect(throws: LiveCatalog.Failure.self) { try Self.planner(shop) }
    }

    @Test("new key → create; linked and equal → unchanged; one field differs → update of that field only")
    func createUnchangedUpdate() throws {
        let shop = InMemoryShop()
        let tea = shop.add("Green tea", price: 1000, stock: 5)
        let planner = try Self.planner(shop, links: [Self.linked("T1", tea)], vendor: 1)
        guard case .create = try planner.decide(Self.draft(2, key: "N1", name: "New tea"), identity: "N1").action else {
            Issue.record("not a create"); return
        }
        guard case .unchanged(tea) = try planner.decide(Self.draft(3, key: "T1", name: "Green tea", stock: 5), identity: "T1").action
        else { Issue.record("not unchanged"); return }
        let fresh = try Self.planner(shop, links: [Self.linked("T1", tea)], vendor: 1)
        let decision = try fresh.decide(Self.draft(3, key: "T1", name: "Green tea", price: 1100, stock: 5), identity: "T1")
        guard case .update(tea, let changes) = decision.action else { Issue.record("not an update"); return }
        #expect(changes.fields == ["price"] && changes.body.price == 1100 && changes.body.stock == nil)
        #expect(changes.text == "price 1000 → 1100 (+10.0 %)")
        #expect(shop.callCounts["register"] == nil && shop.callCounts["edit"] == nil, "deciding writes nothing")
    }

    @Test("a stock-only row changes the stock and nothing else, whatever the other cells hold")
    func stockOnly() throws {
        let shop = InMemoryShop()
        let tea = shop.add("Green tea", price: 1000, stock: 5)
        let planner = try Self.planner(shop, links: [Self.linked("T1", tea)], vendor: 1)
        var row = Self.draft(2, key: "T1", name: "", price: 0, stock: 0, given: [.stock])
        row.stockDelta = -2
        guard case .update(tea, let changes) = try planner.decide(row, identity: "T1").action else { Issue.record("no update"); return }
        #expect(changes.fields == ["stock"] && changes.body.stock == 3)
    }

    @Test("a price moved more than --max-price-change is refused unless --force")
    func priceGuard() throws {
        let shop = InMemoryShop()
        let tea = shop.add("Green tea", price: 1000)
        let planner = try Self.planner(shop, links: [Self.linked("T1", tea)], vendor: 1)
        #expect(throws: SyncPlanner.Refusal.self) { try planner.decide(Self.draft(2, key: "T1", name: "Green tea", price: 10), identity: "T1") }
        let forced = try Self.planner(shop, links: [Self.linked("T1", tea)], vendor: 1) { $0.force = true }
        guard case .update = try forced.decide(Self.draft(2, key: "T1", name: "Green tea", price: 10), identity: "T1").action else {
            Issue.record("not updated with --force"); return
        }
    }

    @Test("the price guard judges what the buyer pays: a list price up 66 % over the same buyer's price passes; a buyer's price more than halved is held, both prices said")
    func priceGuardOnBuyersPrice() throws {
        let shop = InMemoryShop()
        let tea = shop.add("Green tea", price: 12900)
        let planner = try Self.planner(shop, links: [Self.linked("T1", tea)], vendor: 1)
        // 12,900 before; now 21,400 with a discount of 8,500: the buyer pays 12,900 still.
        var listed = Self.draft(2, key: "T1", name: "Green tea", price: 21400)
        listed.fields.discountedPrice = 8500
        guard case .update(tea, let changes) = try planner.decide(listed, identity: "T1").action else { Issue.record("no update"); return }
        #expect(Set(changes.fields) == ["price", "discounted_price"], "\(changes.fields)")
        var halved = Self.draft(2, key: "T1", name: "Green tea", price: 12900)
        halved.fields.discountedPrice = 6900
        do {
            _ = try planner.decide(halved, identity: "T1")
            Issue.record("a buyer's price more than halved was not held")
        } catch let refusal as SyncPlanner.Refusal {
            #expect(refusal.message.contains("the buyer's price 12900 → 6000") && refusal.message.contains("discount 0 → 6900"), "\(refusal.message)")
        }
    }

    @Test("a price given without a discount takes the shop's discount off with it: what the buyer pays is what the sheet says")
    func priceWithoutDiscount() throws {
        let shop = InMemoryShop()
        let tea = shop.add("Green tea", price: 15000, discountedPrice: 2100)
        let planner = try Self.planner(shop, links: [Self.linked("T1", tea)], vendor: 1)
        let row = Self.draft(2, key: "T1", name: "Green tea", price: 12900, given: [.price, .discountedPrice])
        guard case .update(tea, let changes) = try planner.decide(row, identity: "T1").action else { Issue.record("no update"); return }
        #expect(changes.body.price == 12900 && changes.body.discountedPrice == 0, "\(changes.body)")
    }

    @Test("an unlinked product of the same name is adopted; two of that name are a refusal that names them")
    func adoptByName() throws {
        let shop = InMemoryShop()
        let tea = shop.add("Green tea")
        shop.add("Black tea")
        shop.add("Black tea")
        let planner = try Self.planner(shop, vendor: 1)
        let adopted = try planner.decide(Self.draft(2, key: "T1", name: "Green tea"), identity: "T1")
        #expect(adopted.adopted && adopted.relink && adopted.action.productID == tea)
        do {
            _ = try planner.decide(Self.draft(3, key: "B1", name: "Black tea"), identity: "B1")
            Issue.record("two products of one name were not refused")
        } catch let refusal as SyncPlanner.Refusal {
            #expect(refusal.message.contains("2 products of this vendor are named \"Black tea\""), "\(refusal.message)")
        }
        // Another vendor's product of that name is never taken.
        let shared = InMemoryShop()
        shared.add("Green tea", vendor: 9)
        guard case .create = try Self.planner(shared, vendor: 1).decide(Self.draft(2, key: "T1", name: "Green tea"), identity: "T1").action
        else { Issue.record("took another vendor's product"); return }
    }

    @Test("two rows cannot be one product; --mode update does not create; --max-creates caps")
    func guards() throws {
        let shop = InMemoryShop()
        let tea = shop.add("Green tea")
        let planner = try Self.planner(shop, links: [Self.linked("T1", tea), Self.linked("T2", tea)], vendor: 1)
        _ = try planner.decide(Self.draft(2, key: "T1", name: "Green tea"), identity: "T1")
        #expect(throws: SyncPlanner.Refusal.self) { try planner.decide(Self.draft(3, key: "T2", name: "Green tea"), identity: "T2") }
        let update = try Self.planner(shop, vendor: 1) { $0.mode = .update }
        #expect(throws: SyncPlanner.Refusal.self) { try update.decide(Self.draft(2, key: "N1", name: "Unknown tea"), identity: "N1") }
        let capped = try Self.planner(shop, vendor: 1) { $0.maxCreates = 1 }
        _ = try capped.decide(Self.draft(2, key: "N1", name: "First new"), identity: "N1")
        #expect(throws: SyncPlanner.Refusal.self) { try capped.decide(Self.draft(3, key: "N2", name: "Second new"), identity: "N2") }
    }

    @Test("a linked product gone from the shop is made again; a pending create whose answer was lost is found, not made twice")
    func goneAndPending() throws {
        let shop = InMemoryShop()
        let made = shop.add("Lost answer tea", price: 1000, stock: 1)
        let planner = try Self.planner(shop, links: [
            Self.linked("GONE", 999),
            ProductLink(key: "P1", byName: false, productID: nil, state: .pending, pushed: nil, photos: nil),
        ], vendor: 1)
        let gone = try planner.decide(Self.draft(2, key: "GONE", name: "Gone tea"), identity: "GONE")
        guard case .create = gone.action else { Issue.record("not made again"); return }
        #expect(gone.notes == [Phrase("n_link_gone", "999")] && gone.notes.text(.en).contains("no longer in the shop"))
        let pending = try planner.decide(Self.draft(3, key: "P1", name: "Lost answer tea"), identity: "P1")
        #expect(pending.madeByInterruptedRun && pending.action.productID == made)
        #expect(shop.callCounts["product"] == 1, "the gone product was asked for once, directly")
    }

    @Test("the matcher finds a lost create by its exact fields, only among this vendor's, and claims it once")
    func matcher() throws {
        let shop = InMemoryShop()
        shop.add("Lost tea", price: 1000, stock: 1, vendor: 5)
        let mine = shop.add("Lost tea", price: 1000, stock: 1)
        shop.add("Lost tea", price: 2000, stock: 1)
        let matcher = ServerMatcher(client: shop)
        let row = Self.draft(2, key: "K", name: "Lost tea")
        #expect(try matcher.find(row)?.id == mine)
        #expect(try matcher.find(Self.draft(3, key: "K2", name: "Lost tea")) == nil, "claimed by row 2")
        shop.failing = ["page"]
        #expect(throws: OpenMarketError.self) { try ServerMatcher(client: shop).find(row) }
    }
}

/// Undo's choices, against a shop in memory and a run record written as an import writes it.
@Suite("Undo's decisions against a shop in memory")
struct UndoDecisionTests {
    /// A run that created `made` and changed `changed` from 1000 to 1200.
    static func record(in folder: URL, shop: InMemoryShop, made: Int, changed: Int) throws {
        let recorder = try RunRecorder(folder: folder, header: RunHeader(kind: .import, account: SyncRun.accountTag(links(folder)), server: "memory", source: "s.csv"),
                                       client: shop)
        let made = try shop.product(id: made).summary
        try recorder.created(id: made.id, key: "NEW", byName: false, row: 2, after: Product(made), photoHashes: nil)
        var before = Product(try shop.product(id: changed).summary)
        before.price = 1000
        try recorder.updating(id: changed, key: "OLD", byName: false, row: 3, before: before,
                              after: Product(try shop.product(id: changed).summary))
        recorder.end(counts: ["created": 1, "updated": 1])
    }

    /// Undo through the one sync, as the command runs it (no signals, no caches).
    static func undo(_ options: UndoOptions, on shop: InMemoryShop) throws -> SyncSummary {
        var choices = RunChoices()
        choices.dryRun = options.dryRun
        choices.links = links(options.folder)
        choices.useCaches = false
        choices.stopOnSignals = false
        let request = RunRequest(shop: shop, account: AccountState(shop: shop, sandboxData: options.folder.appendingPathComponent("state")),
                                 choices: choices)
        let part = try request.undo(folder: options.folder, force: options.force)
        if let result = part.result { return result.summary }
        var summary = SyncSummary(server: shop.address, mode: .sync, dryRun: false, journal: "")
        summary.alreadyDone = part.alreadyDone?.text(.en)
        return summary
    }

    /// The account the recorded run was made on (undo refuses another).
    static func links(_ folder: URL) -> StoreAddress { .file(folder.deletingLastPathComponent().appendingPathComponent("\(folder.lastPathComponent)-links.sqlite")) }

    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("undo-memory-\(UUID().uuidString)")
    }

    @Test("a created product is deleted, an updated one gets its fields back; nothing else is touched")
    func takesBack() throws {
        let shop = InMemoryShop()
        let bystander = shop.add("Not in the run")
        let made = shop.add("Made by the run")
        let changed = shop.add("Changed by the run", price: 1200)
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.record(in: folder, shop: shop, made: made, changed: changed)
        let summary = try Self.undo(UndoOptions(folder: folder), on: shop)
        #expect(summary.counts == ["deleted": 1, "restored": 1], "\(summary.counts)")
        #expect(throws: OpenMarketError.self) { try shop.product(id: made) }
        #expect(try shop.product(id: changed).summary.price == 1000)
        #expect(try shop.product(id: bystander).summary.name == "Not in the run")
    }

    @Test("a product changed since the run is left alone, and --force takes it back anyway; a dry run writes nothing")
    func changedSince() throws {
        let shop = InMemoryShop()
        let made = shop.add("Made by the run")
        let changed = shop.add("Changed by the run", price: 1200)
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.record(in: folder, shop: shop, made: made, changed: changed)
        _ = try shop.edit(id: changed, ProductPatch(stock: 40))
        _ = try shop.edit(id: made, ProductPatch(price: 5000))

        var dry = UndoOptions(folder: folder)
        dry.dryRun = true
        let writesBefore = (shop.callCounts["edit"] ?? 0, shop.callCounts["delete"] ?? 0)
        _ = try Self.undo(dry, on: shop)
        #expect((shop.callCounts["edit"] ?? 0, shop.callCounts["delete"] ?? 0) == writesBefore, "a dry run writes nothing")

        let careful = try Self.undo(UndoOptions(folder: folder), on: shop)
        #expect(careful.count(.skipped) == 2, "\(careful.counts)")
        #expect(try shop.product(id: made).summary.price == 5000 && shop.product(id: changed).summary.stock == 40)

        try FileManager.default.removeItem(at: UndoOptions(folder: folder).undoFolder)
        var force = UndoOptions(folder: folder)
        force.force = true
        let forced = try Self.undo(force, on: shop)
        #expect(forced.counts == ["deleted": 1, "restored": 1], "\(forced.counts)")
    }
}

/// The whole import pipeline (plan, prepare, the exactly-once write, links, journal)
/// against a shop in memory: real files, no server.
@Suite("Imports against a shop in memory")
struct MemoryImportTests {
    static func run(_ shop: InMemoryShop, sheet: String, in folder: URL, named name: String = "products.csv",
                    _ configure: (inout SyncOptions) -> Void = { _ in }) throws -> SyncSummary {
        let manifest = folder.appendingPathComponent(name)
        try Data(sheet.utf8).write(to: manifest)
        var options = SyncOptions(manifest: manifest, journal: folder.appendingPathComponent("journals/\(name).journal"))
        options.links = .file(folder.appendingPathComponent("links.sqlite"))
        options.jobs = 2
        configure(&options)
        return try SyncRun(options: options, client: shop, report: nil).run()
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memory-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(try Fixtures.jpeg(width: 40, height: 30, seed: 9)).write(to: folder.appendingPathComponent("p.jpg"))
        return folder
    }

    @Test("created once; the sheet again under a new name sends nothing; one price edited is one PATCH")
    func merchantsDay() throws {
        let shop = InMemoryShop()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sheet = "key,name,price,stock,images\nK1,Green tea,1000,3,p.jpg\nK2,Black tea,2000,4,p.jpg\n"
        #expect(try Self.run(shop, sheet: sheet, in: folder).counts == ["created": 2])
        #expect(try Self.run(shop, sheet: sheet, in: folder, named: "renamed.csv").counts == ["unchanged": 2])
        #expect(shop.callCounts["register"] == 2 && shop.callCounts["edit"] == nil)
        let edited = sheet.replacingOccurrences(of: "Black tea,2000", with: "Black tea,2100")
        #expect(try Self.run(shop, sheet: edited, in: folder, named: "edited.csv").counts == ["unchanged": 1, "updated": 1])
        #expect(shop.callCounts["edit"] == 1)
    }

    @Test("a register whose answer is lost is found in the shop and linked, never sent twice")
    func lostAnswer() throws {
        let shop = InMemoryShop()
        shop.dropAnswers = 1
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sheet = "key,name,price,stock,images\nK1,Green tea,1000,3,p.jpg\n"
        let first = try Self.run(shop, sheet: sheet, in: folder)
        #expect(first.failed == 0, "\(first.counts)")
        #expect(shop.callCounts["register"] == 1, "the lost answer was looked up, not sent again")
        #expect(try shop.page(1, perPage: 100, search: nil).totalCount == 1)
        #expect(try Self.run(shop, sheet: sheet, in: folder).counts == ["unchanged": 1])
    }
}
