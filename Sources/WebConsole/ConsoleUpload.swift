import Feeds
import Foundation
import Manifest
import Words
import Hummingbird
import NIOCore

/// Files dropped on the console's page into its folder: a sheet under its own name, a .zip of
/// photos (and sheets) unpacked there with its folders, so that a sheet's image names find them.
///
/// What the merchant has is theirs: nothing in the folder is ever removed or replaced. A file
/// whose name is taken is kept beside it under a new one (`products (2).csv`), unless it has the
/// same bytes (then nothing is written); the answer says what went where. Nothing leaves the
/// folder: a name is its last part only; a zip entry that climbs out (`..`, an absolute path) or
/// is a link is refused; the Mac's `__MACOSX/` and `._` files are skipped. Limits count the bytes
/// really written, not what a zip's headers claim; a refused zip leaves nothing behind.
struct ConsoleUpload: Sendable {
    let folder: URL
    /// What the folder takes: sheets and zips of photos, or feed files (`.toml`, each read as
    /// `feed test` reads it before it is kept).
    var feeds = false

    static let maxBytes = 1 << 30
    static let maxUnpacked: UInt64 = 4 << 30
    static let maxEntries = 100_000

    /// Why a file was not kept, by its words and names (said in the page's language).
    struct Refused: Error, CustomStringConvertible {
        var phrase: Phrase
        init(_ key: String, _ values: String...) { phrase = Phrase(key, values) }
        init(_ phrase: Phrase) { self.phrase = phrase }
        var description: String { phrase.text(.en) }
    }

    /// What an upload did, as the page shows it.
    struct Received: Sendable, Equatable {
        /// Every file now in the folder from this upload, by the name it has there.
        var kept: [String] = []
        /// Names that were taken: kept beside, under another.
        var renamed: [Renamed] = []
        /// Already there with the same bytes: nothing written.
        var same: [String] = []
        /// Zip names not written in UTF-8, and how they were read (`cp949`, `cp437`).
        var decoded: [Decoded] = []
    }

    struct Renamed: Sendable, Equatable, Encodable {
        var wanted: String
        var kept: String
    }

    struct Decoded: Sendable, Equatable, Encodable {
        var name: String
        var encoding: String
    }

