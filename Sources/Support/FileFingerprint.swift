import Foundation
import Glibc

/// What the file system says about a file without reading it: device, inode,
/// size, and the modification and change times in nanoseconds. Any write to
/// the file, or its replacement by another file under the same name, changes
/// at least one of them; the change time cannot be set back by `touch`.
/// (The same idea as git's index and rsync's quick check.)
public struct FileFingerprint: Equatable, Sendable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var modified: Int64
    public var changed: Int64

    public init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.changed = changed
    }

    /// The fingerprint of the file at `path` (following symbolic links), or nil
    /// when it cannot be looked at or is not a regular file.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    }

    /// Whether the file was last written or renamed at least `seconds` before
    /// `now`. A file read in the same clock tick as a write to it can keep its
    /// times while its bytes change; a fingerprint is trusted only when older.
    public func settled(now: Date = Date(), seconds: Double = 2) -> Bool {
        let nowNanoseconds = Int64(now.timeIntervalSince1970 * 1e9)
        return max(modified, changed) <= nowNanoseconds - Int64(seconds * 1e9)
    }
}
