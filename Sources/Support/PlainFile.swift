#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Writes a file that needs no durability (a report's thumbnail: made again from the shop if a
/// power cut loses it): open, write, close. Foundation's `Data.write` syncs every file it
/// writes on Linux, one fsync a row for a report's pictures.
public enum PlainFile {
    public static func write(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw POSIXErrorReason(code: errno) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Self.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXErrorReason(code: errno)
            }
            offset += count
        }
    }
}

extension PlainFile {
    fileprivate static func write(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(fd, bytes, count)
        #else
        Darwin.write(fd, bytes, count)
        #endif
    }
}

extension POSIXErrorReason: CustomStringConvertible {
    var description: String { text }
}
