import CatalogSync
import Foundation
import OpenMarketAPI
import Sandbox
import Support
import Testing
import TestSupport

@Suite("An account's state: where links and journals live, and the preflight")
struct AccountStateTests {
    @Test("one link store per account, one journal per manifest and account; the identifier is not in a file name")
    func locations() async throws {
        let sandbox = try await TestSandbox.start()
        let demo = try client(sandbox, sandbox.demo)
        let other = try OpenMarketClient(ClientConfiguration(server: sandbox.server.url,
                                                             credentials: VendorCredentials(identifier: "someone-else", secret: "x")))
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("account-\(UUID().uuidString)")
        let built = AccountState(shop: demo, sandboxData: data)
        #expect(built.folder == data && built.serverName == "built-in sandbox")
        #expect(built.links.description.hasPrefix(data.path) && !built.links.description.contains(sandbox.demo.identifier))
        let remote = AccountState(shop: demo, sandboxData: nil)
        #expect(remote.serverName == sandbox.server.url.absoluteString && remote.links != built.links)
        let elsewhere = AccountState(shop: other, sandboxData: data)
        #expect(elsewhere.links != built.links, "another vendor on the same server is another account")
        let sheet = URL(fileURLWithPath: "/shop/products.csv")
        #expect(built.journal(for: sheet) != elsewhere.journal(for: sheet))
        #expect(built.journal(for: sheet) != built.journal(for: URL(fileURLWithPath: "/other/products.csv")))
        #expect(built.journal(for: sheet).lastPathComponent.hasPrefix("products.csv-"))

        try AccountState.preflight(demo)
        for (client, code) in [(other, StopCause.unreachable), (try client(sandbox), StopCause.input)] {
            do {
                try AccountState.preflight(client)
                Issue.record("preflight passed for \(client.configuration.credentials?.identifier ?? "no credentials")")
            } catch {
                #expect(error.cause == code, "\(error)")
                // What a merchant reads: no internal probe's URL.
                #expect(!error.description.contains("2147483647") && !error.description.contains("/archived"), "\(error)")
            }
        }
        await sandbox.stop()
    }
}
