import Foundation
import Support

/// Where objects live on S3-compatible storage: `s3://BUCKET/PREFIX`.
public struct S3Location: Sendable, Equatable, CustomStringConvertible {
    public var bucket: String
    /// Without leading or trailing slash; may be empty.
    public var prefix: String

    /// `s3://bucket` or `s3://bucket/some/prefix`; nil for anything else.
    public init?(_ url: String) {
        guard url.lowercased().hasPrefix("s3://") else { return nil }
        let rest = url.dropFirst(5)
        let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bucket = parts.first, Self.validBucket(String(bucket)) else { return nil }
        self.bucket = String(bucket)
        prefix = parts.count > 1 ? String(parts[1]).trimmingCharacters(in: CharacterSet(charactersIn: "/")) : ""
    }

    public init(bucket: String, prefix: String) {
        self.bucket = bucket
        self.prefix = prefix.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    }

    /// The object key of `name` under the prefix.
    public func key(_ name: String) -> String { prefix.isEmpty ? name : "\(prefix)/\(name)" }

    /// This location one level down.
    public func appending(_ name: String) -> S3Location { S3Location(bucket: bucket, prefix: key(name)) }

    public var description: String { prefix.isEmpty ? "s3://\(bucket)" : "s3://\(bucket)/\(prefix)" }

    /// S3's rule: 3–63 lower-case letters, digits, dots and hyphens.
    static func validBucket(_ name: String) -> Bool {
        (3...63).contains(name.count) && name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "." || $0 == "-") }
    }
}

/// The account and endpoint of S3-compatible storage, from the environment every S3 tool reads:
/// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION` (or
/// `AWS_DEFAULT_REGION`; default us-east-1) and `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL` (a
/// server that is not AWS: MinIO, Ceph, moto…; path-style addresses). The secret is never shown.
public struct S3Account: Sendable {
    public var accessKey: String
    public var secretKey: String
    public var sessionToken: String?
    public var region: String
    /// `http(s)://host:port` of a server that is not AWS; nil: AWS itself.
    public var endpoint: String?

    public init(accessKey: String, secretKey: String, sessionToken: String? = nil, region: String = "us-east-1", endpoint: String? = nil) {
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.sessionToken = sessionToken
        self.region = region
        self.endpoint = endpoint
    }

    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(S3Failure) -> S3Account {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let key = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") else {
            throw S3Failure("S3 storage needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment (and AWS_ENDPOINT_URL for a server that is not AWS)", isSetup: true)
        }
        let endpoint = value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL")
        if let endpoint, !(endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://")) {
            throw S3Failure("AWS_ENDPOINT_URL must start with http:// or https:// (got \(endpoint))", isSetup: true)
        }
        return S3Account(accessKey: key, secretKey: secret, sessionToken: value("AWS_SESSION_TOKEN"),
                         region: value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? "us-east-1",
                         endpoint: endpoint.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 })
    }
}

public struct S3Failure: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// The address or the environment is wrong (nothing was asked of the storage): a usage error.
    public var isSetup: Bool
    public init(_ description: String, isSetup: Bool = false) {
        self.description = description
        self.isSetup = isSetup
    }
}

/// One bucket of S3-compatible storage over libcurl, requests signed with AWS Signature V4.
/// Safe from many threads (a handle per call, connections shared). GET and PUT are retried
/// under the tool's one retry policy.
public final class S3Bucket: Sendable {
    public let location: S3Location
    private let account: S3Account
    private let settings: TransportSettings
    private let retry: RetryPolicy
    private let share = CurlShare()
    private let idle = Locked<[CurlEasyBox]>([])

    public init(_ location: S3Location, account: S3Account, settings: TransportSettings = TransportSettings(),
                retry: RetryPolicy = RetryPolicy()) {
        self.location = location
        self.account = account
        self.settings = settings
        self.retry = retry
    }

    /// The object `name` (under the prefix); nil when there is none.
    public func get(_ name: String) throws(S3Failure) -> Data? {
        let response = try exchange(.get, name, body: nil)
        switch response.status {
        case 200: return response.body
        // No such key; a missing bucket is an error (its 404 says NoSuchBucket).
        case 404 where !String(decoding: response.body.prefix(512), as: UTF8.self).contains("<Code>NoSuchBucket</Code>"): return nil
        default: throw refusal(response, name)
        }
    }

    /// Stores `data` as `name` unless an object is there already (`If-None-Match: *`): true
    /// when this call stored it, false when another writer had (412, or 409 for a write racing).
    @discardableResult
    public func putIfAbsent(_ name: String, _ data: Data, contentType: String = "application/octet-stream") throws(S3Failure) -> Bool {
        let response = try exchange(.put, name, body: (data, contentType), headers: [("If-None-Match", "*")])
        switch response.status {
        case 200..<300: return true
        case 412, 409: return false
        default: throw refusal(response, name)
        }
    }

