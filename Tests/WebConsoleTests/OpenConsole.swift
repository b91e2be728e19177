import Backups
import CatalogSync
import Foundation
import ImagePrep
import OpenMarketAPI
import Sandbox
import TestSupport
import WebConsole
import Zip

/// A console on a folder with a sheet of `rows` products, over a sandbox of its own.
struct OpenConsole {
    let sandbox: TestSandbox
    let files: Scratch
    let console: ConsoleServer
    let client: OpenMarketClient
    /// The sandbox's gate on writes, shut by `holdWritesAfter`.
    let gate: RequestGate
    /// The browser's language (`Accept-Language`), when a test names one.
    var language: String?

    /// With `profiles`: a menu of them beside the demo vendor's shop; `other` opens the sandbox's
    /// second vendor, any other name fails to open (as a wrong secret would).
    /// `state`: the account's state in a shared database (`--state postgres://…`); `transport`:
    /// the console's TLS settings (`--cacert`). `holdWritesAfter`: the sandbox answers that many
    /// writes, then holds every later one until `release()`: a run caught in the middle for as
    /// long as the test needs, whatever the machine's load and the console's pace.
    static func start(rows: Int = 20, holdWritesAfter: Int? = nil, profiles: [String] = [], photoCache: ImageCache? = nil,
                      state: URL? = nil, transport: TransportSettings = TransportSettings(),
                      sandboxPages: Bool = false, backups: Bool = true, wrongSecret: Bool = false,
                      sharedAddress: Bool = false) async throws -> OpenConsole {
        // Held as long as the test needs: a loaded CI delayed its polls by minutes, longer than
        // the 30 s after which an unanswered write counts as a server gone silent (the run then
        // stopped itself, not from the console).
        let gate = RequestGate(kind: .writes, holdAtMost: .seconds(600))
        let sandbox = try await TestSandbox.start { $0.faults.gate = holdWritesAfter == nil ? nil : gate }
        var held = transport
        if let holdWritesAfter {
            gate.shut(after: holdWritesAfter)
            held.lowSpeedTime = 900
        }
        let transport = held
        let files = try Scratch()
        _ = try writeManifest(files, rows: rows)
        // The shop's client with the console's TLS settings, as `openmarket console --cacert` makes it.
        var vendor = sandbox.demo
        if wrongSecret { vendor.secret = "not-the-secret" }
        let client = try TestSupport.client(sandbox, vendor, transport: transport)
        let folder = files.directory
        @Sendable func engine(_ client: OpenMarketClient) -> ConsoleEngine {
            ConsoleEngine(folder: folder, shop: client, account: AccountState(shop: client, sandboxData: folder.appendingPathComponent("state"), place: state.map { .database($0) } ?? .machine),
                          reports: folder.appendingPathComponent("reports"), feeds: ConsoleFeeds(
                              folder: folder.appendingPathComponent("feeds"), root: folder.appendingPathComponent("feed-state")),
                          backups: backups ? ConsoleBackups(repository: BackupRepository(url: folder.appendingPathComponent("backup"))) : nil,
                          photoCache: photoCache, transport: transport,
                          productPages: sandboxPages ? (sandbox.url, "/products/") : nil)
        }
        let shops = ConsoleShops(engine(client), profiles: profiles) { name in
            guard name == "other" else { throw TestFailure("the server refused the credentials of \(name)") }
            return engine(try TestSupport.client(sandbox, sandbox.other))
        }
        return OpenConsole(sandbox: sandbox, files: files, console: try await ConsoleServer.start(shops, sharedAddress: sharedAddress), client: client, gate: gate, language: nil)
    }

    /// A supplier's feed file in the console's feeds folder: `acme`, a 30 % markup on cost.
    func writeFeed(source: String, _ extra: String = "") throws {
        let folder = files.directory.appendingPathComponent("feeds")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let text = Fixtures.feedText(source: source, extra)
        try Data(text.utf8).write(to: folder.appendingPathComponent("acme.toml"))
    }

    /// A zip as a merchant's computer makes one: `files` by their paths in it.
    static func zip(_ files: [(String, Data)]) throws -> Data {
        var writer = ZipWriter()
        for (path, bytes) in files { try writer.add(path, bytes) }
        return writer.data
    }

    /// A sheet of two products whose photos are in `photos/` of a zip, and that zip.
    static func zippedPhotos() throws -> (sheet: Data, zip: Data) {
        let sheet = Data("sku,name,price,stock,images\nZ1,Zip tea,5000,3,photos/z1.jpg\nZ2,Zip cup,7000,2,photos/z2.jpg\n".utf8)
        let zip = try zip([("photos/z1.jpg", Data(try Fixtures.jpeg(width: 64, height: 48, seed: 11))),
                           ("photos/z2.jpg", Data(try Fixtures.jpeg(width: 64, height: 48, seed: 12))),
                           ("__MACOSX/photos/._z1.jpg", Data("resource fork".utf8))])
        return (sheet, zip)
    }

    /// A file sent as the page sends a dropped one.
    func upload(_ name: String, _ data: Data, to path: String = "upload") async throws -> CurlResult {
        let file = files.directory.appendingPathComponent(".to-send-\(UUID().uuidString)")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
        return try await curl(["-H", "Cookie: \(cookie)", "-H", "Origin: \(origin)"] + languageHeader + ["--data-binary", "@" + file.path,
                               console.url.absoluteString + path + "?name=" + encoded])
    }

    var origin: String { "http://\(console.url.host ?? ""):\(console.url.port ?? 0)" }
    var cookie: String { console.cookie }

    func get(_ path: String) async throws -> CurlResult {
        try await curl(["-H", "Cookie: \(cookie)"] + languageHeader + [console.url.absoluteString + path])
    }

    func post(_ path: String, _ form: String) async throws -> CurlResult {
        try await curl(["-H", "Cookie: \(cookie)", "-H", "Origin: \(origin)"] + languageHeader + ["--data", form, console.url.absoluteString + path])
    }

    private var languageHeader: [String] { language.map { ["-H", "Accept-Language: \($0)"] } ?? [] }

    /// A job started by a form: the page it sends the browser to.
    func start(_ path: String, _ form: String) async throws -> String {
        let started = try await post(path, form)
        guard started.status == 303, let location = started.headers["location"] else {
            throw TestFailure("\(path) answered \(started.status), not a job: \(started.text.prefix(300))")
        }
        return String(location.dropFirst())
    }

    /// The job's page once the job ended (its page polled as a browser without script would).
    func ended(_ job: String) async throws -> CurlResult {
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let page = try await get(job)
            if !page.text.contains("id=\"stop\"") { return page }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestFailure("\(job) did not end in 120 s")
    }

    func run(_ path: String, _ form: String) async throws -> CurlResult { try await ended(try await start(path, form)) }

    func products() async throws -> Int { try await blocking { [client] in try client.page(1, perPage: 100).totalCount } }

    /// Lets the held writes and every later one through.
    func release() { gate.open() }

    func close() async {
        gate.open()
        await console.stop()
        await sandbox.stop()
        files.cleanup()
    }
}

