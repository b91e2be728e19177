import Foundation

/// Finds the file a person named, the way the name was written rather than the way
/// the disk spells it. Two spellings of one name are common in merchants' folders:
///
/// - Unicode forms. macOS (and zip files made on it) store Korean names decomposed
///   (NFD: 녹차 as ᄂ ᅩ ᆨ ᄎ ᅡ); a sheet typed in Excel holds them composed (NFC).
///   They are the same name: a file that differs only so is used, and nothing is said.
///   (Swift compares and hashes strings by canonical equivalence, which is this rule.)
/// - Letter case. A sheet written on Windows says `img_0001.jpg` for the camera's
///   `IMG_0001.JPG`. When exactly one file matches without regard to case it is used,
///   with a note saying so; several are an error that lists them.
///
/// Each path component is looked up on its own, so a folder spelt differently is found
/// too. A folder's listing is read once and kept (rows name many files of one folder);
/// safe from several threads.
public final class FileLookup: @unchecked Sendable {
    public enum Found: Sendable, Equatable {
        /// The file, and a note when it was found by ignoring letter case.
        case found(URL, note: String?)
        /// Nothing by that name; `folder` is the deepest folder that exists.
        case missing(folder: String)
        /// Several files match `component` when letter case is ignored.
        case ambiguous(component: String, candidates: [String])
    }

    private struct Listing {
        var canonical: [String: [String]] = [:]
        var folded: [String: [String]] = [:]
    }

    private var listings: [String: Listing?] = [:]
    private let lock = NSLock()

    public init() {}

    /// `path` (relative to `base`, or absolute) as it is on disk.
    public func locate(_ path: String, under base: URL) -> Found {
        var current = path.hasPrefix("/") ? URL(fileURLWithPath: "/") : base
        let exact = path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appendingPathComponent(path)
        // The common case first: the name is spelt as on disk.
        if FileManager.default.fileExists(atPath: exact.path) { return .found(exact, note: nil) }
        var notes: [String] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true).map(String.init) {
            if component == "." || component == ".." {
                current = current.appendingPathComponent(component)
                continue
            }
            let next = current.appendingPathComponent(component)
            if FileManager.default.fileExists(atPath: next.path) {
                current = next
                continue
            }
            guard let listing = listing(of: current.path) else { return .missing(folder: current.path) }
            if let same = listing.canonical[component], same.count == 1 {
                current = current.appendingPathComponent(same[0])
                continue
            }
            let byCase = listing.folded[component.lowercased()] ?? []
            switch byCase.count {
            case 0: return .missing(folder: current.path)
            case 1:
                notes.append("the file on disk is '\(Self.nfc(byCase[0]))' (only letter case differs); it is used")
                current = current.appendingPathComponent(byCase[0])
            default:
                return .ambiguous(component: Self.nfc(component), candidates: byCase.map(Self.nfc).sorted())
            }
        }
        return .found(current, note: notes.isEmpty ? nil : notes.joined(separator: "; "))
    }

    /// The names in `folder`, sorted, as they are on disk (for a folder named after a key).
    public func names(in folder: URL) -> [String]? {
        guard let listing = listing(of: folder.path) else { return nil }
        return listing.canonical.values.flatMap { $0 }.sorted { Self.nfc($0) < Self.nfc($1) }
    }

    private func listing(of folder: String) -> Listing? {
        lock.lock()
        if let known = listings[folder] {
            lock.unlock()
            return known
        }
        lock.unlock()
        var listing: Listing? = nil
        if let names = try? FileManager.default.contentsOfDirectory(atPath: folder) {
            var made = Listing()
            for name in names {
                made.canonical[name, default: []].append(name)
                made.folded[name.lowercased(), default: []].append(name)
            }
            listing = made
        }
        lock.lock()
        if listings.count >= 4_096 { listings.removeAll(keepingCapacity: true) }
        listings[folder] = listing
        lock.unlock()
        return listing
    }

    /// A name as it is written out (reports, exports, file names sent): composed (NFC).
    public static func nfc(_ name: String) -> String {
        // ASCII is its own NFC; most names are.
        name.utf8.allSatisfy { $0 < 0x80 } ? name : name.precomposedStringWithCanonicalMapping
    }
}
