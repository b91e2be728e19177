import Foundation
import OpenMarketAPI
import OpenMarketContract
import Sandbox
import Testing
import TestSupport

/// What a server stores reaches the terminal shown, never obeyed: a product named with escape
/// sequences, a bell, a carriage return and a right-to-left override, listed and shown.
@Suite("A server's words on the terminal", .serialized)
struct HostileTextTests {
    @Test("list and show print a product's control characters as escapes: no ESC, BEL, CR or RTL override reaches the terminal")
    func listAndShow() async throws {
        let sandbox = try await TestSandbox.start()
        let name = "Tea\u{1B}[2J\u{1B}]0;owned\u{07}\rFAKE\u{202E}gpj"
        let made = try await registeredElsewhere(sandbox, name: name, description: "line one\nline \u{1B}[31mred\u{1B}[0m", stock: 2)
        let account = sandbox.demoAccount
        let list = try await CLIProcess.run(["list"] + account)
        #expect(list.status == 0, "\(list.stdout)\(list.stderr)")
        // The table cuts a name at 40 columns: the escapes count as the characters shown.
        #expect(list.stdout.contains("Tea\\x1B[2J\\x1B]0;owned\\x07\\x0DFAKE<U+20…"), "\(list.stdout)")
        let show = try await CLIProcess.run(["show", String(made.summary.id)] + account)
        #expect(show.status == 0 && show.stdout.contains("Tea\\x1B[2J\\x1B]0;owned\\x07\\x0DFAKE<U+202E>gpj  (id")
                && show.stdout.contains("line \\x1B[31mred\\x1B[0m") && show.stdout.contains("line one\nline"), "\(show.stdout)")
        for output in [list.stdout, show.stdout] {
            #expect(!output.unicodeScalars.contains { [0x1B, 0x07, 0x0D, 0x202E].contains($0.value) }, "a control character reached the terminal")
        }
    }
}

/// A file the merchant did not write names the photos: only from where the merchant put them.
@Suite("Photos only from where the merchant put them", .serialized)
struct ConfinedPhotoTests {
    @Test("a supplier's feed in a drop folder naming an absolute path outside it: the row fails [image-path-escape] and the file is never sent; a path inside the folder is read; the merchant's own sheet may name any file")
    func feedAbsolutePath() async throws {
        let machine = try await FeedMachine.open()
        let elsewhere = try Scratch()
        defer { elsewhere.cleanup() }
        let secret = try elsewhere.write(try Fixtures.jpeg(width: 48, height: 36, seed: 77), named: "secret.jpg")
        let drop = machine.files.directory.appendingPathComponent("drop")
        try FileManager.default.createDirectory(at: drop, withIntermediateDirectories: true)
        try Data(try Fixtures.jpeg(width: 48, height: 36, seed: 78)).write(to: drop.appendingPathComponent("own.jpg"))
        let feed = drop.appendingPathComponent("feed.csv")
        try "code,title,cost,qty,photo\nC1,Product number 1,1001,1,own.jpg\nC2,Product number 2,1002,2,\(secret)\nC3,Product number 3,1003,3,\(drop.path)/own.jpg\n"
            .write(to: feed, atomically: true, encoding: .utf8)
        let text = Fixtures.feedText(source: "x", markup: 50).replacingOccurrences(of: "url = \"x\"", with: "path = \"\(feed.path)\"")
        try Data(text.utf8).write(to: machine.feeds.appendingPathComponent("acme.toml"))
        let tried = try await machine.run(["feed", "test", "acme"] + machine.shop)
        #expect(tried.stdout.contains("image-path-escape"), "\(tried.stdout)\(tried.stderr)")
        let run = try await machine.run(["feed", "run", "acme"] + machine.shop)
        #expect(run.stdout.contains("3 rows: 2 created, 1 failed"), "\(run.stdout)\(run.stderr)")
        let products = try await allProducts(machine.sandbox)
        #expect(Set(products.map(\.name)) == ["Product number 1", "Product number 3"], "the secret photo was sent: \(products.map(\.name))")

        // The merchant's own sheet on the command line names what it likes.
        let own = elsewhere.directory.appendingPathComponent("mine.csv")
        try "key,name,price,stock,images\nM1,My own photo,1000,1,\(secret)\n".write(to: own, atomically: true, encoding: .utf8)
        let mine = try await machine.run(["import", own.path, "--no-cache"] + machine.shop)
        #expect(mine.status == 0 && mine.stdout.contains("1 row: 1 created"), "\(mine.stdout)\(mine.stderr)")
        await machine.close()
    }
}

