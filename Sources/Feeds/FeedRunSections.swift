import Foundation
import Words
import Support
import TOMLKit

/// The sections `feed run` reads: `[source]`, `[target]`, `[sync]`, `[checks]`, `[notify]`,
/// and `keep_reports` at the top.
extension FeedTableReader {
    func readRunSettings(_ root: TOMLTable) throws(FeedFileError) -> FeedRunSettings {
        var settings = FeedRunSettings()
        if let value = root["keep_reports"] {
            guard let count = value.int, count >= 1 else { throw fail(Phrase("fm_must_be_a_whole"), table: "", key: "keep_reports") }
            settings.keepReports = count
        }
        if let source = root["source"] {
            let table = try table(source, "source")
            settings.source = try readSource(table)
            settings.images = try text(table, "images", "source").map { $0.contains("://") ? $0 : Self.expandHome($0) }
            if let images = settings.images, images.contains("://"),
               !["http", "https"].contains(images.split(separator: ":").first.map { $0.lowercased() } ?? "") {
                throw fail(Phrase("fm_must_be_an_http"), table: "source", key: "images")
            }
        }
        if let target = root["target"] {
            let table = try self.table(target, "target")
            try only(["profile"], in: table, "target")
            settings.profile = try text(table, "profile", "target")
        }
        if let sync = root["sync"] {
            let table = try self.table(sync, "sync")
            try only(["delete_missing", "max_deletes"], in: table, "sync")
            if let value = table["delete_missing"] {
                guard let flag = value.bool else { throw fail(Phrase("fm_must_be_true_or"), table: "sync", key: "delete_missing") }
                settings.deleteMissing = flag
            }
            settings.maxDeletes = try count(table, "max_deletes", "sync") ?? 0
        }
        if let checks = root["checks"] { settings.checks = try readChecks(try table(checks, "checks")) }
        if let notify = root["notify"] {
            let table = try self.table(notify, "notify")
            try only(["webhook", "command"], in: table, "notify")
            settings.notify = FeedNotify(webhook: try text(table, "webhook", "notify"), command: try text(table, "command", "notify"))
            if let hook = settings.notify.webhook, !(hook.hasPrefix("http://") || hook.hasPrefix("https://")) {
                throw fail(Phrase("fm_must_be_an_http_s_url"), table: "notify", key: "webhook")
            }
        }
        return settings
    }

    private func readSource(_ table: TOMLTable) throws(FeedFileError) -> FeedSource {
        try only(["url", "path", "key_file", "known_hosts", "settle_seconds", "images"], in: table, "source")
        let url = try text(table, "url", "source")
        let path = try text(table, "path", "source")
        switch (url, path) {
        case (let url?, nil):
            let scheme = url.split(separator: ":").first.map { $0.lowercased() } ?? ""
            guard ["http", "https", "sftp"].contains(scheme) else {
                throw fail(Phrase("fm_must_be_an_http_https_or"), table: "source", key: "url")
            }
            return .url(url, keyFile: try text(table, "key_file", "source").map(Self.expandHome),
                        knownHosts: try text(table, "known_hosts", "source").map(Self.expandHome))
        case (nil, let path?):
            let settle = try decimal(table, "settle_seconds", table: "source", item: 0).map { NSDecimalNumber(decimal: $0).doubleValue } ?? 5
            return .path(Self.expandHome(path), settle: settle)
        default:
            throw fail(Phrase("fm_give_one_of_url"), table: "source")
        }
    }

    private func readChecks(_ table: TOMLTable) throws(FeedFileError) -> FeedChecks {
        try only(["min_rows", "max_drop_percent", "max_changed_percent"], in: table, "checks")
        var checks = FeedChecks()
        checks.minRows = try count(table, "min_rows", "checks")
        checks.maxDropPercent = try percent(table, "max_drop_percent")
        checks.maxChangedPercent = try percent(table, "max_changed_percent")
        return checks
    }

    private func percent(_ table: TOMLTable, _ key: String) throws(FeedFileError) -> Double? {
        guard let value = try decimal(table, key, table: "checks", item: 0) else { return nil }
        guard value >= 0, value <= 100 else { throw fail(Phrase("fm_must_be_a_percentage"), table: "checks", key: key) }
        return NSDecimalNumber(decimal: value).doubleValue
    }

    private func only(_ keys: [String], in table: TOMLTable, _ name: String) throws(FeedFileError) {
        for key in table.keys where !keys.contains(key) {
            throw fail(Phrase("fm_unknown_key_has", "\(name)", "\(keys.joined(separator: ", "))"), table: name, key: key)
        }
    }

    private func text(_ table: TOMLTable, _ key: String, _ name: String) throws(FeedFileError) -> String? {
        guard let value = table[key] else { return nil }
        guard let text = value.string, !text.isEmpty else { throw fail(Phrase("fm_must_be_a_text_in_quotes"), table: name, key: key) }
        return text
    }

    private func count(_ table: TOMLTable, _ key: String, _ name: String) throws(FeedFileError) -> Int? {
        guard let value = table[key] else { return nil }
        guard let count = value.int, count >= 0 else { throw fail(Phrase("fm_must_be_a_whole_number_or"), table: name, key: key) }
        return count
    }

    /// `~/…` as the user's home.
    static func expandHome(_ path: String) -> String {
        path.hasPrefix("~/") ? UserFolders.home.appendingPathComponent(String(path.dropFirst(2))).path : path
    }
}
