import Foundation
import OpenMarketAPI
import Support
import TOMLKit

/// `~/.config/openmarket/config.toml`:
///
/// ```toml
/// server = "https://market.example"
/// identifier = "…"
/// secret = "…"
///
/// [profiles.old-shop]          # chosen with --profile old-shop
/// server = "https://old.example"
/// identifier = "…"
/// secret = "…"
/// ```
public struct OpenMarketConfig: Decodable, Sendable, Equatable {
    public struct Profile: Decodable, Sendable, Equatable {
        public var server: String?
        public var identifier: String?
        public var secret: String?
    }

    public var server: String?
    public var identifier: String?
    public var secret: String?
    public var profiles: [String: Profile]?

    public static var defaultPath: String {
        UserFolders.config.appendingPathComponent("config.toml").path
    }

    /// Reads a config file. A missing file at the default path is no config;
    /// a file that others can read is refused, since it holds a secret.
    public static func load(path: String?) throws(OpenMarketError) -> OpenMarketConfig? {
        let file = path ?? defaultPath
        guard FileManager.default.fileExists(atPath: file) else {
            if path != nil { throw .invalidRequest("config file \(file) does not exist") }
            return nil
        }
        var info = stat()
        guard stat(file, &info) == 0 else { throw .invalidRequest("cannot read config file \(file)") }
        if info.st_mode & 0o077 != 0 {
            throw .invalidRequest(
                "config file \(file) can be read by other users (mode \(String(info.st_mode & 0o777, radix: 8))); it holds your secret: run chmod 600 \(file)")
        }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw .invalidRequest("cannot read config file \(file) as UTF-8 text")
        }
        do {
            return try TOMLDecoder().decode(OpenMarketConfig.self, from: text)
        } catch {
            throw .invalidRequest("config file \(file) is not valid: \(error)")
        }
    }
}

/// Where to connect and as whom, from (in order of precedence) the command
/// line, the environment, and the config file (a named profile, or its top).
public struct ConnectionSettings: Sendable, Equatable {
    public var server: URL?
    public var credentials: VendorCredentials?

    public static func resolve(
        server: String?, identifier: String?, secret: String?, profile: String?,
        environment: [String: String], config: OpenMarketConfig?
    ) throws(OpenMarketError) -> ConnectionSettings {
        var section = OpenMarketConfig.Profile(server: config?.server, identifier: config?.identifier, secret: config?.secret)
        if let profile {
            guard let named = config?.profiles?[profile] else {
                let known = config?.profiles?.keys.sorted().joined(separator: ", ") ?? ""
                throw .invalidRequest("no profile '\(profile)' in the config file" + (known.isEmpty ? "" : "; profiles: \(known)"))
            }
            section = named
        }
        func pick(_ values: String?...) -> String? { values.lazy.compactMap { $0 }.first { !$0.isEmpty } }
        let serverText = pick(server, environment["OPENMARKET_SERVER"], section.server)
        let id = pick(identifier, environment["OPENMARKET_IDENTIFIER"], section.identifier)
        let key = pick(secret, environment["OPENMARKET_SECRET"], section.secret)
        var url: URL?
        if let serverText {
            guard let parsed = URL(string: serverText), let scheme = parsed.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", parsed.host != nil else {
                throw .invalidRequest("server must be an http:// or https:// URL, got '\(serverText)'")
            }
            url = parsed
        }
        switch (id, key) {
        case let (id?, key?):
            return ConnectionSettings(server: url, credentials: VendorCredentials(identifier: id, secret: key))
        case (nil, nil):
            return ConnectionSettings(server: url, credentials: nil)
        case (nil, _):
            throw .invalidRequest("a secret was given without an identifier (--identifier or OPENMARKET_IDENTIFIER)")
        case (_, nil):
            throw .invalidRequest("an identifier was given without a secret (--secret or OPENMARKET_SECRET)")
        }
    }
}
