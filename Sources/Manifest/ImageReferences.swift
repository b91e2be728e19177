import Foundation
import OpenMarketAPI
import Support

struct ImageProblem: Error {
    var rule: String
    var message: String
    init(_ rule: String, _ message: String) {
        self.rule = rule
        self.message = message
    }
}

/// The photos a row names: its images cell (file paths inside the images
/// folder, or http(s) URLs), or without an images column the folder named after
/// its key. Each reference is resolved and checked once (rows often share
/// photos, and resolving symlinks costs system calls); safe from several threads.
final class ImageReferences: @unchecked Sendable {
    let root: URL
    private let rootResolved: String
    private let hasImagesColumn: Bool
    private let checkFiles: Bool
    private let restore: @Sendable (String) -> String
    private var resolved: [String: Result<ImageSource, ImageProblem>] = [:]
    private let lock = NSLock()

    init(root: URL, hasImagesColumn: Bool, checkFiles: Bool, restore: @escaping @Sendable (String) -> String) {
        self.root = root.standardizedFileURL
        rootResolved = self.root.resolvingSymlinksInPath().path
        self.hasImagesColumn = hasImagesColumn
        self.checkFiles = checkFiles
        self.restore = restore
    }

    func sources(_ raw: RawRow, key: String?,
                 issue: (Column?, String?, String, String) -> Void,
                 needed: (String?, String, String) -> Void) -> [ImageSource] {
        var references: [String]
        if let list = raw.imageList {
            references = list.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        } else if let cell = raw.values[.images] {
            references = ImageSource.references(inCell: cell).map(restore).filter { !$0.isEmpty }
        } else if !hasImagesColumn, let key {
            // No images column: the folder named after the row's key, files in name order.
            let folder = root.appendingPathComponent(key, isDirectory: true)
            guard isInside(folder), let files = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
                needed(key, "images-folder", "photos: there is no images column, and no folder \(key)/ under \(root.path)")
                return []
            }
            references = files.filter { !$0.hasPrefix(".") }.sorted().map { "\(key)/\($0)" }
        } else {
            references = []
        }
        if references.isEmpty {
            needed(nil, "images-count", "1 to 5 photos; separate several with ; or |")
            return []
        }
        guard ProductRules.imageCount.contains(references.count) else {
            issue(.images, references.joined(separator: ";"), "images-count",
                  "needs 1 to 5 images, has \(references.count); separate several with ; or |")
            return []
        }
        var sources: [ImageSource] = []
        for reference in references {
            switch resolve(reference) {
            case .success(let source): sources.append(source)
            case .failure(let problem): issue(.images, reference, problem.rule, problem.message)
            }
        }
        return sources
    }

    /// One image reference: a URL, or a file inside the images folder that exists and is
    /// JPEG or PNG by its first 8 bytes (never decoded). Remembered per reference, since
    /// rows often share photos and resolving symlinks costs system calls.
    private func resolve(_ reference: String) -> Result<ImageSource, ImageProblem> {
        lock.lock()
        let known = resolved[reference]
        lock.unlock()
        if let known { return known }
        let result = resolveUncached(reference)
        lock.lock()
        if resolved.count >= 65_536 { resolved.removeAll(keepingCapacity: true) }
        resolved[reference] = result
        lock.unlock()
        return result
    }

    private func resolveUncached(_ reference: String) -> Result<ImageSource, ImageProblem> {
        let lower = reference.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            guard URL(string: reference)?.host != nil else { return .failure(ImageProblem("image-url", "not a valid http(s) URL")) }
            return .success(.url(reference))
        }
        if lower.contains("://") {
            return .failure(ImageProblem("image-url", "only http and https URLs, or file paths, are allowed"))
        }
        let url = reference.hasPrefix("/") ? URL(fileURLWithPath: reference) : root.appendingPathComponent(reference)
        if !reference.hasPrefix("/") && !isInside(url) {
            return .failure(ImageProblem("image-path-escape", "leads outside the images folder \(root.path); put the file inside it"))
        }
        if checkFiles, let problem = checkFile(url) {
            return .failure(ImageProblem(problem.rule, problem.message))
        }
        return .success(.file(url))
    }

    /// Exists, readable, JPEG or PNG by its first 8 bytes (never decoded).
    private func checkFile(_ url: URL) -> (rule: String, message: String)? {
        var problem: (rule: String, message: String)? = nil
        if !FileManager.default.fileExists(atPath: url.path) {
            problem = ("image-missing", "no such file under \(url.deletingLastPathComponent().path)")
        } else if let handle = try? FileHandle(forReadingFrom: url) {
            let head = (try? handle.read(upToCount: 8)) ?? Data()
            try? handle.close()
            if ImageFormat.sniff(head) == nil {
                problem = ("image-format", "not a JPEG or PNG file (judged by its content, not its name)")
            }
        } else {
            problem = ("image-unreadable", "the file cannot be read")
        }
        return problem
    }

    /// Whether `url`, with symlinks resolved, is inside the images folder.
    private func isInside(_ url: URL) -> Bool {
        let resolved = url.standardizedFileURL.resolvingSymlinksInPath().path
        return resolved == rootResolved || resolved.hasPrefix(rootResolved.hasSuffix("/") ? rootResolved : rootResolved + "/")
    }
}
