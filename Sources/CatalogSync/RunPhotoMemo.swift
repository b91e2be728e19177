import Foundation
import ImagePrep
import Support

/// The photo files one run has read and prepared, by path and fingerprint: the same file on
/// many rows is read, hashed and shrunk once (with `--no-cache` too: this lives only as long
/// as the run). A file changed since (its fingerprint) is read again. Bounded by the bytes it
/// keeps; the oldest go first.
final class RunPhotoMemo: @unchecked Sendable {
    struct Photo {
        var fingerprint: FileFingerprint
        /// The photo's identity as the link keeps it (its content, and what was sent).
        var identity: String
        var prepared: PreparedImage
        var originalCount: Int
    }

    private let lock = NSLock()
    private var photos: [String: Photo] = [:]
    private var order: [String] = []
    private var bytes = 0
    private let budget: Int

    init(budget: Int = 64 << 20) { self.budget = budget }

    func photo(path: String, fingerprint: FileFingerprint) -> Photo? {
        lock.withLock {
            guard let photo = photos[path], photo.fingerprint == fingerprint else { return nil }
            return photo
        }
    }

    func keep(path: String, fingerprint: FileFingerprint, identity: String, prepared: PreparedImage, originalCount: Int) {
        // A file written in the same clock tick as its read may keep its times: not trusted yet.
        guard fingerprint.settled() else { return }
        lock.withLock {
            if let old = photos[path] {
                bytes -= old.prepared.data.count
                order.removeAll { $0 == path }
            }
            photos[path] = Photo(fingerprint: fingerprint, identity: identity, prepared: prepared, originalCount: originalCount)
            order.append(path)
            bytes += prepared.data.count
            while bytes > budget, let oldest = order.first {
                order.removeFirst()
                bytes -= photos.removeValue(forKey: oldest)?.prepared.data.count ?? 0
            }
        }
    }
}
