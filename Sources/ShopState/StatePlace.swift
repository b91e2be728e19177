import Foundation

/// Where what openmarket remembers of accounts (links, facts, runs and their records, locks,
/// feeds' memory) lives for one command, chosen once: on this machine, one SQLite file per
/// account in its state folder; or in a PostgreSQL database every machine that reaches it
/// shares. Doors parse what they are given into a place (`chosen`) and never look at an
/// address again: every store, lock and record of the command comes from the place.
public enum StatePlace: Sendable, Hashable {
    /// This machine: the account's state folder.
    case machine
    /// A PostgreSQL database shared between machines (`postgres://USER@HOST[:PORT]/DB`).
    case database(URL)

    public struct Refusal: Error, CustomStringConvertible {
        public var description: String
    }

    /// The place `text` names, said where it came from (`--state`, `OPENMARKET_STATE`, a
    /// profile's `state`): the one reading of a state address in openmarket.
    public init(address text: String, from origin: String) throws(Refusal) {
        guard let url = URL(string: text), Self.databaseSchemes.contains(url.scheme?.lowercased() ?? "") else {
            throw Refusal(description: "\(origin): give a PostgreSQL address, postgres://USER@HOST[:PORT]/DB (got a \(URL(string: text)?.scheme ?? "plain") address)")
        }
        self = .database(url)
    }

    private static let databaseSchemes: Set<String> = ["postgres", "postgresql"]

    /// `--state` given, else the profile's `state`, else `OPENMARKET_STATE`, else the config
    /// file's `state` (the order the server and credentials are chosen in); none: this machine.
    public static func chosen(flag: String?, profile: String? = nil, environment: [String: String],
                              config: String? = nil) throws(Refusal) -> StatePlace {
        let candidates: [(String?, String)] = [(flag, "--state"), (profile, "the profile's state"),
                                               (environment["OPENMARKET_STATE"], "OPENMARKET_STATE"), (config, "the config file's state")]
        for case let (text?, origin) in candidates where !text.isEmpty { return try StatePlace(address: text, from: origin) }
        return .machine
    }

    /// Whether every machine that reaches the place shares it.
    public var isShared: Bool {
        if case .database = self { return true }
        return false
    }

    /// The database's address, for a shared place.
    public var database: URL? {
        if case .database(let url) = self { return url }
        return nil
    }

    /// The place as messages show it (a database without its password).
    public var shown: String {
        switch self {
        case .machine: "this machine"
        case .database(let url): PostgresConnection.shown(url.absoluteString)
        }
    }

    /// The store of the account named by `tag` (the hash of its server and identifier), kept
    /// in `folder` on this machine.
    public func store(tag: String, folder: URL) -> StoreAddress {
        switch self {
        case .machine: .file(folder.appendingPathComponent("links", isDirectory: true).appendingPathComponent("\(tag).sqlite"))
        case .database(let url): .database(url, account: tag)
        }
    }
}

/// The address of one account's link store: its SQLite file, or its rows in a shared
/// database. Made by a `StatePlace` (or `--links FILE`), never by reading a URL's scheme.
public enum StoreAddress: Sendable, Hashable, CustomStringConvertible {
    case file(URL)
    case database(URL, account: String)

    /// Whether the store is shared between machines.
    public var isShared: Bool {
        if case .database = self { return true }
        return false
    }

    /// The place the store is in.
    public var place: StatePlace {
        switch self {
        case .file: .machine
        case .database(let url, _): .database(url)
        }
    }

    /// The account the store belongs to: the tag in its file name or its address, the same
    /// for one account in either place (so that a run recorded with one reads with the other).
    public var tag: String {
        switch self {
        case .file(let url): url.deletingPathExtension().lastPathComponent
        case .database(_, let account): account
        }
    }

    /// The store of the account tagged `tag` in the same place: the same database, or the
    /// same folder.
    public func sibling(_ tag: String) -> StoreAddress {
        switch self {
        case .file(let url): .file(url.deletingLastPathComponent().appendingPathComponent("\(tag).sqlite"))
        case .database(let url, _): .database(url, account: tag)
        }
    }

    /// Whether there is a store to read (a SQLite file made by a run; a database is always
    /// there: an account that never ran has no rows in it).
    public var exists: Bool {
        switch self {
        case .file(let url): FileManager.default.fileExists(atPath: url.path)
        case .database: true
        }
    }

    /// The store's file, when it is one.
    public var file: URL? {
        if case .file(let url) = self { return url }
        return nil
    }

    /// The file that locks the account on this machine (`FOLDER/locks/<tag>.lock` beside
    /// `FOLDER/links/<tag>.sqlite`); nil for a shared store, locked in its database.
    public var lockFile: URL? {
        guard case .file(let url) = self else { return nil }
        return url.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("locks/\(tag).lock")
    }

    /// As reports and messages show it: a file's path, or a database's address without its
    /// password, with the account.
    public var description: String {
        switch self {
        case .file(let url): url.path
        case .database(let url, let account): "\(PostgresConnection.shown(url.absoluteString)) (account \(account))"
        }
    }
}

/// A file's device and inode: the same path made again is another file.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
