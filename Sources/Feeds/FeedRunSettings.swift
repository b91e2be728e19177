import Foundation

/// The sections of a feed file that `feed run` reads: `[source]`, `[target]`, `[sync]`,
/// `[checks]`, `[notify]` and `keep_reports`.
public struct FeedRunSettings: Sendable, Equatable {
    public var source: FeedSource?
    /// `[source] images`: where the file's relative photo names are, when not beside the file
    /// (an http(s) address, or a folder). By default: beside the file (its URL, or its folder).
    public var images: String?
    /// A `[profiles.NAME]` of the config file (server and credentials); nil: the config
    /// file's top, the environment, else the built-in sandbox (as any command).
    public var profile: String?
    public var deleteMissing = false
    public var maxDeletes = 0
    public var checks = FeedChecks()
    public var notify = FeedNotify()
    /// Report folders of this feed's runs kept (the oldest removed after a run); nil: all.
    public var keepReports: Int?

    public init() {}
}

/// Where a feed's file comes from.
public enum FeedSource: Sendable, Equatable {
    /// http(s) (a conditional GET: ETag, Last-Modified) or sftp (libcurl's, with a key).
    case url(String, keyFile: String?, knownHosts: String?)
    /// A local file another program drops: read once it stops growing for `settle` seconds.
    case path(String, settle: Double)

    public var display: String {
        switch self {
        case .url(let url, _, _): FeedSource.withoutPassword(url)
        case .path(let path, _): path
        }
    }

    /// `sftp://user:secret@host/…` → `sftp://user@host/…`: a password never reaches a report or a message.
    static func withoutPassword(_ url: String) -> String {
        guard var parts = URLComponents(string: url), parts.password != nil else { return url }
        parts.password = nil
        return parts.string ?? url
    }
}

/// `[checks]`: what holds a bad file (nothing is sent; the report and the message say why).
/// A file that is an HTML page, and one without a column the feed needs, are always held.
public struct FeedChecks: Sendable, Equatable {
    /// At least this many rows (left-out rows not counted).
    public var minRows: Int?
    /// At most this drop in rows, in percent, against the last file that ran.
    public var maxDropPercent: Double?
    /// At most this share of rows changed (or new, or gone), in percent, against the last file that ran.
    public var maxChangedPercent: Double?

    public init(minRows: Int? = nil, maxDropPercent: Double? = nil, maxChangedPercent: Double? = nil) {
        self.minRows = minRows
        self.maxDropPercent = maxDropPercent
        self.maxChangedPercent = maxChangedPercent
    }
}

/// `[notify]`: told when a feed's state changes (failed, held, recovered), not on every success.
public struct FeedNotify: Sendable, Equatable {
    /// A JSON POST, Slack-compatible `{"text": …}`.
    public var webhook: String?
    /// A shell command, the message on its standard input.
    public var command: String?

    public init(webhook: String? = nil, command: String? = nil) {
        self.webhook = webhook
        self.command = command
    }
}
