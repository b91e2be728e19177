import Foundation

/// The language a merchant reads openmarket in: English, or any language the message catalogue
/// has a file for (`Resources/messages/CODE.po`, or one `OPENMARKET_MESSAGES` adds). Adding a
/// language is adding its file; nothing here lists them.
public struct Language: RawRepresentable, Hashable, Sendable, Codable, CaseIterable {
    /// The catalogue's code: `en`, `ko`.
    public let rawValue: String

    public static let en = Language(code: "en")
    public static let ko = Language(code: "ko")

    private init(code: String) { rawValue = code }

    /// A language the catalogue speaks, by its code; nil for one it has no file for.
    public init?(rawValue: String) {
        guard Catalogue.shipped.languages.contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// English and every language with a catalogue file.
    public static var allCases: [Language] { Catalogue.shipped.languages.map(Language.init(code:)) }

    /// `ko`, `ko-KR`, `ko_KR.UTF-8`, `en`, `C`: the language named; nil for one openmarket
    /// does not speak.
    public init?(named name: String) {
        let lower = name.lowercased()
        if lower == "c" || lower.hasPrefix("c.") || lower == "posix" {
            self = .en
            return
        }
        let code = String(lower.prefix { $0.isLetter })
        guard !code.isEmpty, let known = Language(rawValue: code) else { return nil }
        self = known
    }

    /// The locale's, as a program reads it for its messages: `LC_ALL`, else `LC_MESSAGES`, else
    /// `LANG`; a language the catalogue speaks, else English.
    public static func ofLocale(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Language {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[name], !value.isEmpty { return Language(named: value) ?? .en }
        }
        return .en
    }

    /// A browser's `Accept-Language` (`ja-JP,ko;q=0.8,en;q=0.5`): the one with the highest
    /// weight the catalogue speaks (the first of equal ones), else English.
    public static func accepted(_ header: String) -> Language {
        var best: (language: Language, weight: Double)?
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, let language = Language(named: tag), tag != "*" else { continue }
            let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if weight > 0, weight > (best?.weight ?? 0) { best = (language, weight) }
        }
        return best?.language ?? .en
    }

    public init(from decoder: any Decoder) throws {
        let code = try decoder.singleValueContainer().decode(String.self)
        // A language a record names that this build has no file for is said in English.
        self = Language(rawValue: code) ?? .en
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
