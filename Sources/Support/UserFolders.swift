import Foundation

/// Where openmarket keeps files for the user, by the XDG base directory rules:
/// `$XDG_CONFIG_HOME`, `$XDG_STATE_HOME`, `$XDG_CACHE_HOME` when set to an
/// absolute path (a relative one is ignored, as the rules say), else the usual
/// folder under `$HOME` (Foundation's `NSHomeDirectory()` on Linux reads the
/// password database, not `$HOME`).
public enum UserFolders {
    /// `$HOME` when it is an absolute path, else the account's home.
    public static var home: URL {
        if let home = ProcessInfo.processInfo.environment["HOME"], home.hasPrefix("/") {
            return URL(fileURLWithPath: home, isDirectory: true)
        }
        return URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)
    }

    /// `$XDG_CONFIG_HOME/openmarket`, by default `~/.config/openmarket`.
    public static var config: URL { base("XDG_CONFIG_HOME", ".config") }
    /// `$XDG_STATE_HOME/openmarket`, by default `~/.local/state/openmarket`.
    public static var state: URL { base("XDG_STATE_HOME", ".local/state") }
    /// `$XDG_CACHE_HOME/openmarket`, by default `~/.cache/openmarket`.
    public static var cache: URL { base("XDG_CACHE_HOME", ".cache") }

    private static func base(_ variable: String, _ fallback: String) -> URL {
        let folder = ProcessInfo.processInfo.environment[variable].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0, isDirectory: true) : nil }
            ?? home.appendingPathComponent(fallback, isDirectory: true)
        return folder.appendingPathComponent("openmarket", isDirectory: true)
    }
}
