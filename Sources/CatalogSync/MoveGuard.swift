import Foundation
import ShopState

/// A move (`migrate --then-delete-source`) leaves the products in one place only: the copies
/// in the target, once the source's are deleted. Its two undos must go in one order — the
/// source's products back first, then the copies deleted — or both shops end up without
/// them. The copies may come from earlier runs of the migration (one stopped by
/// `--max-deletes`, say), so each run that made copies is marked with the deletes that depend
/// on it, and its undo waits until those are undone.
public enum MoveGuard {
    /// The source's deletes, as a run of the source account, in the copy's report folder.
    public static let sourceDeletes = "source-deletes"
    /// In a copy run's folder: the source deletes (one folder a line) its copies stand in for.
    static let markerName = "moved-sources.txt"

    /// The target's runs that made the copies `targets` (the migration's runs; `current`
    /// first), each marked with `deletes`; in the order they ran.
    public static func markCopies(of targets: Set<Int>, current: URL, links: URL?, deletes: URL) -> [URL] {
        var candidates = [(current, Date.distantFuture)]
        if let links, let runs = try? LinkStore(url: links).runs(limit: 1000) {
            candidates += runs.filter { $0.kind == .migrate }.map { (URL(fileURLWithPath: $0.folder), $0.started) }
        }
        var seen = Set<String>()
        var found: [(URL, Date)] = []
        for (folder, started) in candidates where seen.insert(folder.standardizedFileURL.path).inserted {
            guard let entries = try? RunRecorder.read(folder),
                  entries.contains(where: { $0.event == .created && $0.id.map(targets.contains) == true }) else { continue }
            found.append((folder, started))
            guard folder.standardizedFileURL != current.standardizedFileURL else { continue }
            let marker = folder.appendingPathComponent(markerName)
            let known = (try? String(contentsOf: marker, encoding: .utf8)) ?? ""
            guard !known.split(separator: "\n").contains(Substring(deletes.path)) else { continue }
            try? Data((known + deletes.path + "\n").utf8).write(to: marker, options: .atomic)
        }
        return found.sorted { $0.1 < $1.1 }.map(\.0)
    }

    /// Source deletes a copy run's products stand in for that are not undone yet, if any.
    static func pendingDeletes(of folder: URL) -> URL? {
        let marked = ((try? String(contentsOf: folder.appendingPathComponent(markerName), encoding: .utf8)) ?? "")
            .split(separator: "\n").map { URL(fileURLWithPath: String($0), isDirectory: true) }
        for deletes in [folder.appendingPathComponent(sourceDeletes, isDirectory: true)] + marked {
            guard let entries = try? RunRecorder.read(deletes),
                  entries.contains(where: { $0.event == .deleting && $0.id != nil }) else { continue }
            let undone = ((try? RunRecorder.read(deletes.appendingPathComponent("undo", isDirectory: true))) ?? nil)?
                .contains { $0.event == .end } ?? false
            if !undone { return deletes }
        }
        return nil
    }

    /// The undo of a copy run is refused while the source's products it stands in for are deleted.
    static func refuseCopiesBeforeSource(_ folder: URL) throws(SyncStop) {
        guard let deletes = pendingDeletes(of: folder) else { return }
        let server = ((try? RunRecorder.read(deletes)) ?? nil)?.first { $0.event == .begin }?.header?.server ?? "the source's server"
        throw SyncStop("this run copied products in a move (migrate --then-delete-source), and the source's products deleted after "
            + "it are not back yet: deleting the copies now would leave both shops without them. First bring the source's products "
            + "back, with the source account's credentials: openmarket undo \(deletes.path) --server \(server); then run this again",
            cause: .input)
    }
}
