import Foundation
import Support

/// A backup repository: a folder that keeps each photo once, by content, and snapshots of
/// an account's products.
///
/// ```
/// REPO/config.json                       the account it backs up (server, vendor)
/// REPO/photos/ab/ab12….jpg               each photo once, named by its SHA-256
/// REPO/products/5120.json                a product's photos, learned once (they never change)
/// REPO/snapshots/ID.products.deflate     a snapshot's products (JSON Lines, deflated)
/// REPO/snapshots/ID.json                 its index, written last: it publishes the snapshot
/// REPO/lock                              one backup, forget or restore at a time (flock)
/// ```
/// Every file is written under a temporary name and renamed into place, so a killed run
/// leaves no half file; photos it stored stay for the next run to use.
public struct BackupRepository: Sendable {
    public let url: URL

    /// The account a repository is for.
    public struct Config: Sendable, Codable, Equatable {
        public var version = 1
        public var server: String
        public var account: String
        public var vendorID: Int?

        enum CodingKeys: String, CodingKey {
            case version, server, account
            case vendorID = "vendor_id"
        }
    }

    public init(url: URL) { self.url = url.standardizedFileURL }

    var photos: URL { url.appendingPathComponent("photos") }
    var products: URL { url.appendingPathComponent("products") }
    var snapshots: URL { url.appendingPathComponent("snapshots") }
    var configURL: URL { url.appendingPathComponent("config.json") }

    /// One run at a time on the repository.
    public func lock(_ holder: String) throws -> RunLock {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return try RunLock(url: url.appendingPathComponent("lock"), holder: holder, subject: "this repository")
    }

    public func config() -> Config? {
        (try? Data(contentsOf: configURL)).flatMap { try? JSONDecoder().decode(Config.self, from: $0) }
    }

