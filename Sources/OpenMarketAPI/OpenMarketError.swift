/// Everything that can go wrong talking to an Open Market server, said so a
/// person can act on it. No case ever carries the identifier or the secret.
public enum OpenMarketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with an error status and (usually) a message.
    case http(endpoint: String, status: Int, message: String)
    /// No answer: libcurl's code and its own error text.
    case transport(endpoint: String, code: Int, message: String)
    /// A write may or may not have been applied: the request may have reached
    /// the server but no answer came back. Check the server before sending again.
    case ambiguous(endpoint: String, reason: String)
    /// The answer was not what the contract describes.
    case decoding(endpoint: String, detail: String)
    /// Retries ran out (attempts or total wait); the last failure is inside.
    case retriesExhausted(endpoint: String, attempts: Int, last: String)
    /// Refused before sending (bad URL, missing credentials…).
    case invalidRequest(String)
    /// The server answers, but as none of the three generations of Open Market servers.
    case unrecognized(server: String, seen: String)

    public var description: String {
        switch self {
        case let .http(endpoint, status, message):
            "\(endpoint): HTTP \(status)\(message.isEmpty ? "" : " — \(message)")"
        case let .transport(endpoint, code, message):
            "\(endpoint): no answer from the server (libcurl error \(code): \(message))"
        case let .ambiguous(endpoint, reason):
            "\(endpoint): the request may have reached the server, but no answer came back (\(reason)); check the server before sending it again"
        case let .decoding(endpoint, detail):
            "\(endpoint): the server's answer is not valid Open Market JSON (\(detail))"
        case let .retriesExhausted(endpoint, attempts, last):
            "\(endpoint): gave up after \(attempts) attempts; last: \(last)"
        case let .invalidRequest(message):
            message
        case let .unrecognized(server, seen):
            "\(server) is not an Open Market server of any known generation (2021, 2022-01, 2022-10): \(seen). Check --server (the server's root), or name the generation with --api"
        }
    }

    /// The server said nothing that could be read: the connection failed or broke, the answer
    /// was lost, or every retry went unanswered (a 5xx or a timeout each time). A refusal in
    /// words (a 4xx), a body that cannot be decoded or a request never made are answers.
    public var isNoAnswer: Bool {
        switch self {
        case .transport, .ambiguous, .retriesExhausted: true
        case .http(_, let status, _): status == 502 || status == 503 || status == 504
        case .decoding, .invalidRequest, .unrecognized: false
        }
    }

    /// The HTTP status, when the server answered.
    public var status: Int? {
        if case let .http(_, status, _) = self { return status }
        return nil
    }
}
