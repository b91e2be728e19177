import Foundation
import Manifest

extension BackupRepository {
    /// A snapshot's products (all, or those of `keys` / `ids`) as a manifest: the spreadsheet
    /// `import` reads, its photos by path under `photoRoot` (the repository's own photos for
    /// a restore; copies beside it for a portable export).
    public func writeManifest(_ snapshot: SnapshotInfo, to url: URL, keys: [String] = [], ids: [Int] = [],
                              copyPhotosTo photoRoot: URL? = nil) throws -> (written: Int, unknown: [String]) {
        let all = try products(of: snapshot)
        var chosen = all
        var unknown: [String] = []
        if !keys.isEmpty || !ids.isEmpty {
            chosen = all.filter { product in product.key.map(keys.contains) == true || ids.contains(product.id) }
            unknown = keys.filter { key in !all.contains { $0.key == key } } + ids.filter { id in !all.contains { $0.id == id } }.map { "#\($0)" }
        }
        let writer = try ManifestWriter(url: url)
        do {
            for product in chosen {
                var images: [String] = []
                for photo in product.photos {
                    if let photoRoot {
                        let copy = photoRoot.appendingPathComponent(photo)
                        if !FileManager.default.fileExists(atPath: copy.path) {
                            try FileManager.default.createDirectory(at: photoRoot, withIntermediateDirectories: true)
                            try FileManager.default.copyItem(at: photoURL(photo), to: copy)
                        }
                        images.append(photoRoot.lastPathComponent + "/" + photo)
                    } else {
                        images.append(String(photo.prefix(2)) + "/" + photo)
                    }
                }
                try writer.write(ManifestEntry(id: product.id, key: product.key, fields: product.fields, images: images))
            }
            try writer.finish()
        } catch {
            writer.abandon()
            throw error
        }
        return (chosen.count, unknown)
    }

    /// The folder a restore's manifest names its photos under (the repository's photos).
    public var photosFolder: URL { photos }
}