    func save(_ config: Config) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try write(try encoder.encode(config), to: configURL)
    }

    /// Writes under a temporary name in the same folder, then renames: never half a file.
    func write(_ data: Data, to target: URL) throws {
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".tmp-\(UUID().uuidString)-\(target.lastPathComponent)")
        try data.write(to: temporary)
        guard rename(temporary.path, target.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw BackupError(say: "b_cannot_write", target.path, String(cString: strerror(errno)))
        }
    }

    /// Removes what killed runs left (temporary files).
    func sweep() {
        for folder in [url, snapshots, products] {
            for file in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where file.hasPrefix(".tmp-") {
                try? FileManager.default.removeItem(at: folder.appendingPathComponent(file))
            }
        }
        for shard in (try? FileManager.default.contentsOfDirectory(atPath: photos.path)) ?? [] {
            let folder = photos.appendingPathComponent(shard)
            for file in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where file.hasPrefix(".tmp-") {
                try? FileManager.default.removeItem(at: folder.appendingPathComponent(file))
            }
        }
    }

    // MARK: Photos

    /// `<sha256>.jpg` (or `.png`) for the bytes.
    static func photoName(_ bytes: Data) -> String {
        let hash = SHA256.hash(data: bytes).hex
        let png = bytes.starts(with: [0x89, 0x50, 0x4E, 0x47])
        return hash + (png ? ".png" : ".jpg")
    }

    public func photoURL(_ name: String) -> URL {
        photos.appendingPathComponent(String(name.prefix(2))).appendingPathComponent(name)
    }

    /// Stores the bytes unless the repository has them; returns the name and the bytes added.
    /// Two workers storing the same photo at once (two products with one picture): the one
    /// whose link lands adds it, the other finds it there — counted once.
    func store(photo bytes: Data) throws -> (name: String, added: Int) {
        let name = Self.photoName(bytes)
        let target = photoURL(name)
        if FileManager.default.fileExists(atPath: target.path) { return (name, 0) }
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".tmp-\(UUID().uuidString)-\(name)")
        try bytes.write(to: temporary)
        defer { try? FileManager.default.removeItem(at: temporary) }
        if link(temporary.path, target.path) == 0 { return (name, bytes.count) }
        if errno == EEXIST { return (name, 0) }
        throw BackupError(say: "b_cannot_write", target.path, String(cString: strerror(errno)))
    }

    /// Every photo file the repository holds.
    func allPhotos() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: photos.path)) ?? []).flatMap { shard in
            ((try? FileManager.default.contentsOfDirectory(atPath: photos.appendingPathComponent(shard).path)) ?? [])
                .filter { !$0.hasPrefix(".tmp-") }
        }
    }

    // MARK: Products' photos (learned once per product id)

    func knownPhotos(of id: Int) -> [String]? {
        (try? Data(contentsOf: products.appendingPathComponent("\(id).json"))).flatMap { try? JSONDecoder().decode([String].self, from: $0) }
    }

    func remember(photos names: [String], of id: Int) throws {
        try write(try JSONEncoder().encode(names), to: products.appendingPathComponent("\(id).json"))
    }

    // MARK: Snapshots

    /// Every snapshot, oldest first.
    public func list() -> [SnapshotInfo] {
        let decoder = Self.decoder
        return ((try? FileManager.default.contentsOfDirectory(atPath: snapshots.path)) ?? [])
            .filter { $0.hasSuffix(".json") && !$0.hasPrefix(".tmp-") }
            .compactMap { (try? Data(contentsOf: snapshots.appendingPathComponent($0))).flatMap { try? decoder.decode(SnapshotInfo.self, from: $0) } }
            .sorted { ($0.time, $0.id) < ($1.time, $1.id) }
    }

    /// A snapshot by its id (or a unique start of it), `latest`, or the last at or before a date.
    public func find(_ id: String) throws -> SnapshotInfo {
        let all = list()
        if id == "latest", let last = all.last { return last }
        let matches = all.filter { $0.id == id || $0.id.hasPrefix(id) }
        guard matches.count == 1 else {
            throw matches.isEmpty ? BackupError(say: "b_no_snapshot", id, url.path) : BackupError(say: "b_ambiguous", id, String(matches.count))
        }
        return matches[0]
    }

    public func find(at date: Date) throws -> SnapshotInfo {
        guard let snapshot = list().last(where: { $0.time <= date }) else {
            throw BackupError(say: "b_no_snapshot_at", ISO8601DateFormatter().string(from: date), url.path)
        }
        return snapshot
    }

    public func products(of snapshot: SnapshotInfo) throws -> [SnapshotProduct] {
        let file = snapshots.appendingPathComponent("\(snapshot.id).products.deflate")
        guard let compressed = try? Data(contentsOf: file) else { throw BackupError(say: "b_damaged_missing", file.path) }
        let text: Data
        do { text = try Deflate.inflate(compressed) } catch {
            throw BackupError(say: "b_damaged_unreadable", file.path, "\(error)")
        }
        let decoder = JSONDecoder()
        return try text.split(separator: UInt8(ascii: "\n")).map { try decoder.decode(SnapshotProduct.self, from: Data($0)) }
    }

    /// Writes the product list, then the index that publishes it; returns the list's bytes.
    func publish(_ info: SnapshotInfo, products: [SnapshotProduct]) throws -> Int {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var lines = Data()
        for product in products {
            lines.append(try encoder.encode(product))
            lines.append(UInt8(ascii: "\n"))
        }
        let compressed = try Deflate.compress(lines)
        try write(compressed, to: snapshots.appendingPathComponent("\(info.id).products.deflate"))
        var info = info
        info.bytesAdded += compressed.count
        let indexEncoder = Self.encoder
        try write(try indexEncoder.encode(info), to: snapshots.appendingPathComponent("\(info.id).json"))
        return compressed.count
    }

    func remove(_ snapshot: SnapshotInfo) throws {
        // The index first: from then on the snapshot does not exist.
        try FileManager.default.removeItem(at: snapshots.appendingPathComponent("\(snapshot.id).json"))
        try? FileManager.default.removeItem(at: snapshots.appendingPathComponent("\(snapshot.id).products.deflate"))
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    static func newID(_ time: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss-SSS"
        return formatter.string(from: time) + String(format: "%02x", UInt8.random(in: 0...UInt8.max))
    }
}