    /// A feed file is kept only when it reads as a feed (its mistake said, nothing kept).
    static func checkFeed(_ partial: URL, name: String, in folder: URL) throws {
        let staging = folder.appendingPathComponent(".check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: staging) }
        let named = staging.appendingPathComponent(name)
        try FileManager.default.copyItem(at: partial, to: named)
        do { _ = try FeedFile.load(named) } catch { throw Refused(Phrase("upload_feed_mistake", [name], parts: [error.placed(name)])) }
    }

    /// The name a file is kept under, or why not.
    func name(for given: String) throws -> String {
        let name = (given.replacingOccurrences(of: "\\", with: "/") as NSString).lastPathComponent
        let type = (name as NSString).pathExtension.lowercased()
        guard !name.isEmpty, !name.hasPrefix(".") else { throw Refused(feeds ? "upload_feed_kind" : "upload_kind", given) }
        if feeds {
            guard type == "toml" else { throw Refused("upload_feed_kind", given) }
        } else {
            guard ManifestFormat.isSheet(URL(fileURLWithPath: name)) || type == "zip" else { throw Refused("upload_kind", given) }
        }
        return name
    }

    /// The body of the request into the folder.
    func receive(_ request: Request, named given: String) async throws -> Received {
        let name = try name(for: given)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let partial = folder.appendingPathComponent(".upload-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: partial.path, contents: nil) else { throw Refused("upload_cannot_write", folder.path) }
        defer { try? FileManager.default.removeItem(at: partial) }
        let handle = try FileHandle(forWritingTo: partial)
        var size = 0
        do {
            for try await buffer in request.body {
                size += buffer.readableBytes
                guard size <= Self.maxBytes else { throw Refused("upload_too_large", name) }
                try handle.write(contentsOf: buffer.readableBytesView)
            }
            try handle.close()
        } catch {
            try? handle.close()
            throw error
        }
        if feeds { try Self.checkFeed(partial, name: name, in: folder) }
        if (name as NSString).pathExtension.lowercased() == "zip" { return try unpack(partial, name: name) }
        var received = Received()
        try place(partial, at: name, into: &received)
        return received
    }

    /// The zip's files into the folder: each name checked (`MerchantZip`), then every file
    /// written into a hidden folder of its own while its real bytes are counted, then put in place.
    func unpack(_ file: URL, name: String) throws -> Received {
        let zip: MerchantZip
        do {
            zip = try MerchantZip(url: file, name: name, limits: MerchantZip.Limits(entries: Self.maxEntries, unpackedBytes: Self.maxUnpacked))
        } catch { throw Refused(error.phrase) }
        var received = Received()
        received.decoded = zip.files.compactMap { file in file.encoding.map { Decoded(name: file.path, encoding: $0) } }
        // Written apart first: a refusal half-way leaves nothing in the folder.
        let staging = folder.appendingPathComponent(".unpack-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: staging) }
        var written: UInt64 = 0
        for (index, entry) in zip.files.enumerated() {
            let staged = staging.appendingPathComponent(String(index))
            guard FileManager.default.createFile(atPath: staged.path, contents: nil), let output = try? FileHandle(forWritingTo: staged) else {
                throw Refused("upload_cannot_write", folder.path)
            }
            defer { try? output.close() }
            do {
                try zip.read(entry, written: &written) { try output.write(contentsOf: $0) }
            } catch let refused as MerchantZip.Refused {
                throw Refused(refused.phrase)
            }
        }
        for (index, entry) in zip.files.enumerated() {
            try place(staging.appendingPathComponent(String(index)), at: entry.path, into: &received)
        }
        return received
    }

    /// Moves a received file to `path` (relative to the folder) without replacing anything: a
    /// taken name gets ` (2)`, ` (3)`… before its extension; a folder on the way that is a file
    /// gets one too. The same bytes already there: nothing moves.
    func place(_ file: URL, at path: String, into received: inout Received) throws {
        let manager = FileManager.default
        var parts = path.split(separator: "/").map(String.init)
        var base = folder
        for index in parts.indices.dropLast() {
            var isFolder: ObjCBool = false
            var component = parts[index]
            var number = 1
            while manager.fileExists(atPath: base.appendingPathComponent(component).path, isDirectory: &isFolder), !isFolder.boolValue {
                number += 1
                component = "\(parts[index]) (\(number))"
            }
            parts[index] = component
            base = base.appendingPathComponent(component)
            if !manager.fileExists(atPath: base.path) {
                do { try manager.createDirectory(at: base, withIntermediateDirectories: false) } catch {
                    throw Refused("upload_cannot_keep", path, folder.path, "\(error)")
                }
            }
        }
        let wanted = parts.last ?? path
        var candidate = wanted
        var number = 1
        while true {
            let target = base.appendingPathComponent(candidate)
            var isFolder: ObjCBool = false
            if manager.fileExists(atPath: target.path, isDirectory: &isFolder) {
                if !isFolder.boolValue, manager.contentsEqual(atPath: target.path, andPath: file.path) {
                    received.same.append((parts.dropLast() + [candidate]).joined(separator: "/"))
                    return
                }
            } else if link(file.path, target.path) == 0 {
                // link(2) never replaces: a name taken meanwhile fails with EEXIST and the next is tried.
                unlink(file.path)
                let kept = (parts.dropLast() + [candidate]).joined(separator: "/")
                received.kept.append(kept)
                if kept != path { received.renamed.append(Renamed(wanted: path, kept: kept)) }
                return
            } else if errno != EEXIST {
                throw Refused("upload_cannot_keep", path, folder.path, String(cString: strerror(errno)))
            }
            number += 1
            let stem = (wanted as NSString).deletingPathExtension
            let type = (wanted as NSString).pathExtension
            candidate = type.isEmpty ? "\(wanted) (\(number))" : "\(stem) (\(number)).\(type)"
        }
    }
}
