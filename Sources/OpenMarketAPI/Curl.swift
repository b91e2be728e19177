import CCurl
import Foundation
import Synchronization

/// One HTTP exchange to perform.
struct HTTPRequest: Sendable {
    enum Method: String, Sendable { case get = "GET", post = "POST", put = "PUT", patch = "PATCH", delete = "DELETE" }
    enum Body: Sendable {
        case none
        case json(Data)
        case multipart([MultipartField])
        /// Bytes as they are, of this type (an object to storage).
        case bytes(Data, contentType: String)
    }

    var method: Method
    var url: String
    var headers: [(String, String)] = []
    var body: Body = .none
    /// Follow redirects (only http/https, at most 5); writes never follow.
    var followRedirects = false
    /// Stop reading an answer beyond this many bytes.
    var maxResponseBytes = 64 * 1024 * 1024
    /// Seconds the whole exchange may take (a shop's page or product: a server trickling a
    /// byte a second passes the low-speed check for ever); nil: no total deadline.
    var deadline: Double?
    /// A read of the shop (a page, a product, the health check, the generation's probe): sent
    /// with the client's read deadline (`TransportSettings.readDeadline`) unless one is given.
    var readsShop = false
    /// The protocols the URL may use (a feed's source may be sftp).
    var protocols = "http,https"
    /// SFTP: the private key, and the known hosts the server's key must be in.
    var sshKeyFile: String?
    var sshKnownHosts: String?
    /// Signs the request with AWS Signature V4 (libcurl's CURLOPT_AWS_SIGV4): the provider
    /// string ("aws:amz:REGION:s3") and "KEY:SECRET". The caller sends x-amz-content-sha256.
    var awsSigV4: (provider: String, user: String)?
}

extension HTTPRequest {
    /// A GET of the shop's own data, which has the client's read deadline.
    static func shopRead(_ url: String) -> HTTPRequest {
        HTTPRequest(method: .get, url: url, readsShop: true)
    }
}

/// One part of a multipart body, handed to libcurl's mime API.
struct MultipartField: Sendable {
    var name: String
    var data: Data
    var contentType: String
    var filename: String?
}

struct HTTPResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data
    /// Connections libcurl had to open for this exchange (0 when one was reused).
    var newConnections = 0
}

/// A failure below HTTP, with libcurl's own words.
struct TransportFailure: Error, Sendable {
    var code: Int
    var message: String
    /// True when the request provably never left this machine: no name
    /// resolution or no connection. Only then is a non-idempotent request
    /// safe to send again.
    var neverSent: Bool
}

/// Settings of the libcurl transport.
public struct TransportSettings: Sendable {
    /// Seconds to establish a connection.
    public var connectTimeout: Double = 10
    /// An exchange is abandoned when fewer than `lowSpeedLimit` bytes per
    /// second move for `lowSpeedTime` seconds. There is no total deadline, so
    /// a large upload on a slow line is never cut off while it progresses.
    /// `OPENMARKET_ANSWER_TIMEOUT` (seconds) sets `lowSpeedTime`: a server known to be slow, or a test.
    public var lowSpeedLimit = 1
    public var lowSpeedTime = TransportSettings.environment(["OPENMARKET_ANSWER_TIMEOUT"]).flatMap { Int($0) }.map { max(1, $0) } ?? 30
    /// The most a read of the shop (a page, a product, the health check) may take in all:
    /// four times `lowSpeedTime`, 120 s by default. Photos and uploads have none (a large one
    /// on a slow line is not cut off while it moves).
    public var readDeadline: Double { Double(lowSpeedTime) * 4 }
    /// Disables TLS certificate and host name checks. Only from an explicit `--insecure`.
    public var insecure = false
    /// Certificate authorities to trust instead of the system's (PEM): a server with its own CA.
    /// `--cacert`, else `CURL_CA_BUNDLE` or `SSL_CERT_FILE` as curl's own tool reads them.
    public var caFile: String? = TransportSettings.environment(["CURL_CA_BUNDLE", "SSL_CERT_FILE"])
    /// A folder of hashed CA certificates (`SSL_CERT_DIR`).
    public var caFolder: String? = TransportSettings.environment(["SSL_CERT_DIR"])
    /// Offer HTTP/2 by ALPN. Off: HTTP/1.1 with keep-alive. Each worker has a connection of
    /// its own (easy handles on threads cannot multiplex), so HTTP/2 brings no parallelism,
    /// and its flow control makes an upload larger than the server's initial window (64 KB
    /// at nginx's defaults) wait a round trip per window: Benchmarks/distance.sh.
    public var http2 = false
    public var userAgent = OpenMarketVersion.userAgent

