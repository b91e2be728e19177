import Foundation
import Support
import Phrases

/// Prepared images kept where every machine finds them (S3-compatible storage): the same
/// keys as the local cache. The first writer of a key wins; a second's write is not an error.
public protocol SharedImageStore: Sendable {
    /// Where it is, for messages (`s3://bucket/prefix`).
    var name: String { get }
    func load(_ key: String) throws -> [UInt8]?
    /// Stores unless the key is there; true when this call stored it.
    func save(_ key: String, _ data: [UInt8]) throws -> Bool
}

/// What the shared store did during a run: hits, photos stored, and failures (a failing shared
/// store costs preparation time, never a row).
public struct SharedCacheCounts: Sendable, Equatable {
    public var hits = 0
    public var misses = 0
    public var stored = 0
    /// Stored by another machine between our look and our write.
    public var storedByOther = 0
    public var failures = 0
    public var firstFailure: String?
}

/// Prepared images by content: SHA-256 of the input bytes and the settings →
/// the prepared bytes, one file each in `directory`. A resumed or repeated
/// import finds finished photos here instead of shrinking them again. The
/// folder is kept under `maxBytes` by removing the least recently used files.
/// With a `shared` store behind it, a local miss looks there (and keeps what it finds), and
/// what is prepared here is stored there too.
public final class ImageCache: Sendable {
    public let directory: URL
    public let maxBytes: Int
    public let shared: (any SharedImageStore)?
    private let lock = NSLock()
    private let counts = Counted()

    public init(directory: URL, maxBytes: Int = 512 * 1024 * 1024, shared: (any SharedImageStore)? = nil) throws {
        self.directory = directory
        self.maxBytes = maxBytes
        self.shared = shared
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The shared store's numbers so far.
    public var sharedCounts: SharedCacheCounts { counts.value }

    /// The default folder: `$XDG_CACHE_HOME/openmarket/images` or `~/.cache/openmarket/images`.
    public static var defaultDirectory: URL {
        UserFolders.cache.appendingPathComponent("images", isDirectory: true)
    }

    public static func key(for input: [UInt8], settings: ImagePrepSettings) -> String {
        var hasher = SHA256()
        hasher.update(data: input)
        hasher.update(data: Data(settings.cacheTag.utf8))
        return hasher.finalize().hex
    }

    /// The cached result, if any (kept images are not cached: the input is the answer): here,
    /// then in the shared store.
    public func lookup(_ key: String) -> (data: [UInt8], format: ImageFormat)? {
        let url = directory.appendingPathComponent(key)
        if let data = try? Data(contentsOf: url), let format = ImageFormat.sniff(data) {
            // Mark as recently used.
            try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: url.path)
            return (Array(data), format)
        }
        guard let shared else { return nil }
        do {
            guard let data = try shared.load(key), let format = ImageFormat.sniff(data) else {
                counts.update { $0.misses += 1 }
                return nil
            }
            counts.update { $0.hits += 1 }
            storeHere(key, data: data)
            return (data, format)
        } catch {
            counts.failed(error)
            return nil
        }
    }

    /// Keeps a prepared image here and in the shared store.
    public func store(_ key: String, data: [UInt8]) {
        storeHere(key, data: data)
        guard let shared else { return }
        do {
            let stored = try shared.save(key, data)
            counts.update { stored ? ($0.stored += 1) : ($0.storedByOther += 1) }
        } catch {
            counts.failed(error)
        }
    }

    private func storeHere(_ key: String, data: [UInt8]) {
        let url = directory.appendingPathComponent(key)
        let temporary = directory.appendingPathComponent(".\(key).\(UUID().uuidString).tmp")
        do {
            try Data(data).write(to: temporary)
            _ = try? FileManager.default.removeItem(at: url)
            try FileManager.default.moveItem(at: temporary, to: url)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            return
        }
        trim()
    }

    /// Removes the least recently used files until the folder fits `maxBytes`.
    func trim() {
        lock.lock()
        defer { lock.unlock() }
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        guard let files = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys) else { return }
        var entries = files.compactMap { url -> (url: URL, size: Int, date: Date)? in
            guard !url.lastPathComponent.hasPrefix("."), let values = try? url.resourceValues(forKeys: Set(keys)) else { return nil }
            return (url, values.fileSize ?? 0, values.contentModificationDate ?? .distantPast)
        }
        var total = entries.reduce(0) { $0 + $1.size }
        guard total > maxBytes else { return }
        entries.sort { $0.date < $1.date }
        for entry in entries where total > maxBytes {
            try? FileManager.default.removeItem(at: entry.url)
            total -= entry.size
        }
    }
}

/// The shared store's counters behind a lock.
private final class Counted: @unchecked Sendable {
    private let lock = NSLock()
    private var counts = SharedCacheCounts()

    var value: SharedCacheCounts { lock.withLock { counts } }
    func update(_ body: (inout SharedCacheCounts) -> Void) { lock.withLock { body(&counts) } }
    func failed(_ error: any Error) {
        update {
            $0.failures += 1
            if $0.firstFailure == nil { $0.firstFailure = "\(error)" }
        }
    }
}

extension ImagePreparer {
    /// `prepare`, through a cache: a hit skips decoding and encoding.
    public func prepare(_ input: [UInt8], cache: ImageCache?) throws(ImagePrepError) -> (image: PreparedImage, cached: Bool) {
        guard let cache else { return (try prepare(input), false) }
        let key = ImageCache.key(for: input, settings: settings)
        if let hit = cache.lookup(key), let header = try? codec.header(of: hit.data) {
            var image = PreparedImage(data: hit.data, format: hit.format, action: .recompressed,
                                      width: header.width, height: header.height, quality: nil,
                                      originalBytes: input.count, originalWidth: 0, originalHeight: 0,
                                      encodes: 0, warnings: [])
            // Never made larger: a photo this small came this small.
            if max(header.width, header.height) < Self.usefulLongEdge {
                image.warnings.append(Self.smallPhotoWarning(width: header.width, height: header.height))
            }
            return (image, true)
        }
        let prepared = try prepare(input)
        if prepared.action != .kept { cache.store(key, data: prepared.data) }
        return (prepared, false)
    }
}
