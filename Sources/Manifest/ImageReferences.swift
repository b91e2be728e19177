import Foundation
import OpenMarketContract
import Support
import Synchronization

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
/// its key. Names are found as `FileLookup` finds them (a Mac's decomposed Korean,
/// a Windows sheet's letter case). Each reference is resolved and checked once (rows often share
/// photos, and resolving symlinks costs system calls); safe from several threads.
final class ImageReferences: @unchecked Sendable {
    let root: URL
    /// Relative names are under this http(s) address instead of `root`.
    let baseURL: URL?
    private let rootResolved: String
    private let hasImagesColumn: Bool
    private let checkFiles: Bool
    private let restore: @Sendable (String) -> String
    private var resolved: [String: Result<Resolved, ImageProblem>] = [:]
    private let lookup = FileLookup()
    private let lock = NSLock()
    /// This instance among all ever made, naming its entries in each thread's memo.
    private let generation = ThreadMemo.nextGeneration()

    /// Photo paths, absolute ones too, must lead inside `root` or one of these folders (nil: an
    /// absolute path is the merchant's own choice).
    private let confinedTo: [String]?

    init(root: URL, baseURL: URL? = nil, confined: [URL]? = nil, hasImagesColumn: Bool, checkFiles: Bool,
         restore: @escaping @Sendable (String) -> String) {
        self.root = root.standardizedFileURL
        self.baseURL = baseURL
        rootResolved = self.root.resolvingSymlinksInPath().path
        confinedTo = confined.map { $0.map { $0.standardizedFileURL.resolvingSymlinksInPath().path } }
        self.hasImagesColumn = hasImagesColumn
        self.checkFiles = checkFiles
        self.restore = restore
    }

    func sources(_ raw: RawRow, key: String?,
                 issue: (Column?, String?, String, String, RowIssue.Severity) -> Void,
                 needed: (String?, String, String) -> Void) -> [ImageSource] {
        let memo = ThreadMemo.current(for: generation)
        var references: [String]
        // Rows in a row often name the same photos (a product's options, a supplier's
        // placeholder): the same cell or list as this thread's last one is what it was.
        let given: ThreadMemo.Given? = raw.imageList.map { .list($0) } ?? raw.values[.images].map { .cell($0) }
        if let given, let last = memo.lastCell, last.given == given {
            for note in last.notes { issue(.images, note.reference, note.rule, note.message, note.severity) }
            return last.sources
        }
        if let list = raw.imageList {
            references = list.map(ManifestValidator.trimmed).filter { !$0.isEmpty }
        } else if let images = raw.values[.images] {
            references = ImageSource.references(inCell: images)
            // Only a reference that starts with an apostrophe was neutralised against formulas.
            if references.contains(where: { $0.utf8.first == UInt8(ascii: "'") }) {
                references = references.map(restore).filter { !$0.isEmpty }
            }
        } else if !hasImagesColumn, let key {
            guard let files = filesInKeyFolder(key) else {
                needed(key, "images-folder", "photos: there is no images column, and no folder \(key)/ under \(root.path)")
                return []
            }
            references = files
        } else {
            references = []
        }
        if references.isEmpty {
            needed(nil, "images-count", "1 to 5 photos; separate several with ; , or |")
            return []
        }
        guard ProductRules.imageCount.contains(references.count) else {
            issue(.images, references.joined(separator: ";"), "images-count",
                  "needs 1 to 5 images, has \(references.count); separate several with ; , or |", .error)
            return []
        }
        var sources: [ImageSource] = []
        var notes: [ThreadMemo.Note] = []
        sources.reserveCapacity(references.count)
        for reference in references {
            switch resolve(reference, memo: memo) {
            case .success(let resolved):
                sources.append(resolved.source)
                if let note = resolved.note { notes.append(.init(reference: reference, rule: "image-name-case", message: note, severity: .warning)) }
            case .failure(let problem):
                notes.append(.init(reference: reference, rule: problem.rule, message: problem.message, severity: .error))
            }
        }
        for note in notes { issue(.images, note.reference, note.rule, note.message, note.severity) }
        if let given { memo.lastCell = (given, sources, notes) }
        return sources
    }

