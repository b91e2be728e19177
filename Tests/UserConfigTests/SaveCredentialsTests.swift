import Foundation
import Testing
@testable import UserConfig

/// The console's form for a profile the shop refused writes the new credentials into the
/// merchant's config file, changing nothing else of it.
@Suite("Credentials saved into the config file")
struct SaveCredentialsTests {
    @Test("only the profile's identifier and secret lines change (added when missing); comments and other profiles kept; mode 600; quotes escaped; read back; an unknown profile or a line break refused, the file untouched")
    func save() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("config.toml")
        let text = """
            # my shops
            server = "https://market.example"

            [profiles.old]   # the account I am leaving
            server = "https://old.example"
            identifier = "old-id"
            secret = "wrong"

            [profiles.new]
            server = "https://new.example"
            """
        try Data(text.utf8).write(to: file)
        chmod(file.path, 0o600)
        try OpenMarketConfig.saveCredentials(path: file.path, profile: "old", identifier: "old-id", secret: "right \"quoted\" \\ one")
        try OpenMarketConfig.saveCredentials(path: file.path, profile: "new", identifier: "new-id", secret: "s2")
        let saved = try String(contentsOf: file, encoding: .utf8)
        #expect(saved.hasPrefix("# my shops\nserver = \"https://market.example\"\n\n[profiles.old]   # the account I am leaving\n"), "\(saved)")
        let config = try #require(try OpenMarketConfig.load(path: file.path))
        #expect(config.profiles?["old"]?.secret == "right \"quoted\" \\ one" && config.profiles?["old"]?.server == "https://old.example")
        #expect(config.profiles?["new"]?.identifier == "new-id" && config.profiles?["new"]?.secret == "s2" && config.server == "https://market.example")
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(throws: ConfigError.self) { try OpenMarketConfig.saveCredentials(path: file.path, profile: "gone", identifier: "a", secret: "b") }
        #expect(throws: ConfigError.self) { try OpenMarketConfig.saveCredentials(path: file.path, profile: "old", identifier: "a", secret: "b\nc") }
        #expect(try String(contentsOf: file, encoding: .utf8) == saved, "refused: untouched")
        #expect((try FileManager.default.contentsOfDirectory(atPath: folder.path)) == ["config.toml"], "no temporary file left")
    }
}
