import CatalogSync
import FeedRuns
import Feeds
import Foundation
import OpenMarketAPI
import Sandbox
import ShopState
import Support
import Testing
import TestSupport

/// A reseller's night: the supplier's web server, the shop (a sandbox), the merchant's feed
/// file and the folders openmarket keeps, all in a scratch folder.
struct Night {
    let files: Scratch
    let sandbox: TestSandbox
    let supplier: FeedSourceServer
    let photo: String

    static func open(latency: Int = 0) async throws -> Night {
        let files = try Scratch()
        let supplier = try await FeedSourceServer.start()
        let photo = supplier.servePhoto("p.jpg", try Fixtures.jpeg(width: 48, height: 36, seed: 3))
        return Night(files: files, sandbox: try await TestSandbox.start { $0.faults.latencyMilliseconds = latency }, supplier: supplier, photo: photo)
    }

    func close() async {
        await supplier.stop()
        await sandbox.stop()
        files.cleanup()
    }

    /// The supplier's sheet: `rows` products S1…Sn, cost 1000·n, stock n.
    func sheet(rows: Int, cost: (Int) -> Int = { 1000 * $0 }) -> String {
        var text = "상품코드,상품명,공급가,재고수량,이미지\n"
        for i in stride(from: 1, through: rows, by: 1) { text += "S\(i),상품 \(i)번,\(cost(i)),\(i),\(photo)\n" }
        return text
    }

    /// The feed file: the supplier's URL, a 30 % markup, the checks and the webhook given.
    func feed(_ extra: String = "", source: String? = nil) throws -> Feed {
        let text = """
            keep_reports = 2
            [columns]
            key = "상품코드"
            name = "상품명"
            cost = "공급가"
            stock = "재고수량"
            images = "이미지"
            [prices]
            markup_percent = 30
            round_to = 100
            round = "up"
            [source]
            \(source ?? "url = \"\(supplier.feedURL)\"")
            [notify]
            webhook = "\(supplier.hookURL)"
            \(extra)
            """
        let url = files.directory.appendingPathComponent("acme.toml")
        try Data(text.utf8).write(to: url)
        return try FeedFile.load(url)
    }

    var feedsRoot: URL { files.directory.appendingPathComponent("feeds") }

    func runner(_ feed: Feed, accept: Bool = false, force: Bool = false, vendor: SandboxVendor? = nil) throws -> FeedRunner {
        let client = try TestSupport.client(sandbox, vendor ?? sandbox.demo)
        var options = FeedRunOptions()
        options.accept = accept
        options.force = force
        return FeedRunner(feed: feed, client: client, account: account(client), root: feedsRoot, options: options)
    }

    /// The feed's memory of the demo vendor's shop.
    func folder(_ feed: Feed) throws -> FeedFolder {
        FeedFolder(feed: feed, shop: FeedRunner.shopTag(account(try TestSupport.client(sandbox, sandbox.demo))), root: feedsRoot)
    }

    func account(_ client: OpenMarketClient) -> AccountState {
        AccountState(shop: client, sandboxData: files.directory.appendingPathComponent("state"))
    }

    func run(_ feed: Feed, accept: Bool = false, force: Bool = false, vendor: SandboxVendor? = nil) async throws -> FeedRunResult {
        let runner = try runner(feed, accept: accept, force: force, vendor: vendor)
        return try await blocking { runner.run() }
    }

    /// Every product of the demo vendor, by name.
    func products() async throws -> [String: [ProductSummary]] {
        let reader = try TestSupport.client(sandbox)
        return try await blocking {
            var byName: [String: [ProductSummary]] = [:]
            for product in try reader.page(1, perPage: 500).pages { byName[product.name, default: []].append(product) }
            return byName
        }
    }

    /// Requests the shop answered so far (reads and writes).
    var requests: Int { sandbox.server.requests.byMethod.values.reduce(0, +) }
}
