import Foundation
import Testing
import TestSupport

/// Where the console cannot have a loopback address of its own it runs on 127.0.0.1, which
/// every local server shares: its pages then live under a secret path and its cookies are
/// scoped to it, so that no server on another port is ever sent the token.
@Suite("The console on the shared loopback address", .serialized)
struct ConsoleSharedAddressTests {
    @Test("on 127.0.0.1: pages, forms, redirects and cookies under the secret path; nothing answered outside it; a plan runs and an apply lands")
    func secretPath() async throws {
        let open = try await OpenConsole.start(rows: 3, profiles: ["other"], sharedAddress: true)
        let url = open.console.url
        #expect(url.host == "127.0.0.1" && url.path.hasPrefix("/s/") && url.path.count > 20, "\(url)")
        let root = url.path.hasSuffix("/") ? String(url.path.dropLast()) : url.path
        let traded = try await curl([open.console.entry.absoluteString])
        let cookie = try #require(traded.headers["set-cookie"])
        #expect(traded.status == 303 && cookie.contains("Path=\(root)/") && !cookie.contains("Path=/;") && !cookie.hasSuffix("Path=/"),
                "the token's cookie goes to the secret path only: \(cookie)")
        #expect(traded.headers["location"]?.hasPrefix(root + "/") == true, "\(traded.headers)")

        let page = try await open.get("")
        #expect(page.status == 200 && page.text.contains("href=\"\(root)/runs\"") && page.text.contains("action=\"\(root)/plan\"")
                && page.text.contains("src=\"\(root)/console.js\""), "\(page.text.prefix(3000))")
        #expect(!page.text.contains("href=\"/runs\""), "no link leaves the secret path")
        // The same port's root, with the token's cookie: nothing of the console there.
        let outside = try await curl(["-H", "Cookie: \(open.cookie)", "http://127.0.0.1:\(url.port!)/runs"])
        #expect(outside.status == 403 && !outside.text.contains("products.csv"), "\(outside.status)")
        let language = try await open.get("language/ko")
        #expect(language.headers["set-cookie"]?.contains("Path=\(root)/") == true && language.headers["location"] == root + "/", "\(language.headers)")

        // The profile menu under the secret path too.
        let picked = try await open.get("shop?name=other")
        #expect(picked.status == 303 && picked.headers["location"] == root + "/" && picked.headers["set-cookie"]?.contains("Path=\(root)/") == true,
                "\(picked.status) \(picked.headers)")
        let started = try await open.post("apply", "sheet=products.csv")
        #expect(started.status == 303 && started.headers["location"]?.hasPrefix(root + "/jobs/") == true, "\(started.headers)")
        let job = String(try #require(started.headers["location"]).dropFirst(root.count + 1))
        let done = try await open.ended(job)
        #expect(done.text.contains("3 rows: 3 created"), "\(done.text.suffix(1500))")
        #expect(try await open.products() == 3)
        await open.close()
    }
}
