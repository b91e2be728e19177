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
        let vendor = try client(sandbox, sandbox.demo)
        let photo = UploadImage(data: Data(try Fixtures.jpeg(width: 40, height: 30, seed: 1)), filename: "p.jpg", mimeType: "image/jpeg")
        let name = "Tea\u{1B}[2J\u{1B}]0;owned\u{07}\rFAKE\u{202E}gpj"
        let made = try await blocking {
            try vendor.register(Product(name: name, description: "line one\nline \u{1B}[31mred\u{1B}[0m", price: 1000, currency: "KRW", stock: 2), images: [photo])
        }
        let account = ["--server", sandbox.url, "--identifier", sandbox.demo.identifier, "--secret", sandbox.demo.secret]
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
