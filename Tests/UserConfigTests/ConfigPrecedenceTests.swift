import Foundation
import OpenMarketContract
import Testing
import UserConfig

@Suite("The config file and where settings come from")
struct ConfigPrecedenceTests {
    static let file = OpenMarketConfig(
        server: "https://top.example", identifier: "top-id", secret: "top-secret",
        profiles: ["old": .init(server: "https://old.example", identifier: "old-id", secret: "old-secret"),
                   "partial": .init(server: "https://partial.example", identifier: nil, secret: nil)])
    static let environment = ["OPENMARKET_SERVER": "https://env.example", "OPENMARKET_IDENTIFIER": "env-id",
                              "OPENMARKET_SECRET": "env-secret"]

    func resolve(server: String? = nil, identifier: String? = nil, secret: String? = nil, profile: String? = nil,
                 environment: [String: String] = [:], config: OpenMarketConfig? = file) throws -> ConnectionSettings {
        try ConnectionSettings.resolve(server: server, identifier: identifier, secret: secret, profile: profile,
                                       environment: environment, config: config)
    }

    @Test("flags, then a profile named with --profile, then the environment, then the file's top")
    func precedence() throws {
        #expect(try resolve().server?.host == "top.example")
        #expect(try resolve().credentials == VendorCredentials(identifier: "top-id", secret: "top-secret"))
        #expect(try resolve(environment: Self.environment).server?.host == "env.example")
        #expect(try resolve(environment: Self.environment).credentials?.identifier == "env-id")
        let profiled = try resolve(profile: "old", environment: Self.environment)
        #expect(profiled.server?.host == "old.example" && profiled.credentials?.secret == "old-secret",
                "a profile named on the command line beats the environment")
        let flagged = try resolve(server: "http://flag.example:8080", identifier: "flag-id", secret: "flag-secret",
                                  profile: "old", environment: Self.environment)
        #expect(flagged.server?.absoluteString == "http://flag.example:8080" && flagged.credentials?.identifier == "flag-id")
        // A profile without credentials takes them from the environment, then the top.
        #expect(try resolve(profile: "partial", environment: Self.environment).credentials?.identifier == "env-id")
        #expect(try resolve(profile: "partial").credentials?.identifier == "top-id")
        // Blank values are no values.
        #expect(try resolve(server: "", environment: ["OPENMARKET_SERVER": ""]).server?.host == "top.example")
        // Nothing anywhere: no server (the built-in sandbox), no credentials.
        let none = try resolve(config: nil)
        #expect(none.server == nil && none.credentials == nil)
    }

    @Test("mistakes say what to fix: an unknown profile lists the known ones; half credentials; a server that is no URL")
    func mistakes() {
        #expect { try resolve(profile: "nope") } throws: { "\($0)".contains("no profile 'nope'") && "\($0)".contains("old, partial") }
        #expect { try resolve(identifier: "x", config: nil) } throws: { "\($0)".contains("without a secret") }
        // A secret alone is a 2021 server's password (its items have no vendor identifier).
        let password = try? resolve(secret: "x", config: nil)
        #expect(password?.credentials?.secret == "x" && password?.credentials?.identifier == "")
        #expect { try resolve(server: "ftp://x", config: nil) } throws: { "\($0)".contains("http:// or https://") }
    }

    @Test("a config file others can read is refused (it holds a secret); a missing default file is no config; a given one must exist")
    func files() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("config.toml").path
        try "server = \"https://top.example\"\nidentifier = \"i\"\nsecret = \"s3cret-value\"\n[profiles.old]\nserver = \"https://old.example\"\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
        #expect { try OpenMarketConfig.load(path: path) } throws: { "\($0)".contains("chmod 600") && !"\($0)".contains("s3cret-value") }
        chmod(path, 0o600)
        let loaded = try #require(try OpenMarketConfig.load(path: path))
        #expect(loaded.server == "https://top.example" && loaded.profiles?["old"]?.server == "https://old.example")
        #expect { try OpenMarketConfig.load(path: folder.appendingPathComponent("missing.toml").path) } throws: { "\($0)".contains("does not exist") }
        #expect("\(VendorCredentials(identifier: "i", secret: "s3cret-value"))".contains("s3cret-value") == false)
    }
}