    public init() {}

    /// The first of these variables that is set and not empty.
    static func environment(_ names: [String]) -> String? {
        let values = ProcessInfo.processInfo.environment
        return names.lazy.compactMap { values[$0] }.first { !$0.isEmpty }
    }
}

enum Curl {
    /// `curl_global_init`, once per process, before any handle.
    static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    static func describe(_ code: CURLcode) -> String {
        String(cString: curl_easy_strerror(code))
    }
}

/// A libcurl share handle: connections, DNS and TLS sessions shared by every
/// easy handle of one client, with the locking libcurl requires.
final class CurlShare: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    /// One mutex per `curl_lock_data` value.
    private let locks: UnsafeMutablePointer<pthread_mutex_t>
    private static let lockCount = Int(CURL_LOCK_DATA_LAST.rawValue) + 1

    init() {
        _ = Curl.initialized
        handle = curl_share_init()
        locks = .allocate(capacity: Self.lockCount)
        for i in 0..<Self.lockCount { pthread_mutex_init(locks + i, nil) }
        _ = om_share_setopt_userdata(handle, UnsafeMutableRawPointer(locks))
        _ = om_share_setopt_lock(handle) { _, data, _, user in
            guard let user else { return }
            pthread_mutex_lock(user.assumingMemoryBound(to: pthread_mutex_t.self) + Int(data.rawValue))
        }
        _ = om_share_setopt_unlock(handle) { _, data, user in
            guard let user else { return }
            pthread_mutex_unlock(user.assumingMemoryBound(to: pthread_mutex_t.self) + Int(data.rawValue))
        }
        for data in [CURL_LOCK_DATA_CONNECT, CURL_LOCK_DATA_DNS, CURL_LOCK_DATA_SSL_SESSION] {
            _ = om_share_setopt_long(handle, CURLSHOPT_SHARE, Int(data.rawValue))
        }
    }

    deinit {
        // Closes the shared connections; refused while an easy handle still uses the share.
        let code = curl_share_cleanup(handle)
        assert(code == CURLSHE_OK, "curl_share_cleanup: \(code)")
        for i in 0..<Self.lockCount { pthread_mutex_destroy(locks + i) }
        locks.deallocate()
    }
}

/// What the callbacks of one exchange write into.
private final class ExchangeState {
    var body = Data()
    var headers: [String: String] = [:]
    var limit: Int
    var overflow = false
    var debug: (@Sendable (String) -> Void)?
    let redactor: Redactor

    init(limit: Int, redactor: Redactor, debug: (@Sendable (String) -> Void)?) {
        self.limit = limit
        self.redactor = redactor
        self.debug = debug
    }
}

/// The bodies of one exchange's multipart parts, each readable once (`om_once_part`):
/// freed after the exchange.
private final class OnceParts {
    private var parts: [UnsafeMutablePointer<om_once_part>] = []

    func add(_ data: Data) -> UnsafeMutablePointer<om_once_part> {
        let bytes = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, data.count))
        data.withUnsafeBytes { raw in
            if let base = raw.baseAddress { bytes.update(from: base.assumingMemoryBound(to: CChar.self), count: data.count) }
        }
        let part = UnsafeMutablePointer<om_once_part>.allocate(capacity: 1)
        part.initialize(to: om_once_part(data: UnsafePointer(bytes), size: data.count, position: 0, read: 0, refused: 0))
        parts.append(part)
        return part
    }

    /// libcurl wanted to send a part again (a reused connection died, a refused stream).
    var refusedResend: Bool { parts.contains { $0.pointee.refused != 0 } }

    deinit {
        for part in parts {
            UnsafeMutablePointer(mutating: part.pointee.data)?.deallocate()
            part.deallocate()
        }
    }
}

