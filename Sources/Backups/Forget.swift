import Foundation
import Words

/// `forget`: which snapshots a policy keeps (the newest of each of the last N days, weeks,
/// months that have one, as restic counts), and `prune`: the files no kept snapshot uses.
public struct ForgetPolicy: Sendable, Equatable {
    public var daily = 0
    public var weekly = 0
    public var monthly = 0
    public var last = 0

    public init(daily: Int = 0, weekly: Int = 0, monthly: Int = 0, last: Int = 0) {
        self.daily = daily
        self.weekly = weekly
        self.monthly = monthly
        self.last = last
    }

    public var isEmpty: Bool { daily == 0 && weekly == 0 && monthly == 0 && last == 0 }

    /// The snapshots kept, each with why.
    public func keep(_ snapshots: [SnapshotInfo]) -> [String: [Phrase]] {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var reasons: [String: [Phrase]] = [:]
        let newestFirst = snapshots.sorted { $0.id > $1.id }
        for (index, snapshot) in newestFirst.enumerated() where index < last { reasons[snapshot.id, default: []].append(Phrase("keep:last", String(last))) }
        func bucket(_ count: Int, _ name: String, _ period: (Date) -> String) {
            var seen: [String] = []
            for snapshot in newestFirst {
                let key = period(snapshot.time)
                guard !seen.contains(key) else { continue }
                guard seen.count < count else { break }
                seen.append(key)
                reasons[snapshot.id, default: []].append(Phrase("keep:\(name)", key))
            }
        }
        bucket(daily, "daily") { let c = calendar.dateComponents([.year, .month, .day], from: $0); return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!) }
        bucket(weekly, "weekly") { let c = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: $0); return String(format: "%04d-W%02d", c.yearForWeekOfYear!, c.weekOfYear!) }
        bucket(monthly, "monthly") { let c = calendar.dateComponents([.year, .month], from: $0); return String(format: "%04d-%02d", c.year!, c.month!) }
        return reasons
    }
}

extension BackupRepository {
    public struct ForgetResult: Sendable {
        public var kept: [(SnapshotInfo, [Phrase])] = []
        public var removed: [SnapshotInfo] = []
        /// With prune: the photo files and bytes freed.
        public var photosFreed = 0
        public var bytesFreed = 0
    }

    /// Removes the snapshots the policy does not keep; with `prune`, also every photo (and
    /// product record) no kept snapshot uses.
    public func forget(_ policy: ForgetPolicy, prune: Bool, dryRun: Bool = false) throws -> ForgetResult {
        guard !policy.isEmpty else { throw BackupError(say: "b_no_policy") }
        let lock = try self.lock("forget")
        defer { lock.release() }
        let snapshots = list()
        let reasons = policy.keep(snapshots)
        var result = ForgetResult()
        for snapshot in snapshots {
            if let why = reasons[snapshot.id] { result.kept.append((snapshot, why)) } else { result.removed.append(snapshot) }
        }
        if !dryRun { for snapshot in result.removed { try remove(snapshot) } }
        guard prune else { return result }
        var used = Set<String>()
        var ids = Set<Int>()
        for (snapshot, _) in result.kept {
            for product in try products(of: snapshot) {
                used.formUnion(product.photos)
                ids.insert(product.id)
            }
        }
        for name in allPhotos() where !used.contains(name) {
            let url = photoURL(name)
            result.bytesFreed += ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? Int) ?? 0
            result.photosFreed += 1
            if !dryRun { try FileManager.default.removeItem(at: url) }
        }
        if !dryRun {
            for file in (try? FileManager.default.contentsOfDirectory(atPath: products.path)) ?? [] {
                if let id = Int(file.replacingOccurrences(of: ".json", with: "")), !ids.contains(id) {
                    try? FileManager.default.removeItem(at: products.appendingPathComponent(file))
                }
            }
        }
        return result
    }
}
