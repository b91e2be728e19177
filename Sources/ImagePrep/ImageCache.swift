import Foundation
import Support

/// Prepared images by content: SHA-256 of the input bytes and the settings →
/// the prepared bytes, one file each in `directory`. A resumed or repeated
/// import finds finished photos here instead of shrinking them again. The
/// folder is kept under `maxBytes` by removing the least recently used files.
public final class ImageCache: Sendable {
    public let directory: URL
    public let maxBytes: Int
    private let lock = NSLock()

    public init(directory: URL, maxBytes: Int = 512 * 1024 * 1024) throws {
        self.directory = directory
        self.maxBytes = maxBytes
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

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

    /// The cached result, if any (kept images are not cached: the input is the answer).
    public func lookup(_ key: String) -> (data: [UInt8], format: ImageFormat)? {
        let url = directory.appendingPathComponent(key)
        guard let data = try? Data(contentsOf: url), let format = ImageFormat.sniff(data) else { return nil }
        // Mark as recently used.
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: url.path)
        return (Array(data), format)
    }

    public func store(_ key: String, data: [UInt8]) {
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

extension ImagePreparer {
    /// `prepare`, through a cache: a hit skips decoding and encoding.
    public func prepare(_ input: [UInt8], cache: ImageCache?) throws(ImagePrepError) -> (image: PreparedImage, cached: Bool) {
        guard let cache else { return (try prepare(input), false) }
        let key = ImageCache.key(for: input, settings: settings)
        if let hit = cache.lookup(key), let header = try? codec.header(of: hit.data) {
            return (PreparedImage(data: hit.data, format: hit.format, action: .recompressed,
                                  width: header.width, height: header.height, quality: nil,
                                  originalBytes: input.count, originalWidth: 0, originalHeight: 0,
                                  encodes: 0, warnings: []), true)
        }
        let prepared = try prepare(input)
        if prepared.action != .kept { cache.store(key, data: prepared.data) }
        return (prepared, false)
    }
}