@Suite("Whom a command trusts over TLS", .serialized)
struct TrustTests {
    @Test("a server with its own CA: refused by default; trusted through SSL_CERT_FILE or CURL_CA_BUNDLE as curl's tool reads them; --insecure works and says once what it gives away")
    func caVariables() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let certificates = try TestCertificates.make(in: files.directory.appendingPathComponent("tls"))
        let sandbox = try await TestSandbox.start { $0.tls = (certificates.certificate, certificates.key) }
        let account = sandbox.demoAccount
        // This machine's own CA variables (a CI image sets them to the system bundle) are not the test's.
        let none = ["SSL_CERT_FILE": "", "CURL_CA_BUNDLE": ""]
        let refused = try await CLIProcess.run(["list"] + account, environment: none)
        #expect(refused.status != 0, "\(refused.stdout)\(refused.stderr)")
        for variable in ["SSL_CERT_FILE", "CURL_CA_BUNDLE"] {
            let trusted = try await CLIProcess.run(["list"] + account, environment: none.merging([variable: certificates.ca.path]) { $1 })
            #expect(trusted.status == 0 && trusted.stdout.contains("No products"), "\(variable): \(trusted.stdout)\(trusted.stderr)")
        }
        let insecure = try await CLIProcess.run(["list", "--insecure"] + account, environment: none)
        #expect(insecure.status == 0, "\(insecure.stdout)\(insecure.stderr)")
        #expect(insecure.stderr.components(separatedBy: "--insecure: the server's TLS certificate is not checked").count == 2, "\(insecure.stderr)")
        await sandbox.stop()
    }
}

@Suite("A server that redirects where the credentials go", .serialized)
struct RedirectedCredentialTests {
    @Test("a 3xx to the credential check stops the import before any write, saying why; the secret is never sent on")
    func redirectedCheck() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        _ = try files.write(try Fixtures.jpeg(width: 40, height: 30, seed: 3), named: "p.jpg")
        let sheet = files.directory.appendingPathComponent("few.csv")
        try "key,name,price,stock,images\nR1,Redirected tea,1000,1,p.jpg\nR2,Redirected coffee,1200,1,p.jpg\n".write(to: sheet, atomically: true, encoding: .utf8)
        let server = try await CaptureServer.start([
            "/api/products": .file("v2/2022-01_list_smart8612_products.json"), "/healthChecker": .text("\"OK\""),
            "POST /api/products/:id/secret": .status(307, ""), "POST /api/products": .status(307, ""),
        ])
        let run = try await CLIProcess.run(["import", sheet.path, "--server", server.url, "--identifier", "someone", "--secret", "s3cr3t-value",
                                            "--no-cache", "--report", files.directory.appendingPathComponent("report").path])
        #expect(run.status == 3, "\(run.status): \(run.stdout)\(run.stderr)")
        let said = run.stdout + run.stderr
        #expect(said.contains("with a redirect (HTTP 307)") && said.contains("never sends the secret on to another address"), "\(said)")
        #expect(!said.contains("created") && !said.contains("s3cr3t-value"), "\(said)")
        await server.stop()
    }
}

/// What the shop holds comes back from its export unchanged: text with quotes, apostrophes,
/// formula-like starts and spaces around it, through CSV, JSON Lines and Excel.
@Suite("Export and import again: a server's text kept", .serialized)
struct ServerTextRoundTripTests {
    @Test("a description with spaces around it, quotes, `'=` and a tab-led `@` line, a name led by `'=`: exported as CSV, JSON Lines and xlsx, each read back is 'unchanged', and the shop keeps its spaces")
    func roundTrip() async throws {
        let sandbox = try await TestSandbox.start()
        let description = "  \"quoted\" 'single' =SUM(A1)\n\t@x, \"\"  "
        let made = try await registeredElsewhere(sandbox, name: "'=1+1 \"tea\"", description: description, stock: 2, seed: 2)
        let files = try Scratch()
        defer { files.cleanup() }
        let account = sandbox.demoAccount
        for format in ["csv", "jsonl", "xlsx"] {
            let out = files.directory.appendingPathComponent(format)
            let export = try await CLIProcess.run(["export", "--out", out.path, "--format", format] + account)
            #expect(export.status == 0, "\(export.stdout)\(export.stderr)")
            let again = try await CLIProcess.run(["import", out.appendingPathComponent("products.\(format)").path, "--dry-run", "--no-cache"] + account)
            #expect(again.status == 0 && again.stdout.contains("1 row: 1 unchanged"), "\(format): \(again.stdout)\(again.stderr)")
        }
        let vendor = try client(sandbox, sandbox.demo)
        let kept = try await blocking { try vendor.product(id: made.id) }
        #expect(kept.summary.description == description && kept.summary.name == "'=1+1 \"tea\"")
    }
}
