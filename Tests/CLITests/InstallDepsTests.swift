import Foundation
import Testing
import TestSupport

/// `scripts/install-deps`: the README's first command installs what the tool builds and runs
/// with, nothing only the tests use; `--tests` adds those.
@Suite("scripts/install-deps")
struct InstallDepsTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/install-deps").path

    static func list(_ flags: [String]) throws -> [String] {
        let result = try runToolOutput("/bin/bash", [script, "--list"] + flags)
        guard result.status == 0 else { throw TestFailure("install-deps --list \(flags): \(result.output)") }
        return result.output.split(separator: "\n").map { String($0.split(separator: " ")[0]) }
    }

    @Test("--list names no browser, database server or sshd for the tool; --tests adds them; an unknown flag is refused")
    func lists() throws {
        let tool = try Self.list([])
        #expect(tool.contains("libturbojpeg0-dev") && tool.contains("libcurl4-openssl-dev") && tool.contains("libpq-dev"), "\(tool)")
        #expect(tool.allSatisfy { !["chromium", "chromium-driver", "postgresql", "openssh-server", "imagemagick", "fonts-noto-cjk"].contains($0) }, "\(tool)")
        let tests = try Self.list(["--tests"])
        #expect(Set(tool).isSubset(of: Set(tests)))
        #expect(["chromium", "chromium-driver", "postgresql", "openssh-server", "nginx-light", "moto[server]", "kubernetes-validate"].allSatisfy(tests.contains), "\(tests)")
        #expect(try runToolOutput("/bin/bash", [Self.script, "--bogus"]).status == 2)
    }
}
