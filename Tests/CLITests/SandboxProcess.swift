import Foundation
import OpenMarketAPI
import Testing

/// `openmarket sandbox` in a process of its own, for tests that measure against the client's
/// deadlines (a 2 s wait for a byte): an in-process sandbox shares the test run's threads with
/// every other test, and under the whole suite on 2 cores it once answered a GET later than
/// the client waits, which failed rows the test expected found.
struct SandboxProcess {
    let child: CLIProcess
    let directory: URL
    let url: String
    let identifier: String
    let secret: String

    /// The options that name the demo vendor's account on this sandbox, for a command line.
    var demoAccount: [String] { ["--server", url, "--identifier", identifier, "--secret", secret] }

    /// Starts `openmarket sandbox --port 0` with `options` (e.g. `--store-late 1000`) in a new folder.
    static func start(_ options: [String]) async throws -> SandboxProcess {
        let directory = try temporaryDirectory()
        let child = try CLIProcess(["sandbox", "--port", "0", "--data", "data"] + options, directory: directory)
        let banner = try await child.waitForOutput { $0.contains("Ctrl-C") }
        let lines = banner.split(separator: "\n")
        let url = try #require(lines.first { $0.contains("listening on http://127.0.0.1:") }?.split(separator: " ").last)
        let demo = try #require(lines.first { $0.contains("demo-shop") }).split(separator: " ")
        func after(_ label: String) throws -> String {
            let index = try #require(demo.firstIndex(of: Substring(label)), "\(label) in \(banner)")
            return String(demo[index + 1])
        }
        return SandboxProcess(child: child, directory: directory, url: String(url),
                              identifier: try after("identifier:"), secret: try after("secret:"))
    }

    /// Every product the sandbox lists.
    func products() async throws -> [ProductSummary] { try await allProducts(at: url) }

    func stop() async {
        child.signal(SIGTERM)
        _ = try? await child.exit()
        try? FileManager.default.removeItem(at: directory)
    }
}
