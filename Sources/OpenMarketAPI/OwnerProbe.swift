import Foundation

/// The one harmless question that tells whose a product is and whether credentials are
/// accepted: asking for a product's delete key changes nothing, and only its owner is given
/// it (403 for another vendor's product, 404 for no such product). Asked of a product that
/// cannot exist, a 404 means the credentials were accepted and a 401 or 403 that they were not.
public enum OwnerProbe {
    public enum Ownership: Sendable, Equatable {
        case mine
        case anotherVendors
        case noSuchProduct
    }

    public enum Credentials: Sendable, Equatable {
        case accepted
        case refused(status: Int)
        /// The server answers the probe the same whatever the secret (a 404 for a product
        /// that does not exist before it looks at the credentials): nothing is known until a
        /// write. Never to be called "accepted".
        case untested
    }

    /// An id no product has (the API's ids are 32-bit).
    public static let impossibleID = Int(Int32.max)

    /// Whose the product is; a failure that is neither answer is thrown.
    public static func ownership(_ askForDeleteKey: () throws(OpenMarketError) -> String) throws(OpenMarketError) -> Ownership {
        do {
            _ = try askForDeleteKey()
            return .mine
        } catch {
            switch error.status {
            case 403: return .anotherVendors
            case 404: return .noSuchProduct
            default: throw error
            }
        }
    }

    /// Whether the credentials are accepted, asked with `impossibleID`; a failure that is
    /// neither answer (the server down) is thrown. A 404 is trusted only when the same
    /// question with a secret that cannot be right (`control`) is refused: a server that
    /// answers 404 before it checks credentials says 404 to both, and then it is `untested`.
    public static func credentials(_ askForDeleteKey: () throws(OpenMarketError) -> String,
                                   control: () throws(OpenMarketError) -> String) throws(OpenMarketError) -> Credentials {
        do {
            _ = try askForDeleteKey()
            return .accepted
        } catch {
            switch error.status {
            case 404: break
            case 401, 403: return .refused(status: error.status ?? 0)
            default: throw error
            }
        }
        do {
            _ = try control()
            return .untested
        } catch {
            switch error.status {
            case 401, 403: return .accepted
            case 404: return .untested
            default: throw error
            }
        }
    }
}