    /// Stores `data` as `name`, replacing what is there.
    public func put(_ name: String, _ data: Data, contentType: String = "application/octet-stream") throws(S3Failure) {
        let response = try exchange(.put, name, body: (data, contentType))
        guard (200..<300).contains(response.status) else { throw refusal(response, name) }
    }

    /// Asks for an object that need not exist: the bucket is there and the account may read it.
    public func check() throws(S3Failure) {
        _ = try get(".openmarket-check")
    }

    private func exchange(_ method: HTTPRequest.Method, _ name: String, body: (Data, String)?,
                          headers: [(String, String)] = []) throws(S3Failure) -> HTTPResponse {
        var request = HTTPRequest(method: method, url: url(location.key(name)))
        request.maxResponseBytes = 256 << 20
        request.awsSigV4 = ("aws:amz:\(account.region):s3", "\(account.accessKey):\(account.secretKey)")
        let payload = body?.0 ?? Data()
        request.headers = headers + [("x-amz-content-sha256", SHA256.hash(data: payload).hex)]
        if let token = account.sessionToken { request.headers.append(("x-amz-security-token", token)) }
        if let body { request.body = .bytes(body.0, contentType: body.1) }
        let shown = "\(location.bucket)/\(location.key(name))"
        let handle = idle.withLock { $0.popLast() } ?? CurlEasyBox()
        defer { idle.withLock { $0.append(handle) } }
        return try retry.run({ _ -> Attempt<HTTPResponse, S3Failure> in
            do throws(TransportFailure) {
                let response = try handle.easy.perform(request, settings: settings, share: share, redactor: Redactor(nil), debug: nil)
                guard retry.retryableStatuses.contains(response.status) else { return .done(response) }
                return .again(S3Failure("s3://\(shown): the storage answered HTTP \(response.status)"),
                              after: RetryPolicy.retryAfter(response.headers["retry-after"]))
            } catch {
                let failure = S3Failure("s3://\(shown): \(error.message)")
                return OpenMarketClient.retryableTransportCodes.contains(error.code) ? .again(failure, after: nil) : .failed(failure)
            }
        }, exhausted: { last, attempts in S3Failure("\(last.description) (\(attempts) attempts)") })
    }

    /// Path-style under an endpoint of its own; AWS's virtual-hosted address otherwise.
    private func url(_ key: String) -> String {
        let path = key.split(separator: "/", omittingEmptySubsequences: false).map { Self.escape(String($0)) }.joined(separator: "/")
        if let endpoint = account.endpoint { return "\(endpoint)/\(location.bucket)/\(path)" }
        return "https://\(location.bucket).s3.\(account.region).amazonaws.com/\(path)"
    }

    /// SigV4's URI encoding: everything but the unreserved characters.
    static func escape(_ segment: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        return segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
    }

    /// The storage's refusal in its own words (the XML error's Code and Message).
    private func refusal(_ response: HTTPResponse, _ name: String) -> S3Failure {
        let text = String(decoding: response.body.prefix(4096), as: UTF8.self)
        func element(_ tag: String) -> String? {
            guard let start = text.range(of: "<\(tag)>"), let end = text.range(of: "</\(tag)>", range: start.upperBound..<text.endIndex) else { return nil }
            return String(text[start.upperBound..<end.lowerBound])
        }
        let code = element("Code").map { " \($0)" } ?? ""
        let message = element("Message").map { ": \($0)" } ?? ""
        var advice = ""
        if code == " SignatureDoesNotMatch" || code == " InvalidAccessKeyId" {
            advice = " (check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)"
        } else if code == " NoSuchBucket" {
            advice = " (make the bucket first)"
        }
        return S3Failure("s3://\(location.bucket)/\(location.key(name)): HTTP \(response.status)\(code)\(message)\(advice)")
    }
}

/// Objects named by `s3://BUCKET/KEY` (a sheet, a photo), read with the environment's S3
/// account; one client per bucket for the process.
public enum S3Objects {
    private static let buckets = Locked<[String: S3Bucket]>([:])

    public static func isAddress(_ text: String) -> Bool { text.lowercased().hasPrefix("s3://") }

    /// The object's bytes; a missing object, or one over `maxBytes`, is an error naming it.
    public static func fetch(_ address: String, maxBytes: Int) throws(S3Failure) -> Data {
        guard let location = S3Location(address), !location.prefix.isEmpty else {
            throw S3Failure("\(address): an object is s3://BUCKET/KEY", isSetup: true)
        }
        let bucket = try bucket(location.bucket)
        guard let data = try bucket.get(location.prefix) else { throw S3Failure("\(address): no such object") }
        guard data.count <= maxBytes else { throw S3Failure("\(address): \(data.count) bytes, more than \(maxBytes)") }
        return data
    }

    private static func bucket(_ name: String) throws(S3Failure) -> S3Bucket {
        if let known = buckets.withLock({ $0[name] }) { return known }
        let made = S3Bucket(S3Location(bucket: name, prefix: ""), account: try S3Account.fromEnvironment())
        return buckets.withLock { known in
            if let first = known[name] { return first }
            known[name] = made
            return made
        }
    }
}
