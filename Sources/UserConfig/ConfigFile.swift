import Foundation
import OpenMarketContract
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
/// state = "postgres://…"       # optional: this account's state in a shared database
/// ```
public struct OpenMarketConfig: Decodable, Sendable, Equatable {
    public struct Profile: Decodable, Sendable, Equatable {
        public var server: String?
        public var identifier: String?
        public var secret: String?
        /// Where the account's state lives (`postgres://…`: shared between machines).
        public var state: String?

        public init(server: String? = nil, identifier: String? = nil, secret: String? = nil, state: String? = nil) {
            self.server = server
            self.identifier = identifier
            self.secret = secret
            self.state = state
        }
    }

    public var server: String?
    public var identifier: String?
    public var secret: String?
    public var state: String?
    public var profiles: [String: Profile]?

    public init(server: String? = nil, identifier: String? = nil, secret: String? = nil, state: String? = nil,
                profiles: [String: Profile]? = nil) {
        self.server = server
        self.identifier = identifier
        self.secret = secret
        self.state = state
        self.profiles = profiles
    }

    public static var defaultPath: String {
        UserFolders.config.appendingPathComponent("config.toml").path
    }

    /// Reads a config file. A missing file at the default path is no config;
    /// a file that others can read is refused, since it holds a secret.
    public static func load(path: String?) throws(ConfigError) -> OpenMarketConfig? {
        let file = path ?? defaultPath
        guard FileManager.default.fileExists(atPath: file) else {
            if path != nil { throw ConfigError("config file \(file) does not exist") }
            return nil
        }
        var info = stat()
        guard stat(file, &info) == 0 else { throw ConfigError("cannot read config file \(file)") }
        if info.st_mode & 0o077 != 0 {
            throw ConfigError(
                "config file \(file) can be read by other users (mode \(String(info.st_mode & 0o777, radix: 8))); it holds your secret: run chmod 600 \(file)")
        }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ConfigError("cannot read config file \(file) as UTF-8 text")
        }
        do {
            return try TOMLDecoder().decode(OpenMarketConfig.self, from: text)
        } catch {
            throw ConfigError("config file \(file) is not valid: \(error)")
        }
    }
}

/// Where to connect and as whom, from (in order of precedence) the command line's
/// options, a profile named with `--profile`, the environment (`OPENMARKET_SERVER`,
/// `OPENMARKET_IDENTIFIER`, `OPENMARKET_SECRET`), and the top of the config file. A profile
/// named on the command line is a choice made for this run: it wins over the environment.
public struct ConnectionSettings: Sendable, Equatable {
    public var server: URL?
    public var credentials: VendorCredentials?
    /// The `state` of the profile named, and of the config file's top (the door weighs them
    /// against `--state` and `OPENMARKET_STATE` in `StatePlace.chosen`).
    public var profileState: String?
    public var configState: String?

    public static func resolve(
        server: String?, identifier: String?, secret: String?, profile: String?,
        environment: [String: String], config: OpenMarketConfig?
    ) throws(ConfigError) -> ConnectionSettings {
        let top = OpenMarketConfig.Profile(server: config?.server, identifier: config?.identifier, secret: config?.secret)
        var named: OpenMarketConfig.Profile?
        if let profile {
            guard let section = config?.profiles?[profile] else {
                let known = config?.profiles?.keys.sorted().joined(separator: ", ") ?? ""
                throw ConfigError("no profile '\(profile)' in the config file" + (known.isEmpty ? "" : "; profiles: \(known)"))
            }
            named = section
        }
        func pick(_ values: String?...) -> String? { values.lazy.compactMap { $0 }.first { !$0.isEmpty } }
        let serverText = pick(server, named?.server, environment["OPENMARKET_SERVER"], top.server)
        let id = pick(identifier, named?.identifier, environment["OPENMARKET_IDENTIFIER"], top.identifier)
        let key = pick(secret, named?.secret, environment["OPENMARKET_SECRET"], top.secret)
        var url: URL?
        if let serverText {
            guard let parsed = URL(string: serverText), let scheme = parsed.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", parsed.host != nil else {
                throw ConfigError("server must be an http:// or https:// URL, got '\(serverText)'")
            }
            url = parsed
        }
        var settings = ConnectionSettings(server: url, credentials: nil, profileState: named?.state, configState: config?.state)
        switch (id, key) {
        case let (id?, key?):
            settings.credentials = VendorCredentials(identifier: id, secret: key)
        case (nil, nil):
            break
        case let (nil, key?):
            // A 2021 server's items take a password and no identifier; a 2022 server says
            // at the first write that it needs the identifier too.
            settings.credentials = VendorCredentials(identifier: "", secret: key)
        case (_, nil):
            throw ConfigError("an identifier was given without a secret (--secret or OPENMARKET_SECRET)")
        }
        return settings
    }
}

/// Why the config file or the connection settings cannot be used: said as a person must
/// fix it (the file, the profile, the option).
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension OpenMarketConfig {
    /// Writes a profile's identifier and secret into the config file (the console's form for a
    /// profile the shop refused): only those two lines of `[profiles.NAME]` change (added when
    /// missing); comments, other profiles and the rest stay as the merchant wrote them. The file
    /// is replaced whole and at once, readable by its owner only; the result is read back first,
    /// and a file that would not read is not written.
    public static func saveCredentials(path: String?, profile: String, identifier: String, secret: String) throws(ConfigError) {
        let file = path ?? defaultPath
        guard (try load(path: file)) != nil, let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ConfigError("config file \(file) does not exist")
        }
        for (name, value) in [("identifier", identifier), ("secret", secret)] where value.isEmpty || value.contains(where: \.isNewline) {
            throw ConfigError("the \(name) must be one line, not empty")
        }
        var lines = text.components(separatedBy: "\n")
        let headers = ["[profiles.\(profile)]", "[profiles.\"\(profile)\"]"]
        // A header as written, a comment after it or not: `[profiles.q]   # the second shop`.
        func bare(_ line: String) -> String { String(line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "").trimmingCharacters(in: .whitespaces) }
        guard let header = lines.firstIndex(where: { headers.contains(bare($0)) }) else {
            throw ConfigError("no profile '\(profile)' in the config file \(file)")
        }
        let end = lines[(header + 1)...].firstIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix("[") } ?? lines.endIndex
        func quoted(_ value: String) -> String {
            "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        var insertAt = header + 1
        for (key, value) in [("identifier", identifier), ("secret", secret)] {
            let line = "\(key) = \(quoted(value))"
            if let found = lines[(header + 1)..<end].firstIndex(where: { Self.key(of: $0) == key }) {
                lines[found] = line
            } else {
                lines.insert(line, at: insertAt)
                insertAt += 1
            }
        }
        let updated = lines.joined(separator: "\n")
        guard let read = try? TOMLDecoder().decode(OpenMarketConfig.self, from: updated),
              read.profiles?[profile]?.identifier == identifier, read.profiles?[profile]?.secret == secret else {
            throw ConfigError("config file \(file) would not read back with the new credentials; it is left as it was")
        }
        let temporary = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent(".config-\(UUID().uuidString).toml")
        guard FileManager.default.createFile(atPath: temporary.path, contents: Data(updated.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ConfigError("cannot write beside the config file \(file)")
        }
        guard rename(temporary.path, file) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw ConfigError("cannot replace the config file \(file)")
        }
    }

    /// The key a TOML line sets (`secret = "…"` → `secret`), nil for a comment or another line.
    static func key(of line: String) -> String? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else { return nil }
        return trimmed[..<equals].trimmingCharacters(in: .whitespaces)
    }
}