    /// `s3://BUCKET/KEY`: S3's bucket rule (3–63 lower-case letters, digits, dots, hyphens) and a key.
    static func isObjectAddress(_ text: String) -> Bool {
        let parts = text.dropFirst(5).split(separator: "/", maxSplits: 1)
        guard parts.count == 2, !parts[1].isEmpty, (3...63).contains(parts[0].count) else { return false }
        return parts[0].allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "." || $0 == "-") }
    }

    /// No images column: the folder named after the row's key (found as `FileLookup`
    /// finds names), its files in name order; nil when there is no such folder.
    private func filesInKeyFolder(_ key: String) -> [String]? {
        guard case .found(let folder, _) = lookup.locate(key, under: root), isInside(folder),
              let names = lookup.names(in: folder) else { return nil }
        return names.filter { !$0.hasPrefix(".") }.map { "\(folder.lastPathComponent)/\($0)" }
    }

    /// One image reference: a URL, or a file inside the images folder that exists and is
    /// a photo we read by its first bytes (never decoded). Remembered per reference, since
    /// rows often share photos and resolving symlinks costs system calls.
    private func resolve(_ reference: String, memo: ThreadMemo) -> Result<Resolved, ImageProblem> {
        if let known = memo.resolved[reference] { return known }
        lock.lock()
        let shared = resolved[reference]
        lock.unlock()
        let result: Result<Resolved, ImageProblem>
        if let shared {
            result = shared
        } else {
            result = resolveUncached(reference)
            lock.lock()
            if resolved.count >= 65_536 { resolved.removeAll(keepingCapacity: true) }
            resolved[reference] = result
            lock.unlock()
        }
        if memo.resolved.count >= 4_096 { memo.resolved.removeAll(keepingCapacity: true) }
        memo.resolved[reference] = result
        return result
    }

    private func resolveUncached(_ reference: String) -> Result<Resolved, ImageProblem> {
        let lower = reference.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            guard URL(string: reference)?.host != nil else { return .failure(ImageProblem("image-url", "not a valid http(s) URL")) }
            return .success(Resolved(source: .url(reference)))
        }
        if lower.hasPrefix("s3://") {
            guard Self.isObjectAddress(reference) else {
                return .failure(ImageProblem("image-url", "not an s3://BUCKET/KEY address (a bucket of 3–63 lower-case letters, digits, dots and hyphens, and a key)"))
            }
            return .success(Resolved(source: .url(reference)))
        }
        if lower.contains("://") {
            return .failure(ImageProblem("image-url", "only http, https and s3 URLs, or file paths, are allowed"))
        }
        if let baseURL {
            // As a browser resolves a page's links: `a.jpg`, `photos/a.jpg`, `/img/a.jpg`.
            let encoded = reference.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? reference
            guard let url = URL(string: encoded, relativeTo: baseURL)?.absoluteURL, url.host != nil,
                  url.scheme?.lowercased() != "s3" || Self.isObjectAddress(url.absoluteString) else {
                return .failure(ImageProblem("image-url", "cannot be read as a photo's address under \(baseURL.absoluteString)"))
            }
            return .success(Resolved(source: .url(url.absoluteString)))
        }
        // A path the merchant did not write (a feed's, an upload's) is held to its folders, absolute or not.
        let absolute = reference.hasPrefix("/") && confinedTo == nil
        var url = reference.hasPrefix("/") ? URL(fileURLWithPath: reference) : root.appendingPathComponent(reference)
        if !absolute && !isInside(url) {
            return .failure(ImageProblem("image-path-escape", "leads outside the images folder \(root.path); put the file inside it"))
        }
        guard checkFiles else { return .success(Resolved(source: .file(url))) }
        var note: String? = nil
        switch lookup.locate(reference, under: root) {
        case .found(let found, let caseNote):
            url = found
            note = caseNote
        case .missing(let folder):
            return .failure(ImageProblem("image-missing", "no such file under \(FileLookup.nfc(folder))"))
        case .ambiguous(let component, let candidates):
            return .failure(ImageProblem("image-name-ambiguous",
                                         "\(candidates.count) files match '\(component)' when letter case is ignored: "
                                         + "\(candidates.joined(separator: ", ")); write the name as it is on disk"))
        }
        if !absolute && !isInside(url) {
            return .failure(ImageProblem("image-path-escape", "leads outside the images folder \(root.path); put the file inside it"))
        }
        if let problem = checkFile(url) { return .failure(problem) }
        return .success(Resolved(source: .file(url), note: note))
    }

    /// Readable, and a photo we read by its first bytes (never decoded). `FileLookup` has
    /// just found it, so it exists; a folder reads no bytes and is no photo.
    private func checkFile(_ url: URL) -> ImageProblem? {
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            return ImageProblem("image-unreadable", "the file cannot be read")
        }
        let head = (try? handle.read(upToCount: PhotoFormat.sniffLength)) ?? Data()
        try? handle.close()
        return PhotoFormat.sniff(head) == nil ? ImageProblem("image-format", PhotoFormat.refusal) : nil
    }

    /// Whether `url`, with symlinks resolved, is inside the images folder.
    private func isInside(_ url: URL) -> Bool {
        let resolved = url.standardizedFileURL.resolvingSymlinksInPath().path
        return ([rootResolved] + (confinedTo ?? [])).contains { folder in
            resolved == folder || resolved.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
        }
    }
}

/// A reference resolved: where the photo is, and a note when its name was found by
/// ignoring letter case.
struct Resolved: Sendable {
    var source: ImageSource
    var note: String? = nil
}

/// Each thread's memo of the references it resolved, for one `ImageReferences` at a time (its
/// `generation`): rows are checked on several threads at once, and the lock of the memo they
/// share was waited for on nearly every row. The shared memo stays behind it, so that each
/// file is looked at once whatever thread asks first.
private final class ThreadMemo {
    var owner: UInt64 = 0
    var resolved: [String: Result<Resolved, ImageProblem>] = [:]
    /// The last images cell or list this thread read, what it became and what was said of it.
    var lastCell: (given: Given, sources: [ImageSource], notes: [Note])?

    /// A row's photos as it gives them: an images cell, or a list (a map's photo columns, JSON's array).
    enum Given: Equatable {
        case cell(String)
        case list([String])
    }

    struct Note {
        var reference: String
        var rule: String
        var message: String
        var severity: RowIssue.Severity
    }

    /// One key for the process; a thread's memo is released when the thread ends.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<ThreadMemo>.fromOpaque(pointer).release()
        }
        return key
    }()

    private static let counter = Mutex<UInt64>(0)

    static func nextGeneration() -> UInt64 {
        counter.withLock { value in
            value += 1
            return value
        }
    }

    /// The calling thread's memo, emptied when it last served another `ImageReferences`.
    static func current(for owner: UInt64) -> ThreadMemo {
        let memo: ThreadMemo
        if let pointer = pthread_getspecific(key) {
            memo = Unmanaged<ThreadMemo>.fromOpaque(pointer).takeUnretainedValue()
        } else {
            memo = ThreadMemo()
            pthread_setspecific(key, Unmanaged.passRetained(memo).toOpaque())
        }
        if memo.owner != owner {
            memo.owner = owner
            memo.resolved.removeAll()
            memo.lastCell = nil
        }
        return memo
    }
}
