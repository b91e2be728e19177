import Foundation
import Support

/// Debian's headless Chromium driven through `chromedriver`'s WebDriver (W3C, JSON over HTTP on
/// 127.0.0.1), as a merchant's browser: it runs the page's script, follows its redirects, keeps
/// its cookies, reads its event stream. Requires `chromium` and `chromium-driver`
/// (scripts/install-deps).
public final class WebDriver: @unchecked Sendable {
    public static let driverPath = "/usr/bin/chromedriver"

    private let process: ChildProcess
    private let base: String
    private let session: String
    private let profile: URL

    private init(process: ChildProcess, base: String, session: String, profile: URL) {
        self.process = process
        self.base = base
        self.session = session
        self.profile = profile
    }

    /// A driver and a browser window `width` × `height`.
    public static func start(width: Int = 1280, height: Int = 900) async throws -> WebDriver {
        guard FileManager.default.isExecutableFile(atPath: driverPath) else {
            throw TestFailure("\(driverPath) is missing: run scripts/install-deps --tests (chromium, chromium-driver, fonts-noto-cjk)")
        }
        let port = try LocalPorts.free()
        let process = try ChildProcess(driverPath, ["--port=\(port)", "--allowed-ips=127.0.0.1"], environment: startEnvironment)
        let base = "http://127.0.0.1:\(port)"
        var ready = false
        for _ in 0..<400 where !ready {
            ready = LocalPorts.canConnect(port)
            if !ready { try await Task.sleep(for: .milliseconds(25)) }
        }
        guard ready else {
            await kill(process)
            throw TestFailure("chromedriver did not listen on \(port)")
        }
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
        let options: [String: Any] = [
            "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=\(width),\(height)",
                     "--user-data-dir=\(profile.path)", "--lang=en-US"],
        ]
        let answer = try? await call("POST", base + "/session", ["capabilities": ["alwaysMatch": ["browserName": "chrome", "goog:chromeOptions": options]]])
        guard let session = answer?["sessionId"] as? String else {
            await kill(process)
            throw TestFailure("chromedriver started no Chromium: \(String(describing: answer))")
        }
        return WebDriver(process: process, base: base, session: session, profile: profile)
    }

    public func go(_ url: String) async throws { _ = try await command("POST", "/url", ["url": url]) }

    public var currentURL: String { get async throws { try await command("GET", "/url") as? String ?? "" } }

    public var source: String { get async throws { try await command("GET", "/source") as? String ?? "" } }

    /// The first element at `xpath`, waited for up to `seconds`.
    public func find(_ xpath: String, seconds: Double = 30) async throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let found = try? await command("POST", "/element", ["using": "xpath", "value": xpath]) as? [String: Any]
            if let id = found?.values.first as? String { return id }
            guard Date() < deadline else { throw TestFailure("no element \(xpath) in \(seconds) s on \(try await currentURL)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    public func click(_ xpath: String) async throws {
        let element = try await find(xpath)
        _ = try await command("POST", "/element/\(element)/click", [:])
    }

    /// Types `text` into the element (for a file input: the paths of the files to pick, one per line).
    public func type(_ xpath: String, _ text: String) async throws {
        _ = try await command("POST", "/element/\(try await find(xpath))/value", ["text": text])
    }

    public func text(_ xpath: String) async throws -> String {
        try await command("GET", "/element/\(try await find(xpath))/text") as? String ?? ""
    }

    /// Waits until the text at `xpath` satisfies `test`; the text it had last.
    @discardableResult
    public func wait(_ xpath: String, seconds: Double = 60, until test: (String) -> Bool) async throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var last = ""
        while Date() < deadline {
            last = (try? await text(xpath)) ?? ""
            if test(last) { return last }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestFailure("\(xpath) stayed \"\(last)\" for \(seconds) s")
    }

    /// The value of `script` (a function body: `return …`) run in the page.
    public func run(_ script: String) async throws -> Any? {
        try await command("POST", "/execute/sync", ["script": script, "args": [Any]()])
    }

    public func resize(width: Int, height: Int) async throws {
        _ = try await command("POST", "/window/rect", ["width": width, "height": height])
    }

    /// The page as the window shows it, a PNG.
    public func screenshot() async throws -> Data {
        guard let text = try await command("GET", "/screenshot") as? String, let data = Data(base64Encoded: text) else {
            throw TestFailure("no screenshot")
        }
        return data
    }

    public func quit() async {
        _ = try? await Self.call("DELETE", base + "/session/\(session)", nil)
        await Self.kill(process)
        try? FileManager.default.removeItem(at: profile)
    }

    /// chromedriver outlives a SIGTERM here: it is killed, and its end awaited without blocking a thread.
    private static func kill(_ process: ChildProcess) async {
        guard process.isRunning else { return }
        process.signal(SIGKILL)
        _ = await process.ended()
    }

    private func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
        try await Self.call(method, base + "/session/\(session)" + path, body)["value"]
    }

    private static func call(_ method: String, _ url: String, _ body: [String: Any]?) async throws -> [String: Any] {
        var arguments = ["-X", method, url]
        if let body {
            arguments += ["-H", "Content-Type: application/json", "--data-binary", String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)]
        }
        let answer = try await curl(arguments)
        let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
        guard answer.status == 200, let object else {
            throw TestFailure("WebDriver \(method) \(url): \(answer.status) \(answer.text.prefix(500))")
        }
        if let value = object["value"] as? [String: Any], object["sessionId"] == nil, value["sessionId"] != nil {
            return value
        }
        return object
    }
}
