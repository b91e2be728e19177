import Support

/// The rules of the contract, in one place: the sandbox enforces them, and manifest
/// validation checks rows against them before an import sends anything.
public enum ProductRules {
    public static let nameLength = 3...100
    public static let descriptionMaxLength = 1_000
    public static let imageCount = 1...5
    /// The server's limit per image file: 300 KB.
    public static let maxImageBytes = ServerLimits.maxImageBytes
    /// What the contract accepts; the sandbox also accepts JPY by default.
    public static let contractCurrencies: [String] = ["KRW", "USD"]
    public static let sandboxCurrencies: [String] = ["KRW", "USD", "JPY"]

    /// Text length as a person counts it: extended grapheme clusters, so that
    /// "한글" is 2 and "👍🏽" is 1. Both the sandbox and the client count this way.
    public static func characterCount(_ text: String) -> Int {
        text.count
    }
}

/// The Open Market server's limit per image file (300 KB), and the largest photo openmarket
/// downloads: the contract's, for image preparation (which speaks no API) and the client.
public enum ServerLimits {
    public static let maxImageBytes = 307_200
    /// The largest photo downloaded from a URL (import, migrate, export, undo): 25 MB.
    public static let maxDownloadBytes = 25 * 1024 * 1024
}
