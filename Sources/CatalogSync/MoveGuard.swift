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
    /// first), each marked with `deletes` (a run of the source account, `deletesLinks`); in the
    /// order they ran.
    public static func markCopies(of targets: Set<Int>, current: URL, links: StoreAddress?, deletes: URL, deletesLinks: StoreAddress?) -> [URL] {
        var candidates = [(current, Date.distantFuture)]
        if let links, let runs = try? AccountState.kept(links)?.runs(limit: 1000) {
            candidates += runs.filter { $0.kind == .migrate }.map { (URL(fileURLWithPath: $0.folder), $0.started) }
        }
        // The source account by its tag (never its address: a database's has its password).
        let mark = deletes.path + (deletesLinks.map { "\t" + $0.tag } ?? "")
        var seen = Set<String>()
        var found: [(URL, Date)] = []
        for (folder, started) in candidates where seen.insert(folder.standardizedFileURL.path).inserted {
            guard let entries = (try? RunRecords.read(folder, links: links)) ?? nil,
                  entries.contains(where: { $0.event == .created && $0.id.map(targets.contains) == true }) else { continue }
            found.append((folder, started))
            let marker = folder.appendingPathComponent(markerName)
            let known = (try? String(contentsOf: marker, encoding: .utf8)) ?? ""
            guard !known.split(separator: "\n").contains(Substring(mark)) else { continue }
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try? Data((known + mark + "\n").utf8).write(to: marker, options: .atomic)
        }
        return found.sorted { $0.1 < $1.1 }.map(\.0)
    }

    /// Source deletes a copy run's products stand in for that are not undone yet, if any: each
    /// read where the source account keeps records (its shared state's, found beside the copy
    /// account's `links` by its tag, or the folder's).
    static func pendingDeletes(of folder: URL, links: StoreAddress?) -> (folder: URL, server: String?)? {
        let marked = ((try? String(contentsOf: folder.appendingPathComponent(markerName), encoding: .utf8)) ?? "")
            .split(separator: "\n").map { line -> (URL, StoreAddress?) in
                let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
                let account = parts.count > 1 ? links.map { $0.sibling(parts[1]) } : nil
                return (URL(fileURLWithPath: parts[0], isDirectory: true), account)
            }
        for (deletes, account) in marked + [(folder.appendingPathComponent(sourceDeletes, isDirectory: true), nil)] {
            guard let entries = (try? RunRecords.read(deletes, links: account)) ?? nil,
                  entries.contains(where: { $0.event == .deleting && $0.id != nil }) else { continue }
            let undone = ((try? RunRecords.read(deletes.appendingPathComponent("undo", isDirectory: true), links: account)) ?? nil)?
                .contains { $0.event == .end } ?? false
            if !undone { return (deletes, entries.first { $0.event == .begin }?.header?.server) }
        }
        return nil
    }

    /// The undo of a copy run is refused while the source's products it stands in for are deleted.
    static func refuseCopiesBeforeSource(_ folder: URL, links: StoreAddress?) throws(SyncStop) {
        guard let (deletes, recorded) = pendingDeletes(of: folder, links: links) else { return }
        let server = recorded ?? "the source's server"
        throw SyncStop("this run copied products in a move (migrate --then-delete-source), and the source's products deleted after "
            + "it are not back yet: deleting the copies now would leave both shops without them. First bring the source's products "
            + "back, with the source account's credentials: openmarket undo \(deletes.path) --server \(server); then run this again",
            cause: .input)
    }
}
