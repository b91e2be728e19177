import Foundation
import Testing
import TestSupport

/// The image's root (`scripts/build-image --root`; the suite's made by `scripts/build-image
/// --test-root` in `.build/image-root`) run as a pod runs it: chrooted as the image's user, with
/// an empty home and only environment variables, `/proc` of its own, against a sandbox, a
/// throwaway PostgreSQL and S3 (moto) on 127.0.0.1. A library missing from
/// `deploy/runtime-packages.txt` fails here, not on a cluster.
@Suite("The image's root, run as a pod runs it", .serialized, .enabled(if: ImageRoot.runnable || ImageRoot.required))
struct ImageRootTests {
    @Test("--version and doctor answer; two shards of a 60-row import make 60 products, the state in PostgreSQL, the photos on S3; feed run --all runs")
    func asAPod() async throws {
        let root = try ImageRoot.folder()
        let files = try Scratch()
        defer { files.cleanup() }
        let sandbox = try await TestSandbox.start()
        let postgres = try await TestPostgres.start()
        let s3 = try await TestS3.start(buckets: ["photos"])
        let supplier = try await FeedSourceServer.start()
        // The sheet and its photos, read-only to the pod's user, as the Job mounts them.
        let sheets = root.appendingPathComponent("sheets")
        try? FileManager.default.removeItem(at: sheets)
        try FileManager.default.createDirectory(at: sheets, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: sheets) }
        for photo in 1...6 {
            try Data(Fixtures.jpeg(width: 640, height: 480, seed: UInt64(photo))).write(to: sheets.appendingPathComponent("p\(photo).jpg"))
        }
        let rows = (1...60).map { "K\($0),Pod product \($0),\(1000 + $0),\($0 % 9),p\($0 % 6 + 1).jpg\n" }.joined()
        try Data(("key,name,price,stock,images\n" + rows).utf8).write(to: sheets.appendingPathComponent("products.csv"))

        let shop = ["OPENMARKET_SERVER": sandbox.url, "OPENMARKET_IDENTIFIER": sandbox.demo.identifier,
                    "OPENMARKET_SECRET": sandbox.demo.secret, "OPENMARKET_STATE": postgres.address.absoluteString,
                    "OPENMARKET_CACHE": "s3://photos/pods"].merging(s3.environment) { $1 }

        let version = try await ImageRoot.run(root, ["--version"], shop)
        #expect(version.status == 0 && version.output.hasPrefix("openmarket 0."), "\(version.output)")
        let doctor = try await ImageRoot.run(root, ["doctor"], shop)
        #expect(doctor.status == 0, "\(doctor.output)")
        #expect(doctor.output.contains("HEIC (libheif") && doctor.output.contains("WebP (libwebp"), "the photo decoders: \(doctor.output)")

        // Two shards, each its own empty home, one after the other as two pods of the Job (the
        // photos made smaller than they are, so that each is prepared, and stored on S3).
        for index in 0..<2 {
            let shard = try await ImageRoot.run(root, ["import", "/sheets/products.csv", "--shard", "\(index)/2", "--run", "pods", "--quiet", "--max-bytes", "20000"], shop)
            #expect(shard.status == 0, "shard \(index): \(shard.output)")
        }
        let products = try await allProducts(sandbox)
        #expect(products.count == 60 && Set(products.map(\.name)).count == 60, "\(products.count) products")
        let photos = try await s3.keys("photos", prefix: "pods/")
        #expect(photos.count == 6, "each photo prepared once, on S3: \(photos)")
        let state = try await blocking { try runToolOutput("/usr/bin/env", ["psql", "-At", "-h", "127.0.0.1", "-p", String(postgres.port), "-U", "openmarket",
                                                       "-d", "postgres", "-c", "SELECT count(*) FROM link WHERE product_id IS NOT NULL"]) }
        #expect(state.output.trimmingCharacters(in: .whitespacesAndNewlines) == "60", "the links in PostgreSQL: \(state.output)")
        // Again from a third empty pod: nothing to do.
        let again = try await ImageRoot.run(root, ["import", "/sheets/products.csv", "--quiet", "--max-bytes", "20000"], shop)
        #expect(again.status == 0 && again.output.contains("60 unchanged"), "\(again.output)")

        // The night's feeds, as the CronJob runs them: a feed file in the config folder, a round in the state.
        let photo = supplier.servePhoto("f.jpg", try Fixtures.jpeg(width: 48, height: 36, seed: 40))
        supplier.serve("code,title,cost,qty,photo\n" + (1...5).map { "F\($0),Feed product \($0),\(2000 + $0),\($0),\(photo)\n" }.joined())
        let config = root.appendingPathComponent("config/openmarket/feeds")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root.appendingPathComponent("config")) }
        try Data(Fixtures.feedText(source: supplier.feedURL).utf8).write(to: config.appendingPathComponent("supplier.toml"))
        let night = try await ImageRoot.run(root, ["feed", "run", "--all"],
                                      shop.merging(["XDG_CONFIG_HOME": "/config", "OPENMARKET_ROUND": "night-1"]) { $1 })
        #expect(night.status == 0 && night.output.contains("5 created"), "\(night.output)")
        #expect(try await allProducts(sandbox).count == 65)
        await supplier.stop()
        await s3.stop()
        await postgres.stop()
        await sandbox.stop()
    }
}

/// Where the suite's image root is, and how a pod's command runs in it.
enum ImageRoot {
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var path: URL {
        ProcessInfo.processInfo.environment["OPENMARKET_IMAGE_ROOT"].map { URL(fileURLWithPath: $0) }
            ?? package.appendingPathComponent(".build/image-root")
    }

    /// A root made, and a user that may chroot.
    static var runnable: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: path.appendingPathComponent("opt/openmarket/openmarket").path)
    }

    /// In CI as root the root must be there (`.ci/run` makes it): its absence fails the suite.
    static var required: Bool { ProcessInfo.processInfo.environment["CI"] != nil && getuid() == 0 }

    static func folder() throws -> URL {
        guard runnable else {
            throw TestFailure("no image root at \(path.path): scripts/build-image --test-root makes it (as root, with mmdebstrap)")
        }
        return path
    }

    /// `openmarket ARGUMENTS` in the root as the image's user (10001), with an empty home
    /// (`/tmp/openmarket`, made new), only `environment`, and a `/proc` of its own.
    /// On a thread of its own: the command takes seconds, and the suite's other servers share the test's threads.
    static func run(_ root: URL, _ arguments: [String], _ environment: [String: String]) async throws -> (status: Int32, output: String) {
        try await blocking { try runBlocking(root, arguments, environment) }
    }

    private static func runBlocking(_ root: URL, _ arguments: [String], _ environment: [String: String]) throws -> (status: Int32, output: String) {
        let home = root.appendingPathComponent("tmp/openmarket")
        try? FileManager.default.removeItem(at: home)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        chown(home.path, 10001, 10001)
        let variables = ["HOME=/tmp/openmarket", "PATH=/usr/local/bin:/usr/bin:/bin"] + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return try runToolOutput("/usr/bin/unshare", ["--mount", "--pid", "--fork", "--mount-proc=\(root.appendingPathComponent("proc").path)",
                                                      "chroot", "--userspec=10001:10001", root.path, "/usr/bin/env", "-i"]
                                                      + variables + ["openmarket"] + arguments)
    }
}
