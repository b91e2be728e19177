import Foundation
import Words
import OpenMarketAPI
import ShopState
import Support

/// Where openmarket keeps what it knows of one vendor account on one server: the link
/// store (identity), the journals that carry runs through crashes, the migrations' journals.
/// Every command that reads or writes an account's products finds them here, so that they
/// agree whatever folder they run in.
public struct AccountState: Sendable {
    /// The built-in sandbox's data folder (clearing the sandbox clears it), else
    /// `$XDG_STATE_HOME/openmarket`.
    public let folder: URL
    /// The server as part of the account's name: the built-in sandbox listens on a new
    /// port each run, so it is named by its data folder (where this state lives anyway).
    public let serverName: String
    /// How `serverName` names the built-in sandbox.
    public static let builtInSandboxName = "built-in sandbox"
    public let identifier: String
    /// Where the account's links, facts, runs and locks live: this machine (`folder`), or a
    /// database shared between machines (`--state postgres://…`), chosen once by the command.
    public let place: StatePlace
    /// `--links FILE`: a store the merchant named instead of the account's own.
    private var named: StoreAddress?

    public init(shop: any Shop, sandboxData: URL?, place: StatePlace = .machine) {
        folder = sandboxData ?? StateFolder.url
        serverName = sandboxData != nil ? Self.builtInSandboxName : shop.address
        identifier = shop.writer?.account ?? ""
        self.place = place
    }

    /// The same account with its links kept in `store` (`--links FILE`); nil keeps its own.
    public func keeping(links store: StoreAddress?) -> AccountState {
        var account = self
        if let store { account.named = store }
        return account
    }

    /// The account's name in its place: a hash of the server and the identifier, so that a
    /// file's name does not show the identifier.
    public var tag: String { FNV.tag(serverName + "|" + identifier) }

    /// The account's link store (merchant key → product): a file whose name does not show the
    /// identifier, or the account's rows in the shared database.
    public var links: StoreAddress { named ?? place.store(tag: tag, folder: folder) }

    /// The account's store, open (one per store for the process): the one way a door reaches
    /// an account's links, runs and feed memory. Nil when the account keeps none yet (a read
    /// needs no empty file made; a database is always there).
    public func store() throws(LinkStore.Failure) -> LinkStore? { try Self.kept(links) }

    /// The account's store, made when it has none yet (a run that writes).
    public func openStore() throws(LinkStore.Failure) -> LinkStore { try Self.open(links) }

    /// The store of the account named by `tag` in `place` (a feed's shops, known by tag only).
    public static func store(tag: String, folder: URL, place: StatePlace) throws(LinkStore.Failure) -> LinkStore? {
        try kept(place.store(tag: tag, folder: folder))
    }

    /// The store at `address`, open, made if needed. The one place openmarket opens a store:
    /// doors through the account, a run (its links, records, undo, moves) through its options' address.
    static func open(_ address: StoreAddress) throws(LinkStore.Failure) -> LinkStore { try LinkStore.open(address) }

    /// The store at `address` when there is one (a file made by a run, or a database).
    static func kept(_ address: StoreAddress) throws(LinkStore.Failure) -> LinkStore? {
        address.exists ? try open(address) : nil
    }

    /// The merchant keys this account's imports linked to products, by product id (export's key
    /// column, a snapshot's keys); none when the account never imported.
    public func linkedKeys() throws -> [Int: String] {
        try store()?.keysByProductID() ?? [:]
    }

    /// One journal per manifest name and account. It only carries runs of that file through
    /// crashes: identity is in the link store.
    public func journal(for manifest: URL) -> URL {
        let account = serverName + "|" + identifier
        return folder.appendingPathComponent("journals")
            .appendingPathComponent("\(manifest.lastPathComponent)-\(FNV.tag(manifest.path + "|" + account)).journal")
    }

