/// A photo is known by its content, never by its path or URL: each photo of a link keeps
/// every hash it is known by (the merchant's file, the bytes a URL served, what was sent
/// after shrinking: the server serves that back, so an export's copy is the same photo),
/// joined by spaces in one entry of `ProductLink.photos`. A store written before keeps one
/// hash per photo, which reads as a photo with one identity.
public enum PhotoIdentity {
    /// One photo's identities as one entry (each once, in order).
    public static func entry(_ hashes: [String]) -> String {
        var seen = Set<String>()
        return hashes.filter { !$0.isEmpty && seen.insert($0).inserted }.joined(separator: " ")
    }

    /// The hashes one entry names.
    public static func hashes(_ entry: String) -> [Substring] { entry.split(separator: " ") }

    /// Whether `hash` is one of the entry's identities.
    public static func names(_ entry: String, _ hash: String) -> Bool { hashes(entry).contains { $0 == hash } }

    /// Whether a row's photos (one or more hashes each, as `entry` joins them) are the
    /// photos a link knows, in order: each photo shares an identity with its counterpart.
    public static func same(_ row: [String], as known: [String]) -> Bool {
        guard row.count == known.count else { return false }
        return zip(row, known).allSatisfy { mine, theirs in
            let theirs = Set(hashes(theirs))
            return hashes(mine).contains { theirs.contains($0) }
        }
    }

    /// Two lists of the same photos merged entry by entry (a migrated photo is known by the
    /// source merchant's file and by the copy the target was sent).
    public static func merged(_ first: [String]?, _ second: [String]?) -> [String]? {
        guard let first else { return second }
        guard let second, second.count == first.count else { return first }
        return zip(first, second).map { entry(hashes($0).map(String.init) + hashes($1).map(String.init)) }
    }
}
