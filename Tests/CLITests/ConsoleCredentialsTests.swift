import Foundation
import Testing
import TestSupport

/// A profile whose secret the shop refuses is mended from the page: the identifier and secret
/// entered again are saved into the merchant's config file (nothing else of it changed) and the
/// shop opens with them, without a terminal.
@Suite("The console mends a profile's credentials", .serialized)
struct ConsoleCredentialsTests {
    @Test("openmarket console: profile q's secret is wrong; its export refusal offers the form; the secret entered there is saved into config.toml (comments, other lines and mode 600 kept) and q's export and apply then work")
    func mendFromThePage() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        _ = try writeManifest(files, rows: 2)
        let home = SharedStateTests.home("mend", in: files)
        let folder = URL(fileURLWithPath: home["XDG_CONFIG_HOME"]!).appendingPathComponent("openmarket")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = folder.appendingPathComponent("config.toml")
        try Data("""
            # shops of the week
            [profiles.p]
            server = "\(sandbox.url)"
            identifier = "\(sandbox.demo.identifier)"
            secret = "\(sandbox.demo.secret)"

            [profiles.q]   # the second shop
            server = "\(sandbox.url)"
            identifier = "\(sandbox.other.identifier)"
            secret = "an-old-secret"
            """.utf8).write(to: config)
        chmod(config.path, 0o600)

        let console = try CLIProcess(["console", files.directory.path, "--profile", "p", "--no-open"], environment: home)
        let page = try await ConsoleStateTests.open(console, profile: "q")
        let refused = try await page.get("export")
        #expect(refused.status == 502 && refused.text.contains("id=\"credentials\"") && refused.text.contains("type=\"password\""),
                "\(refused.status) \(refused.text.suffix(1500))")
        #expect(!refused.text.contains("an-old-secret") && !refused.text.contains(sandbox.other.secret))
        // A plan (and an apply) with the refused secret: the same form, said in the page's language, nothing sent.
        let planned = try await page.run("plan", "sheet=products.csv")
        #expect(planned.contains("id=\"credentials\"") && planned.contains("credentials (HTTP 40") && planned.contains("so nothing was read or sent"), "\(planned.suffix(1500))")
        let korean = ConsoleStateTests.Page(base: page.base, cookie: page.cookie + "; openmarket-console-language=ko")
        let refusedApply = try await korean.run("apply", "sheet=products.csv")
        #expect(refusedApply.contains("id=\"credentials\"") && refusedApply.contains("자격 증명(식별자와 비밀키)을 거부해(HTTP 40")
                && !refusedApply.contains("refused the credentials"), "\(refusedApply.suffix(1500))")
        let form = "identifier=\(sandbox.other.identifier)&secret=\(sandbox.other.secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        let saved = try await page.post("profile", form)
        #expect(saved.status == 303, "\(saved.status) \(saved.text.suffix(800))")
        let text = try String(contentsOf: config, encoding: .utf8)
        #expect(text.contains("secret = \"\(sandbox.other.secret)\"") && !text.contains("an-old-secret")
                && text.hasPrefix("# shops of the week\n[profiles.p]\n") && text.contains("[profiles.q]   # the second shop"), "\(text)")
        #expect((try FileManager.default.attributesOfItem(atPath: config.path)[.posixPermissions] as? Int) == 0o600)
        let exported = try await page.get("export")
        #expect(exported.status == 200, "\(exported.status) \(exported.text.prefix(600))")
        let applied = try await page.run("apply", "sheet=products.csv")
        #expect(applied.contains("2 rows: 2 created"), "\(applied.suffix(1200))")
        console.signal(SIGINT)
        _ = try await console.exit()
        await sandbox.stop()
    }
}
