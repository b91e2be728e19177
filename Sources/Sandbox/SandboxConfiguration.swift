import Foundation
import OpenMarketContract

/// Faults the sandbox injects on purpose, for tests and rehearsals. All off by default.
/// They apply to every request except `GET /healthChecker`, so that a script can
/// always tell whether the sandbox is up.
public struct FaultInjection: Sendable, Equatable {
    /// Probability (0…1) of answering with an error before doing anything.
    public var failRate: Double = 0
    /// The statuses those failures use, picked at random (default: 500).
    public var failStatuses: [Int] = [500]
    /// Added delay before each answer, in milliseconds.
    public var latencyMilliseconds: Int = 0
    /// Probability (0…1) of closing the connection without an answer, after the
    /// request has been read. For a register (`POST /api/products`) the product
    /// is stored first: the ambiguous case a client must survive.
    public var dropRate: Double = 0
    /// Requests per second accepted across all clients; beyond it, 429 with
    /// `Retry-After`. nil: no limit.
    public var rateLimitPerSecond: Int? = nil
    /// At most this many requests served at once (each taking `latencyMilliseconds`); the
    /// others wait their turn, as in a busy server's pool: answers slow down as more are in
    /// flight, and throughput stops growing. nil: no such limit.
    public var workers: Int? = nil
    /// A register (`POST /api/products`) is read, then nothing is said for this long, then the
    /// product is stored and answered: a slow server, whose client may give up first. 0: off.
    public var storeLateMilliseconds = 0
    /// After this many writes (POST, PATCH, DELETE) are answered, the server answers no
    /// write again: each is read and held, silent, stored nowhere (reads are still answered).
    /// A server that stopped answering mid-run. nil: off.
    public var silentAfterWrites: Int? = nil
    /// A gate a test shuts and opens (`RequestGate`): a run held in the middle for as long as
    /// the test needs. Not a command-line option. nil: off.
    public var gate: RequestGate? = nil

    public init(failRate: Double = 0, failStatuses: [Int] = [500], latencyMilliseconds: Int = 0, dropRate: Double = 0,
                rateLimitPerSecond: Int? = nil, workers: Int? = nil) {
        self.failRate = failRate
        self.failStatuses = failStatuses.isEmpty ? [500] : failStatuses
        self.latencyMilliseconds = latencyMilliseconds
        self.dropRate = dropRate
        self.rateLimitPerSecond = rateLimitPerSecond
        self.workers = workers
    }

    public var isActive: Bool {
        failRate > 0 || latencyMilliseconds > 0 || dropRate > 0 || rateLimitPerSecond != nil || workers != nil || storeLateMilliseconds > 0
            || silentAfterWrites != nil || gate != nil
    }
}

/// Limits against abuse: nothing a client sends may exhaust the sandbox.
public struct SandboxLimits: Sendable, Equatable {
    /// Largest request body read, in bytes (five full images plus params fit easily).
    public var maxBodyBytes = 8 * 1024 * 1024
    /// Largest number of multipart parts in one register request.
    public var maxParts = 16
    /// Largest `items_per_page` accepted.
    public var maxItemsPerPage = 500
    /// Largest image file accepted, in bytes: the contract's 300 KB.
    public var maxImageBytes = ProductRules.maxImageBytes

    public init() {}
}

/// The generation of the real server the sandbox plays (`sandbox --api`): its endpoints,
/// its JSON and its errors, each written here apart from the client's models.
public enum SandboxAPI: String, Sendable, CaseIterable {
    case v2021 = "2021"
    case v2022January = "2022-01"
    case v2022October = "2022-10"
}

public struct SandboxConfiguration: Sendable {
    /// The generation played. Default: the last (the contract).
    public var api: SandboxAPI = .v2022October
    /// Asking for the delete key of a product that does not exist answers 404 before the
    /// credentials are looked at (as a live 2022-10 server was seen to): a probe with an
    /// impossible id then cannot tell a wrong secret from a right one.
    public var notFoundBeforeCredentials = false
    /// Address to listen on. The default keeps the sandbox on this machine.
    public var host: String = "127.0.0.1"
    /// 0 picks a free port.
    public var port: Int = 8080
    /// Folder for the SQLite database and the image files.
    public var dataDirectory: URL
    /// Currencies accepted by register and edit.
    public var currencies: [String] = ProductRules.sandboxCurrencies
    public var faults = FaultInjection()
    public var limits = SandboxLimits()
    /// Long edge of generated thumbnails, in pixels.
    public var thumbnailMaxEdge = 360
    /// Log one line per request.
    public var logRequests = false
    /// HTTPS (HTTP/2 by ALPN, HTTP/1.1 otherwise) with this certificate chain and key (PEM
    /// files), as real servers speak; nil: plain HTTP.
    public var tls: (certificate: URL, key: URL)?
    /// Seconds a keep-alive connection may sit idle before the server closes it, as real
    /// servers do (nginx 75 s, Apache 5 s): the race in which a client sends on a connection
    /// the server is closing. Also bounds a graceful stop with a client's idle HTTP/2
    /// connection open (libcurl keeps them, and answers no PING while idle).
    public var idleTimeout: Double = 60

    public static let defaultDataDirectory = ".openmarket/sandbox"

    public init(dataDirectory: URL = URL(fileURLWithPath: SandboxConfiguration.defaultDataDirectory)) {
        self.dataDirectory = dataDirectory
    }
}