    /// The journal of a run that reads no file (a restore of one snapshot, a delete), by name.
    public func journal(forRun name: String) -> URL {
        folder.appendingPathComponent("journals")
            .appendingPathComponent("\(name)-\(FNV.tag(name + "|" + serverName + "|" + identifier)).journal")
    }

    /// Why a server that did not answer its health check is not one to write to, said so
    /// that the merchant knows what to change: a server that answered 404 is there, it is only
    /// not an Open Market server at that URL (often a path such as /api after the host).
    static func unanswered(_ address: String, _ error: OpenMarketError) -> Phrase {
        guard let status = error.status else { return Phrase("s_no_answer", "\(error)") }
        guard let server = URL(string: address) else { return Phrase("s_health_status", address, String(status)) }
        let path = server.path
        if status == 404 {
            guard !path.isEmpty && path != "/" else { return Phrase("s_not_open_market_root", server.absoluteString) }
            return Phrase("s_not_open_market_path", server.absoluteString, path,
                          "\(server.scheme ?? "https")://\(server.host ?? "host")\(server.port.map { ":\($0)" } ?? "")")
        }
        return Phrase("s_health_status", server.absoluteString, String(status))
    }

    /// The account's lock file on this machine (`FOLDER/locks/<tag>.lock`): one run that writes
    /// at a time (import, feed runs, migrate, restore, delete, undo). A shared account is locked
    /// in its database instead.
    public var lockURL: URL { links.lockFile ?? folder.appendingPathComponent("locks/\(tag).lock") }

    /// Takes the lock of the account whose store is `links` at once, or stops (exit 5) naming
    /// the run that holds it. Without a link store (tests that keep none) there is nothing to lock.
    public static func lock(links: StoreAddress?, holder: String, shard: ShardRun? = nil) throws(SyncStop) -> (any HeldLock)? {
        guard let links else { return nil }
        do {
            if let shard { return try AccountLocks.take(links, holder: holder, run: shard.run, part: shard.shard.description) }
            return try AccountLocks.take(links, holder: holder)
        } catch let unshared as AccountLocks.NotShared {
            throw SyncStop(unshared.description, cause: .input)
        } catch let busy as RunLock.Busy {
            throw SyncStop(say: "s_busy", busy.description, cause: .busy)
        } catch {
            let place = links.lockFile?.path ?? "in the shared state"
            throw SyncStop(say: "s_lock", place, "\(error)", cause: .input)
        }
    }

    /// A redirect where credentials go: never followed (the secret stays with the address the
    /// merchant named), and nothing is sent.
    static func redirected(_ status: Int, _ address: String?) -> SyncStop {
        SyncStop(say: "s_redirected", String(status), address ?? "", cause: .unreachable)
    }

    /// Reachable, and the credentials accepted, before anything is written: an `SyncStop`
    /// with exit code 3 if not (2 without credentials).
    /// Returns whether the credentials were seen accepted (false: the server cannot tell
    /// before a write, and the run's first write goes alone).
    @discardableResult
    public static func preflight(_ shop: any Shop) throws(SyncStop) -> Bool {
        do { _ = try shop.health() } catch { throw SyncStop(Self.unanswered(shop.address, error), cause: .unreachable) }
        guard let writer = shop.writer else {
            throw SyncStop(say: "s_no_credentials", cause: .input)
        }
        if case .password = writer, (try? shop.capabilities())?.vendors == true {
            throw SyncStop(say: "s_secret_alone", cause: .input)
        }
        // Anything but a refusal or a redirect goes on: the first request of the run says the rest.
        let checked: OwnerProbe.Credentials?
        do { checked = try shop.checkCredentials() } catch {
            if let status = error.status, (300..<400).contains(status) { throw redirected(status, shop.address) }
            checked = nil
        }
        switch checked {
        case .refused(let status)?:
            throw SyncStop(say: "s_refused", String(status), cause: .unreachable, refusedStatus: status)
        case .accepted?: return true
        case .untested?, nil: return false
        }
    }
}
