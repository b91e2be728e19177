import Foundation
import Words
import Hummingbird
import NIOCore
import ZIPFoundation

/// Files dropped on the console's page into its folder: a sheet is kept under its own name
/// (an updated sheet replaces the one of that name); a .zip of photos (and sheets) is unpacked
/// there, its folders kept, so that a sheet's image names find them. Nothing leaves the folder:
/// a name is its last part only; a zip entry that climbs out (`..`, an absolute path) or is a
/// link is refused; the Mac's `__MACOSX/` and `._` files are skipped.
struct ConsoleUpload: Sendable {
    let folder: URL

    static let maxBytes = 1 << 30
    static let maxUnpacked: UInt64 = 4 << 30
    static let maxEntries = 100_000

    /// Why a file was not kept, by its words and names (said in the page's language).
    struct Refused: Error, CustomStringConvertible {
        var phrase: Phrase
        init(_ key: String, _ values: String...) { phrase = Phrase(key, values) }
        var description: String { phrase.text(.en) }
    }

    /// The name a file is kept under, or why not.
    func name(for given: String) throws -> String {
        let name = (given.replacingOccurrences(of: "\\", with: "/") as NSString).lastPathComponent
        let type = (name as NSString).pathExtension.lowercased()
        guard !name.isEmpty, !name.hasPrefix("."), ConsoleEngine.sheetExtensions.contains(type) || type == "zip" else {
            throw Refused("upload_kind", given)
        }
        return name
    }

    /// The body of the request into the folder; what was kept (the sheet, or the zip's files).
    func receive(_ request: Request, named given: String) async throws -> [String] {
        let name = try name(for: given)
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
        if (name as NSString).pathExtension.lowercased() == "zip" { return try unpack(partial, name: name) }
        // In place at once, replacing a sheet of that name (rename(2): no moment without one).
        guard rename(partial.path, folder.appendingPathComponent(name).path) == 0 else {
            throw Refused("upload_cannot_keep", name, folder.path, String(cString: strerror(errno)))
        }
        return [name]
    }

    /// The zip's files into the folder, each checked before a byte is written.
    func unpack(_ zip: URL, name: String) throws -> [String] {
        let archive: Archive
        do { archive = try Archive(url: zip, accessMode: .read) } catch { throw Refused("upload_not_zip", name) }
        var planned: [(Entry, String)] = []
        var total: UInt64 = 0
        for entry in archive {
            guard planned.count < Self.maxEntries else { throw Refused("upload_too_many", name, String(Self.maxEntries)) }
            let parts = entry.path.replacingOccurrences(of: "\\", with: "/").split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            if parts.first == "__MACOSX" || parts.last?.hasPrefix("._") == true || parts.last == ".DS_Store" { continue }
            switch entry.type {
            case .directory: continue
            case .symlink: throw Refused("upload_link", name, entry.path)
            case .file: break
            }
            guard !entry.path.hasPrefix("/"), !parts.contains(".."), !parts.contains(where: { $0.isEmpty }) else {
                throw Refused("upload_outside", name, entry.path)
            }
            total += entry.uncompressedSize
            guard total <= Self.maxUnpacked else { throw Refused("upload_unpacked_too_large", name) }
            planned.append((entry, parts.joined(separator: "/")))
        }
        for (entry, path) in planned {
            let target = folder.appendingPathComponent(path)
            try? FileManager.default.removeItem(at: target)
            _ = try archive.extract(entry, to: target)
        }
        return planned.map(\.1)
    }
}
