import Feeds
import Foundation
import Manifest
import Support
import Words

/// The checks that hold a bad file before anything is sent: an HTML page instead of data,
/// a column the feed needs gone, and the feed's `[checks]` against the last file that ran.
struct FeedGuard {
    /// Why a file is held: the check, and the numbers.
    struct Hold: Error, CustomStringConvertible {
        var check: String
        var message: String
        /// The message by its words and numbers, said in the reader's language.
        var phrase: Phrase?
        var description: String { "\(check): \(message)" }
    }

    /// The file read through the feed: its rows (left-out rows not counted) and a fingerprint
    /// of each row's values by its key, to count what changed since the last file.
    struct Reading {
        var rows = 0
        var skipped = 0
        var fingerprints: [String: UInt64] = [:]
        /// Columns of `[columns]` the file lacks (read as a partial file by `import --feed`).
        var absent: [String] = []
    }

    let feed: Feed
    let folder: FeedFolder

    /// Always checked, `--accept` or not: a web page is never a feed.
    func checkIsData(_ file: URL, contentType: String?) throws(Hold) {
        let head = (try? FileHandle(forReadingFrom: file)).flatMap { try? $0.read(upToCount: 512) } ?? Data()
        let text = String(decoding: head, as: UTF8.self).drop { $0.isWhitespace || $0 == "\u{FEFF}" }.prefix(15).lowercased()
        if contentType?.lowercased().contains("text/html") == true || text.hasPrefix("<!doctype html") || text.hasPrefix("<html") {
            throw Hold(check: "not data", message: "the source sent an HTML page, not a feed (a login or error page?); nothing was sent",
                       phrase: Phrase("feed_not_data"))
        }
    }

    /// Reads the file as the import will; a column the feed needs that is gone holds it.
    func read(_ file: URL, options: ValidationOptions) throws(Hold) -> Reading {
        var reading = Reading()
        do {
            let summary = try ManifestCheck.run(file, options: options, onFileIssue: { issue in
                if issue.rule == "feed-column-absent" { reading.absent.append(issue.message) }
            }) { raw, _, _ in
                guard raw.origin?.skipped == nil else { return }
                let identity = raw.values[.key] ?? raw.values[.name] ?? "row \(raw.number)"
                let values = Column.allCases.map { raw.values[$0] ?? "" }.joined(separator: "\u{1F}")
                reading.fingerprints[identity] = FNV.hash(values)
            }
            reading.rows = summary.rows - summary.skipped
            reading.skipped = summary.skipped
        } catch {
            throw Hold(check: "columns", message: error.description, phrase: Phrase("feed_unreadable", error.description))
        }
        return reading
    }

    /// `[checks]` against the last file that ran (none the first time but `min_rows`).
    func check(_ reading: Reading, record: FeedRecord) throws(Hold) {
        // Unattended, every column of [columns] is required: a supplier's file that lost one is broken, not partial.
        if !reading.absent.isEmpty {
            throw Hold(check: "columns", message: reading.absent.joined(separator: "; ") + "; nothing was sent",
                       phrase: Phrase("feed_columns", reading.absent.joined(separator: "; ")))
        }
        let checks = feed.run.checks
        if let minimum = checks.minRows, reading.rows < minimum {
            throw Hold(check: "min_rows \(minimum)", message: "the file has \(reading.rows) rows; nothing was sent",
                       phrase: Phrase("feed_min_rows", String(reading.rows), String(minimum)))
        }
        if let limit = checks.maxDropPercent, let last = record.rows, last > 0, reading.rows < last {
            let drop = Double(last - reading.rows) / Double(last) * 100
            if drop > limit {
                throw Hold(check: "max_drop_percent \(Self.number(limit))",
                           message: "\(reading.rows) rows against \(last) in the last file that ran (-\(Self.number(drop.rounded())) %); nothing was sent",
                           phrase: Phrase("feed_max_drop", String(reading.rows), String(last), Self.number(drop.rounded()), Self.number(limit)))
            }
        }
        if let limit = checks.maxChangedPercent, let last = folder.lastFingerprints(), !last.isEmpty {
            let changed = reading.fingerprints.filter { last[$0.key] != $0.value }.count + last.keys.filter { reading.fingerprints[$0] == nil }.count
            let percent = Double(changed) / Double(max(last.count, reading.fingerprints.count)) * 100
            if percent > limit {
                throw Hold(check: "max_changed_percent \(Self.number(limit))",
                           message: "\(changed) of \(max(last.count, reading.fingerprints.count)) rows changed, new or gone since the last file that ran (\(Self.number(percent.rounded())) %); nothing was sent",
                           phrase: Phrase("feed_max_changed", String(changed), String(max(last.count, reading.fingerprints.count)),
                                          Self.number(percent.rounded()), Self.number(limit)))
            }
        }
    }

    /// Keeps the file that ran and its rows' fingerprints, for the next run's checks.
    func remember(_ file: URL, _ reading: Reading) {
        try? FileManager.default.removeItem(at: folder.last)
        try? FileManager.default.createDirectory(at: folder.last, withIntermediateDirectories: true)
        try? FileManager.default.copyItem(at: file, to: folder.last.appendingPathComponent(file.lastPathComponent))
        folder.keepFingerprints(reading.fingerprints)
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
