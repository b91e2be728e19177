import Foundation
import OpenMarketAPI

/// The reads and writes of one vendor's shop that a run's decisions and writes need.
/// `OpenMarketClient` is the shop over HTTP; tests of the decisions (the planner, the
/// matcher, the live catalog) use a shop in memory and start no server. Every failure
/// is an `OpenMarketError`, as the server's.
public protocol Shop: Sendable {
    /// The server as reports and run records name it.
    var address: String { get }
    func page(_ number: Int, perPage: Int, search: String?) throws(OpenMarketError) -> ProductPage
    func product(id: Int) throws(OpenMarketError) -> ProductDetail
    func register(_ product: NewProduct, images: [UploadImage]) throws(OpenMarketError) -> ProductDetail
    func edit(id: Int, _ changes: ProductChanges) throws(OpenMarketError) -> ProductDetail
    /// Only the product's owner gets its delete key: 403 for another vendor's, 404 for none.
    func deleteKey(id: Int) throws(OpenMarketError) -> String
    func delete(id: Int) throws(OpenMarketError)
    func download(_ url: String, maxBytes: Int) throws(OpenMarketError) -> Data
    /// Answers so far that said the server is overloaded (429, 503) or timed out.
    var overloads: Int { get }
    /// Connections opened so far.
    var connectionsOpened: Int { get }
    /// The path before a product's id where the server shows it (for the report's links).
    var recordPath: String { get }
}

extension Shop {
    public var overloads: Int { 0 }
    public var connectionsOpened: Int { 0 }
    public var recordPath: String { "/api/products/" }
}

extension OpenMarketClient {
    public var connectionsOpened: Int { statistics.connections }
}

extension OpenMarketClient: Shop {
    public var address: String { configuration.server.absoluteString }
}
