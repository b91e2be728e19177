import Foundation
import OpenMarketContract

/// The three generations of the real Open Market server. A shop may be on any of them;
/// the client finds which from the server's own answers (`OpenMarketClient.generation()`),
/// or is told with `--api`.
public enum ServerGeneration: String, Sendable, CaseIterable, Codable {
    /// `/items/{page}`, `/item/{id}`: no vendors, a password per item, integer prices,
    /// `discounted_price` the sale price, errors `{"error", "reason"}`, no health check.
    case v2021 = "2021"
    /// `/api/products` with snake_case page keys, `descriptions` in request bodies, the
    /// product's own secret from `/secret` to delete.
    case v2022January = "2022-01"
    /// `/api/products` with camelCase page keys, `description`, `/archived` to delete.
    case v2022October = "2022-10"

    /// One line for `doctor` and `health`.
    public var summary: String {
        switch self {
        case .v2021: "2021 (/items and /item/{id}; a password per item, no vendor accounts)"
        case .v2022January: "2022-01 (/api/products, snake_case pages, delete through /secret)"
        case .v2022October: "2022-10 (/api/products, camelCase pages, delete through /archived)"
        }
    }

    /// Whether writes are a vendor's (identifier and secret) or an item's (a password).
    public var hasVendors: Bool { self != .v2021 }

    /// The generation named by `--api`, or nil.
    public init?(option text: String) {
        let wanted = text.lowercased()
        guard let match = Self.allCases.first(where: { $0.rawValue == wanted })
            ?? ["v1": .v2021, "2022-08": .v2022January, "2022-11": .v2022October][wanted] else { return nil }
        self = match
    }
}

/// What one client learnt of its server's generation. Per client, not per address: a
/// process that outlives a server (a test run, a port used again) must not take the next
/// server at that address for the last one.
struct GenerationFound {
    var generation: ServerGeneration?
    /// `/healthChecker` answered: a 2022 server, whose first list page then says which of
    /// the two (no request of its own).
    var answersHealth = false
}

/// One generation's shop over the client's transport: its endpoints, the names in its
/// bodies, the shape of its answers, each read into the contract's models. The client picks
/// one once it knows the generation; nothing above the client knows which.
protocol WireShop: Shop {
    var client: OpenMarketClient { get }
    /// The harmless question only the owner gets a yes to (see `Shop.deleteKey`), asked with
    /// the credentials' secret, or with `secret` (the credentials probe's control).
    func ownerCheck(id: Int, secret: String?) throws(OpenMarketError) -> String
}

extension WireShop {
    var address: String { client.address }
    var writer: ShopWriter? { client.writer }
    var overloads: Int { client.overloads }
    var connectionsOpened: Int { client.connectionsOpened }

    func deleteKey(id: Int) throws(OpenMarketError) -> String { try ownerCheck(id: id, secret: nil) }

    func download(_ url: String, maxBytes: Int) throws(OpenMarketError) -> Data {
        try client.download(url, maxBytes: maxBytes)
    }

    func checkCredentials() throws(OpenMarketError) -> OwnerProbe.Credentials {
        try OwnerProbe.credentials({ () throws(OpenMarketError) -> String in try deleteKey(id: OwnerProbe.impossibleID) },
                                   control: { () throws(OpenMarketError) -> String in
            // The same identifier with a secret nobody has, on the same connection: what a
            // wrong secret is answered.
            try ownerCheck(id: OwnerProbe.impossibleID, secret: "openmarket-control-" + UUID().uuidString)
        })
    }
}

extension OpenMarketClient {
    /// The wire of the server's generation (found once, see `generation()`).
    func wire() throws(OpenMarketError) -> any WireShop {
        wire(for: try generation())
    }

    func wire(for generation: ServerGeneration) -> any WireShop {
        switch generation {
        case .v2021: Wire2021(client: self)
        case .v2022January, .v2022October: Wire2022(client: self, generation: generation)
        }
    }

    /// The generation of the server: `--api` when given, else found from the server's
    /// answers once (the list endpoint that answers, and the keys of its page) and
    /// remembered by this client (one per server and run). A server that matches none is said so with what it
    /// answered. A server that does not answer is the transport's error, and nothing is
    /// remembered.
    public func generation() throws(OpenMarketError) -> ServerGeneration {
        if let known = knownGeneration { return known }
        let found = try probeGeneration()
        remember(found)
        return found
    }

    /// Where the server shows one product (`/item/` on a 2021 server, `/api/products/` on the
    /// others), for links in reports; the generation as found so far, without asking.
    public var recordPath: String { wire(for: knownGeneration ?? .v2022October).recordPath }

    /// The generation when told or already found, without asking.
    var knownGeneration: ServerGeneration? {
        configuration.generation ?? found.withLock { $0.generation }
    }

    func remember(_ generation: ServerGeneration) {
        found.withLock { $0.generation = generation }
    }

    /// Whether a list page's keys are the 2022-10 server's camelCase or the 2022-01 server's snake_case.
    static func generation2022(ofPage body: Data) -> ServerGeneration? {
        let keys = topLevelKeys(body)
        if keys.contains("pageNo") || keys.contains("itemsPerPage") || keys.contains("totalCount") { return .v2022October }
        if keys.contains("page_no") || keys.contains("items_per_page") || keys.contains("total_count") { return .v2022January }
        return nil
    }

    private func probeGeneration() throws(OpenMarketError) -> ServerGeneration {
        let listEndpoint = "GET /api/products?page_no=1&items_per_page=1"
        var seen: [String] = []
        do {
            let answer = try send(.shopRead(baseURL + "/api/products?page_no=1&items_per_page=1"),
                                  endpoint: listEndpoint)
            if let found = Self.generation2022(ofPage: answer.body) { return found }
            let keys = Self.topLevelKeys(answer.body)
            seen.append("/api/products answered 200 with \(keys.isEmpty ? "no JSON object" : "keys " + keys.sorted().joined(separator: ", "))")
        } catch {
            guard let status = error.status else { throw error }
            seen.append("/api/products answered HTTP \(status)")
        }
        do {
            let answer = try send(.shopRead(baseURL + "/items/1"), endpoint: "GET /items/1")
            let keys = Self.topLevelKeys(answer.body)
            if keys.contains("items") { return .v2021 }
            seen.append("/items/1 answered 200 with \(keys.isEmpty ? "no JSON object" : "keys " + keys.sorted().joined(separator: ", "))")
        } catch {
            guard let status = error.status else { throw error }
            seen.append("/items/1 answered HTTP \(status)")
        }
        throw .unrecognized(server: configuration.server.absoluteString, seen: seen.joined(separator: "; "))
    }

    static func topLevelKeys(_ body: Data) -> Set<String> {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return [] }
        return Set(object.keys)
    }
}
