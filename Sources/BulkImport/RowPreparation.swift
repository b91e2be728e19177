import Crypto
import Foundation
import ImagePrep
import Manifest
import OpenMarketAPI
import ShopState
import Support

/// The prepare stage (all cores): a new product's photos read (or downloaded)
/// and shrunk under the server's limit; an existing product's photos hashed and
/// compared with the ones it was created with.
extension ImportRun {
    /// The item ready to write, or nil when the row finished here (a photo that
    /// cannot be read or prepared, or an equal row whose photos were only compared).
    func prepare(_ item: WorkItem, _ preparer: ImagePreparer) -> WorkItem? {
        var item = item
        guard case .create = item.decision.action else {
            if needsPhotoCheck(item), let pushed = item.decision.link?.photos, let known = item.draft.knownPhotoHashes {
                item.photosDiffer = known != pushed
            } else if needsPhotoCheck(item), let pushed = item.decision.link?.photos {
                var hashes: [String] = []
                for (index, source) in item.draft.images.enumerated() {
                    switch source {
                    case .file(let url):
                        guard let hash = photoFileHash(url) else {
                            finish(failed(item, "image \(index + 1) (\(url.lastPathComponent)): cannot be read"))
                            return nil
                        }
                        hashes.append(hash)
                    case .url(let address):
                        hashes.append(Self.photoHash(url: address))
                    }
                }
                item.photosDiffer = hashes != pushed
            }
            if item.photosDiffer, options.replacePhotos, let id = item.decision.action.productID {
                item.decision.action = .replace(oldID: id)
                return preparePhotos(item, preparer)
            }
            if case .unchanged = item.decision.action, !item.decision.relink {
                finish(unchangedOutcome(item))
                return nil
            }
            return item
        }
        return preparePhotos(item, preparer)
    }

    /// A new product's photos, read (or downloaded) and shrunk.
    private func preparePhotos(_ item: WorkItem, _ preparer: ImagePreparer) -> WorkItem? {
        var item = item
        var hashes: [String] = []
        for (index, source) in item.draft.images.enumerated() {
            let bytes: [UInt8]
            let name: String
            switch source {
            case .file(let url):
                guard let (data, hash) = readPhoto(url) else {
                    finish(failed(item, "image \(index + 1) (\(url.lastPathComponent)): cannot be read"))
                    return nil
                }
                bytes = Array(data)
                name = FileLookup.nfc(url.lastPathComponent)
                hashes.append(hash)
            case .url(let address):
                do {
                    bytes = Array(try client.download(address, maxBytes: options.maxDownloadBytes))
                } catch {
                    finish(failed(item, "image \(index + 1) (\(address)): \(error)"))
                    return nil
                }
                name = URL(string: address)?.lastPathComponent ?? "image\(index + 1).jpg"
                hashes.append(Self.photoHash(url: address))
            }
            do {
                let prepared = try preparer.prepare(bytes, cache: options.cache).image
                var filename = name.isEmpty ? "image\(index + 1)" : name
                if prepared.format == .jpeg && !["jpg", "jpeg"].contains((filename as NSString).pathExtension.lowercased()) {
                    filename = (filename as NSString).deletingPathExtension + ".jpg"
                }
                item.images.append(UploadImage(data: Data(prepared.data), filename: filename, mimeType: prepared.format.mimeType))
                item.before.append(bytes.count)
                item.after.append(prepared.data.count)
            } catch {
                finish(failed(item, "image \(index + 1) (\(name)): \(error)"))
                return nil
            }
        }
        item.photoHashes = item.draft.knownPhotoHashes ?? hashes
        return item
    }

    /// A photo file's identity: SHA-256 of its bytes.
    static func photoHash(_ data: Data) -> String { hex(SHA256.hash(data: data)) }

    /// A photo file's bytes and hash. With `photoHashes`, the hash is kept for the next
    /// run with the fingerprint taken before the read (`known`, when the caller just took it).
    private func readPhoto(_ url: URL, fingerprint known: FileFingerprint? = nil) -> (Data, String)? {
        let path = url.standardizedFileURL.path
        let before = options.photoHashes == nil ? nil : known ?? FileFingerprint(path: path)
        guard let data = try? Data(contentsOf: url) else { return nil }
        let hash = Self.photoHash(data)
        if let before { options.photoHashes?.record(path: path, before: before, after: FileFingerprint(path: path), hash: hash) }
        return (data, hash)
    }

    /// A photo file's hash, without reading it when the file is as it was when last read.
    private func photoFileHash(_ url: URL) -> String? {
        let path = url.standardizedFileURL.path
        let fingerprint = options.photoHashes == nil ? nil : FileFingerprint(path: path)
        if let fingerprint, let hash = options.photoHashes?.hash(path: path, fingerprint: fingerprint) { return hash }
        return readPhoto(url, fingerprint: fingerprint)?.1
    }

    /// A photo given by URL is known by its address (it is not downloaded to compare).
    static func photoHash(url: String) -> String { "url:" + hex(SHA256.hash(data: Data(url.utf8))) }
}
