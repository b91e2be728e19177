import Foundation
import Testing
import TestSupport

@Suite("openmarket doctor")
struct DoctorCommandTests {
    @Test("everything in order: every line ok, exit 0, no secret printed")
    func healthy() async throws {
        let sandbox = try await TestSandbox.start()
        let result = try await CLIProcess.run(["doctor"] + UndoCommandTests.account(sandbox))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count >= 6 && lines.allSatisfy { $0.hasPrefix("ok") }, "\(result.stdout)")
        #expect(result.stdout.contains("credentials accepted") && result.stdout.contains("answers ("))
        #expect(result.stdout.contains("ok    photos: HEIC (libheif ") && result.stdout.contains("WebP (libwebp "), "\(result.stdout)")
        #expect(!result.stdout.contains(sandbox.demo.secret) && !result.stdout.contains(sandbox.demo.identifier))
        await sandbox.stop()
    }

    @Test("refused credentials, a config file others can read, a state folder behind a file: each a FAIL line saying what to do, exit 1")
    func problems() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let refused = try await CLIProcess.run(
            ["doctor", "--server", sandbox.url, "--identifier", sandbox.demo.identifier, "--secret", "wrong-secret"])
        #expect(refused.status == 1 && refused.stdout.contains("FAIL  the server refused the credentials"), "\(refused.stdout)")
        #expect(!refused.stdout.contains("wrong-secret") && !refused.stderr.contains("wrong-secret"))

        let blocker = URL(fileURLWithPath: try files.write(Array("x".utf8), named: "not-a-folder"))
        let config = try files.write(Array("server = \"\(sandbox.url)\"\n".utf8), named: "config.toml")
        chmod(config, 0o644)
        let result = try await CLIProcess.run(["doctor", "--config", config],
                                              environment: ["XDG_STATE_HOME": blocker.appendingPathComponent("state").path])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let out = result.stdout
        #expect(out.contains("FAIL  config file \(config) can be read by others (mode 644): run chmod 600"), "\(out)")
        #expect(out.contains("FAIL  state folder") && out.contains("\(blocker.path) is a file, not a folder"), "\(out)")
        await sandbox.stop()
    }

    @Test("folders follow $HOME when no XDG variable is set, and a relative XDG value is ignored")
    func foldersFollowHome() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let home = files.directory.appendingPathComponent("home").path
        let result = try await CLIProcess.run(["doctor", "--server", sandbox.url],
                                              environment: ["HOME": home, "XDG_STATE_HOME": "", "XDG_CACHE_HOME": "relative/cache",
                                                            "XDG_CONFIG_HOME": ""])
        #expect(result.stdout.contains("state folder \(home)/.local/state/openmarket: writable"), "\(result.stdout)")
        #expect(result.stdout.contains("image cache \(home)/.cache/openmarket/images: writable"), "\(result.stdout)")
        await sandbox.stop()
    }
}
