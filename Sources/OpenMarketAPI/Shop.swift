import Foundation
import OpenMarketContract
import Support

/// One vendor's shop on one server: the reads and writes every command needs, and what the
/// server can and cannot do (`capabilities`), so that nothing above a shop asks which
/// generation it is. Each generation is a shop of its own over the client's transport
/// (`Wire2021`, `Wire2022`); `OpenMarketClient` is the shop that finds its server's
/// generation from the answers and speaks through that one. Tests of the sync, export and
/// backup use a shop in memory and start no server. Every failure is an `OpenMarketError`,
/// as the server's.
public protocol Shop: Sendable {
    /// The server as reports and run records name it.
    var address: String { get }
    /// Who writes, as the account is named within its server; nil without credentials.
    var writer: ShopWriter? { get }
    /// What this server's generation can do (asks the server once when not yet known).
    func capabilities() throws(OpenMarketError) -> ShopCapabilities
    /// The server's own health answer (`OK`).
    func health() throws(OpenMarketError) -> String
    /// Whether the server accepts the credentials, asked without writing (see `OwnerProbe`).
    func checkCredentials() throws(OpenMarketError) -> OwnerProbe.Credentials
    func page(_ number: Int, perPage: Int, search: String?) throws(OpenMarketError) -> ProductPage
    func product(id: Int) throws(OpenMarketError) -> ProductDetail
    /// Throws `.ambiguous` when the request may have created a product without an answer coming back.
    func register(_ product: Product, images: [UploadImage]) throws(OpenMarketError) -> ProductDetail
    /// Only the fields given change.
    func edit(id: Int, _ changes: ProductPatch) throws(OpenMarketError) -> ProductDetail
    /// The harmless question only the product's owner gets a yes to: 403 for another
    /// vendor's, 404 for none.
    func deleteKey(id: Int) throws(OpenMarketError) -> String
    /// A 404 on a retried delete means an earlier attempt deleted it, and counts as done.
    func delete(id: Int) throws(OpenMarketError)
    /// A file (a photo) by absolute http(s) URL, refusing answers over `maxBytes`.
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
    public func capabilities() throws(OpenMarketError) -> ShopCapabilities { .current }
    public func health() throws(OpenMarketError) -> String { "OK" }

    /// Whose product `id` is (see `OwnerProbe`).
    public func ownership(of id: Int) throws(OpenMarketError) -> OwnerProbe.Ownership {
        try OwnerProbe.ownership { () throws(OpenMarketError) -> String in try deleteKey(id: id) }
    }
}

/// Who writes to a shop: a vendor (its identifier and secret), or — on a 2021 server, whose
/// items take a password and no identifier — the holder of a password, named by a
/// fingerprint of it (never the password itself): the items one password opens are one
/// merchant's shop.
public enum ShopWriter: Sendable, Equatable {
    case vendor(identifier: String)
    case password(fingerprint: String)

    public init(_ credentials: VendorCredentials) {
        if !credentials.identifier.isEmpty {
            self = .vendor(identifier: credentials.identifier)
        } else {
            let hash = SHA256.hash(data: Data(("openmarket 2021 password|" + credentials.secret).utf8)).hex
            self = .password(fingerprint: String(hash.prefix(16)))
        }
    }

    /// The account's name within its server (link stores and journals are named by it).
    public var account: String {
        switch self {
        case .vendor(let identifier): identifier
        case .password(let fingerprint): "password " + fingerprint
        }
    }
}

/// What a server's generation can do, said once by the shop instead of generation checks
/// in the engine above it.
public struct ShopCapabilities: Sendable, Equatable {
    /// Prices are whole amounts (a row with cents fails validation, naming the rule).
    public var wholeAmounts: Bool
    /// Writes are a vendor's (identifier and secret); false: each item's password.
    public var vendors: Bool
    /// List pages name each product's vendor.
    public var ownersListed: Bool
    /// List pages say how many products there are (else the end is the first empty page).
    public var totalsKnown: Bool
    /// How a product is deleted, as `doctor` says it.
    public var deletion: String

    public init(wholeAmounts: Bool, vendors: Bool, ownersListed: Bool, totalsKnown: Bool, deletion: String) {
        self.wholeAmounts = wholeAmounts
        self.vendors = vendors
        self.ownersListed = ownersListed
        self.totalsKnown = totalsKnown
        self.deletion = deletion
    }

    /// The contract's server (2022-10), and a shop in memory.
    public static let current = ShopCapabilities(wholeAmounts: false, vendors: true, ownersListed: true, totalsKnown: true,
                                                 deletion: "the key from /archived")
}
