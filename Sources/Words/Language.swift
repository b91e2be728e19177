import Foundation

/// The language a merchant reads openmarket's pages and reports in.
public enum Language: String, Sendable, CaseIterable, Codable {
    case en, ko

    /// `ko`, `ko-KR`, `ko_KR.UTF-8`, `en`, `C`: the language named; nil for one openmarket
    /// does not speak.
    public init?(named name: String) {
        let lower = name.lowercased()
        if lower.hasPrefix("ko") {
            self = .ko
        } else if lower.hasPrefix("en") || lower == "c" || lower.hasPrefix("c.") || lower == "posix" {
            self = .en
        } else {
            return nil
        }
    }

    /// The locale's, as a program reads it for its messages: `LC_ALL`, else `LC_MESSAGES`, else
    /// `LANG`; Korean when that names Korean, else English.
    public static func ofLocale(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Language {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[name], !value.isEmpty { return value.lowercased().hasPrefix("ko") ? .ko : .en }
        }
        return .en
    }
}
