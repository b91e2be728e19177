import CCurl
import Foundation
import Support

/// Fetching a file that is not the Open Market API: a supplier's feed over http(s) (a
/// conditional GET) or sftp, and a notification's POST. One exchange each, on a
/// connection of its own (these are a few requests a run).
public enum SourceFetch {
    /// What is known of the copy fetched last time (for a conditional GET).
    public struct Validators: Sendable, Equatable, Codable {
        public var etag: String?
        public var lastModified: String?

        public init(etag: String? = nil, lastModified: String? = nil) {
            self.etag = etag
            self.lastModified = lastModified
        }
    }

    public enum Answer: Sendable {
        /// 304: the server says the file is the one fetched last time.
        case notModified
        case body(Data, contentType: String?, validators: Validators)
    }

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// GET `url` (http, https or sftp). Secrets in the URL (an sftp password) never reach the message.
    /// A connection that fails, a 429 or a 5xx is asked again under the one retry policy (as
    /// every request of the tool), `Retry-After` waited.
    public static func get(_ url: String, known: Validators = Validators(), sshKey: String? = nil, knownHosts: String? = nil,
                           maxBytes: Int = 512 << 20, settings: TransportSettings = TransportSettings(),
                           retry: RetryPolicy = RetryPolicy()) throws(Failure) -> Answer {
        let scheme = url.split(separator: ":").first.map { $0.lowercased() } ?? ""
        var request = HTTPRequest(method: .get, url: url, followRedirects: scheme != "sftp")
        request.maxResponseBytes = maxBytes
        request.protocols = scheme == "sftp" ? "sftp" : "http,https"
        if scheme == "sftp" {
            request.sshKeyFile = sshKey ?? defaultKey()
            request.sshKnownHosts = knownHosts ?? defaultKnownHosts()
        } else {
            if let etag = known.etag { request.headers.append(("If-None-Match", etag)) }
            if let date = known.lastModified { request.headers.append(("If-Modified-Since", date)) }
        }
        let response = try perform(request, settings: settings, shown: redacted(url), retry: retry)
        if scheme == "sftp" { return .body(response.body, contentType: nil, validators: Validators()) }
        switch response.status {
        case 304: return .notModified
        case 200..<300:
            return .body(response.body, contentType: response.headers["content-type"],
                         validators: Validators(etag: response.headers["etag"], lastModified: response.headers["last-modified"]))
        default:
            throw Failure(description: "\(redacted(url)) answered HTTP \(response.status)")
        }
    }

    /// POST a JSON body (a webhook); throws on a transport failure or a status that is not 2xx.
    public static func post(json: Data, to url: String, settings: TransportSettings = TransportSettings()) throws(Failure) {
        var request = HTTPRequest(method: .post, url: url)
        request.body = .json(json)
        request.maxResponseBytes = 1 << 20
        let response = try perform(request, settings: settings, shown: redacted(url))
        guard (200..<300).contains(response.status) else {
            throw Failure(description: "\(redacted(url)) answered HTTP \(response.status)")
        }
    }

    private static func perform(_ request: HTTPRequest, settings: TransportSettings, shown: String,
                                retry: RetryPolicy = .none) throws(Failure) -> HTTPResponse {
        let easy = CurlEasy()
        let share = CurlShare()
        return try retry.run({ _ -> Attempt<HTTPResponse, Failure> in
            do throws(TransportFailure) {
                let response = try easy.perform(request, settings: settings, share: share, redactor: Redactor(nil), debug: nil)
                guard retry.retryableStatuses.contains(response.status) else { return .done(response) }
                return .again(Failure(description: "\(shown) answered HTTP \(response.status)"),
                              after: RetryPolicy.retryAfter(response.headers["retry-after"]))
            } catch {
                if request.protocols == "sftp", error.code == Int(CURLE_PEER_FAILED_VERIFICATION.rawValue) {
                    return .failed(Failure(description: "\(shown): the server's host key is not the one \(request.sshKnownHosts ?? "known_hosts") has for it: not connected (a different server, or its key changed)"))
                }
                let failure = Failure(description: "\(shown): \(error.message)")
                return OpenMarketClient.retryableTransportCodes.contains(error.code) ? .again(failure, after: nil) : .failed(failure)
            }
        }, exhausted: { last, attempts in Failure(description: "\(last.description) (\(attempts) attempts)") })
    }

    /// The URL without its password (and without a query, where tokens live).
    public static func redacted(_ url: String) -> String {
        guard var parts = URLComponents(string: url) else { return url }
        if parts.password != nil { parts.password = "***" }
        if parts.query != nil { parts.query = "…" }
        return parts.string ?? url
    }

    /// The first of the usual private keys in `~/.ssh` that exists.
    static func defaultKey() -> String? {
        let ssh = UserFolders.home.appendingPathComponent(".ssh")
        return ["id_ed25519", "id_ecdsa", "id_rsa"].map { ssh.appendingPathComponent($0).path }
            .first { FileManager.default.fileExists(atPath: $0) }
    }

    static func defaultKnownHosts() -> String? {
        let path = UserFolders.home.appendingPathComponent(".ssh/known_hosts").path
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}
