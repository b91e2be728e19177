import Foundation

/// A new folder for one run's report and record, named by the time it started: made with
/// mkdir(2), which fails when the name exists, so two runs started in the same second (a dry
/// run beside a real one, two feeds at 03:00) never share a folder: the second gets `-2`.
public enum RunFolder {
    /// `parent/prefix-20261124-091500` (or `…-2`, `…-3` when taken), created.
    public static func make(in parent: URL, prefix: String, date: Date = Date()) throws -> URL {
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let stem = prefix.isEmpty ? stamp(date) : "\(prefix)-\(stamp(date))"
        for attempt in 1...10_000 {
            let url = parent.appendingPathComponent(attempt == 1 ? stem : "\(stem)-\(attempt)", isDirectory: true)
            if mkdir(url.path, 0o755) == 0 { return url.standardizedFileURL }
            guard errno == EEXIST else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path,
                                                                NSLocalizedDescriptionKey: String(cString: strerror(errno))])
            }
        }
        throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: parent.appendingPathComponent(stem).path])
    }

    /// `yyyyMMdd-HHmmss`, local time, as the folders are named.
    public static func stamp(_ date: Date = Date()) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return formatter.string(from: date)
    }
}
