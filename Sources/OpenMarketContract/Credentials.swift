/// A vendor's credentials: the `identifier` header and the `secret` sent in
/// bodies. Printing or interpolating them never shows either value.
public struct VendorCredentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    public var identifier: String
    public var secret: String

    public init(identifier: String, secret: String) {
        self.identifier = identifier
        self.secret = secret
    }

    public var description: String { "VendorCredentials(identifier: [redacted], secret: [redacted])" }
    public var debugDescription: String { description }
}

/// Removes known secrets from any text that leaves the client: error
/// messages (even a server's message that echoes them), log lines, debug dumps.
public struct Redactor: Sendable {
    private let secrets: [String]

    public init(_ credentials: VendorCredentials?) {
        secrets = [credentials?.identifier, credentials?.secret]
            .compactMap { $0 }
            .filter { $0.count >= 4 }
            .sorted { $0.count > $1.count }
    }

    public func scrub(_ text: String) -> String {
        var result = text
        for secret in secrets where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: "[redacted]")
        }
        return result
    }
}