/// One libcurl easy handle. Not thread-safe: one per worker at a time (the
/// client keeps a pool and lends each call its own).
final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    private var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    /// The share this handle uses, kept until the handle is cleaned up: libcurl refuses to
    /// clean up a share that easy handles still use (the shared connections then stayed
    /// open, and the share's locks were freed under libcurl).
    private var share: CurlShare?

    init() {
        _ = Curl.initialized
        handle = curl_easy_init()
    }

    deinit { curl_easy_cleanup(handle) }

    func perform(_ request: HTTPRequest, settings: TransportSettings, share: CurlShare, redactor: Redactor,
                 debug: (@Sendable (String) -> Void)?) throws(TransportFailure) -> HTTPResponse {
        curl_easy_reset(handle)
        let state = ExchangeState(limit: request.maxResponseBytes, redactor: redactor, debug: debug)
        let unmanaged = Unmanaged.passRetained(state)
        defer { unmanaged.release() }
        var headerList: UnsafeMutablePointer<curl_slist>? = nil
        defer { curl_slist_free_all(headerList) }
        var mime: OpaquePointer? = nil
        defer { if let mime { curl_mime_free(mime) } }
        let onceParts = OnceParts()

        configure(request, settings: settings, share: share)
        var headers = request.headers
        // No 100-continue round trip before bodies: servers answer at once. Not on a signed
        // request: libcurl 7.88 signs the empty header it then leaves out, and the storage
        // refuses the signature (SignatureDoesNotMatch).
        if request.awsSigV4 == nil { headers.append(("Expect", "")) }
        attachBody(request, headers: &headers, mime: &mime, parts: onceParts)
        for (name, value) in headers {
            headerList = curl_slist_append(headerList, "\(name): \(value)")
        }
        _ = om_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)
        installCallbacks(unmanaged.toOpaque(), debug: debug != nil)

        let code = curl_easy_perform(handle)
        if code != CURLE_OK {
            if onceParts.refusedResend {
                throw TransportFailure(code: Int(code.rawValue), message: "the connection closed before the answer came (libcurl would have sent the request again on a new one)", neverSent: false)
            }
            throw failure(code, state: state, request: request, redactor: redactor)
        }
        var status = 0
        _ = om_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var connects = 0
        _ = om_easy_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &connects)
        return HTTPResponse(status: status, headers: state.headers, body: state.body, newConnections: connects)
    }

    /// The options every exchange has: URL, protocols, connection cache, timeouts, TLS.
    private func configure(_ request: HTTPRequest, settings: TransportSettings, share: CurlShare) {
        errorBuffer.withUnsafeMutableBufferPointer { buffer in
            buffer[0] = 0
            _ = om_easy_setopt_ptr(handle, CURLOPT_ERRORBUFFER, buffer.baseAddress)
        }
        _ = om_easy_setopt_string(handle, CURLOPT_URL, request.url)
        self.share = share
        _ = om_easy_setopt_share(handle, share.handle)
        _ = om_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        // The shared cache keeps this many idle connections; libcurl's default
        // of 5 would close one each time more than 5 workers finish together.
        _ = om_easy_setopt_long(handle, CURLOPT_MAXCONNECTS, 64)
        _ = om_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, request.protocols)
        if let key = request.sshKeyFile { _ = om_easy_setopt_string(handle, CURLOPT_SSH_PRIVATE_KEYFILE, key) }
        if let hosts = request.sshKnownHosts { _ = om_easy_setopt_string(handle, CURLOPT_SSH_KNOWNHOSTS, hosts) }
        if let signing = request.awsSigV4 {
            _ = om_easy_setopt_string(handle, CURLOPT_AWS_SIGV4, signing.provider)
            _ = om_easy_setopt_string(handle, CURLOPT_USERPWD, signing.user)
        }
        _ = om_easy_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        _ = om_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, request.followRedirects ? 1 : 0)
        _ = om_easy_setopt_long(handle, CURLOPT_MAXREDIRS, 5)
        _ = om_easy_setopt_long(handle, CURLOPT_HTTP_VERSION,
                                Int(settings.http2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1))
        _ = om_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(settings.connectTimeout * 1000))
        _ = om_easy_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, settings.lowSpeedLimit)
        _ = om_easy_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, settings.lowSpeedTime)
        // Handles are reused: 0 takes a deadline of an earlier request off.
        _ = om_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, request.deadline.map { Int($0 * 1000) } ?? 0)
        _ = om_easy_setopt_string(handle, CURLOPT_USERAGENT, settings.userAgent)
        _ = om_easy_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "")
        if let caFile = settings.caFile { _ = om_easy_setopt_string(handle, CURLOPT_CAINFO, caFile) }
        if let caFolder = settings.caFolder { _ = om_easy_setopt_string(handle, CURLOPT_CAPATH, caFolder) }
        if settings.insecure {
            _ = om_easy_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 0)
            _ = om_easy_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0)
        }
    }

    /// The method and its body (JSON, or a multipart form in `mime`, which the caller frees
    /// after the exchange).
    private func attachBody(_ request: HTTPRequest, headers: inout [(String, String)], mime: inout OpaquePointer?,
                            parts: OnceParts) {
        guard request.method != .get else {
            _ = om_easy_setopt_long(handle, CURLOPT_HTTPGET, 1)
            return
        }
        if request.method != .post {
            _ = om_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method.rawValue)
        }
        switch request.body {
        case .none:
            if request.method == .post {
                _ = om_easy_setopt_long(handle, CURLOPT_POSTFIELDSIZE, 0)
                _ = om_easy_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, "")
            }
        case .json(let data):
            headers.append(("Content-Type", "application/json"))
            _ = om_easy_setopt_long(handle, CURLOPT_POSTFIELDSIZE, data.count)
            data.withUnsafeBytes { _ = om_easy_setopt_ptr(handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
        case .bytes(let data, let contentType):
            headers.append(("Content-Type", contentType))
            _ = om_easy_setopt_long(handle, CURLOPT_POSTFIELDSIZE, data.count)
            data.withUnsafeBytes { _ = om_easy_setopt_ptr(handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
        case .multipart(let fields):
            mime = curl_mime_init(handle)
            for field in fields {
                let part = curl_mime_addpart(mime)
                curl_mime_name(part, field.name)
                // Read once: libcurl cannot send it again by itself (see om_once_part).
                _ = om_mime_data_once(part, parts.add(field.data))
                curl_mime_type(part, field.contentType)
                if let filename = field.filename { curl_mime_filename(part, filename) }
            }
            _ = om_easy_setopt_mime(handle, mime)
        }
    }

    /// The body, header and (with `debug`) trace callbacks, all writing into the
    /// `ExchangeState` behind `context`.
    private func installCallbacks(_ context: UnsafeMutableRawPointer, debug: Bool) {
        _ = om_easy_setopt_ptr(handle, CURLOPT_WRITEDATA, context)
        _ = om_easy_setopt_write_function(handle, CURLOPT_WRITEFUNCTION) { pointer, size, count, user in
            let state = Unmanaged<ExchangeState>.fromOpaque(user!).takeUnretainedValue()
            let length = size * count
            guard state.body.count + length <= state.limit else {
                state.overflow = true
                return 0
            }
            if let pointer { state.body.append(UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: length) }
            return length
        }
        _ = om_easy_setopt_ptr(handle, CURLOPT_HEADERDATA, context)
        _ = om_easy_setopt_write_function(handle, CURLOPT_HEADERFUNCTION) { pointer, size, count, user in
            let state = Unmanaged<ExchangeState>.fromOpaque(user!).takeUnretainedValue()
            let length = size * count
            guard let pointer else { return length }
            let line = String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
            if line.hasPrefix("HTTP/") {
                state.headers = [:]  // a new response (after a redirect or 1xx)
            } else if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].lowercased()
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
                state.headers[name] = value
            }
            return length
        }
        guard debug else { return }
        _ = om_easy_setopt_long(handle, CURLOPT_VERBOSE, 1)
        _ = om_easy_setopt_ptr(handle, CURLOPT_DEBUGDATA, context)
        _ = om_easy_setopt_debug_function(handle) { _, type, text, size, user in
            let state = Unmanaged<ExchangeState>.fromOpaque(user!).takeUnretainedValue()
            guard let text, type == CURLINFO_TEXT || type == CURLINFO_HEADER_IN || type == CURLINFO_HEADER_OUT else { return 0 }
            let raw = String(decoding: UnsafeRawBufferPointer(start: text, count: size), as: UTF8.self)
            let prefix = type == CURLINFO_HEADER_OUT ? "> " : type == CURLINFO_HEADER_IN ? "< " : "* "
            for line in raw.split(whereSeparator: \.isNewline) where !line.isEmpty {
                state.debug?(prefix + state.redactor.scrub(String(line)))
            }
            return 0
        }
    }

    /// What a failed exchange was, and whether the request can be known never to have left.
    private func failure(_ code: CURLcode, state: ExchangeState, request: HTTPRequest, redactor: Redactor) -> TransportFailure {
        if state.overflow {
            return TransportFailure(code: Int(code.rawValue), message: "answer larger than \(request.maxResponseBytes) bytes",
                                    neverSent: false)
        }
        let detail = errorBuffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var connectTime: curl_off_t = 0
        _ = om_easy_getinfo_off(handle, CURLINFO_CONNECT_TIME_T, &connectTime)
        // A reused connection has no connect time: a timeout is "never sent" only when no
        // byte of the request left either.
        var requestBytes = 0
        _ = om_easy_getinfo_long(handle, CURLINFO_REQUEST_SIZE, &requestBytes)
        let neverSent = [CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT,
                         CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT].contains(code)
            || (code == CURLE_OPERATION_TIMEDOUT && connectTime == 0 && requestBytes == 0)
        return TransportFailure(code: Int(code.rawValue), message: redactor.scrub(detail.isEmpty ? Curl.describe(code) : detail),
                                neverSent: neverSent)
    }
}
