import Foundation
import Words
import OpenMarketAPI
import ShopState
import Support

/// Products named to be deleted (`openmarket delete`, `migrate --then-delete-source`): by
/// merchant key, or `#ID`. A bare number is a merchant key when one is linked, else a
/// product id (said so in the row's note). Each goes through the product writer: saved with
/// its photos in the run's record first (undo makes it again), then deleted, its key
/// unlinked; the run is recorded and listed by `runs`. Only this vendor's products are
/// deleted: a name that is no product of the account fails its row, naming it.
public struct DeleteRows: RowSource {
    public let names: [String]
    public let label: String
    /// Why each is deleted, in the report (`named on the command line`).
    public let reason: String

    public init(_ names: [String], reason: String = "named on the command line", label: String? = nil) {
        self.names = names
        self.reason = reason
        self.label = label ?? names.joined(separator: " ")
    }

    public var kind: RunKind { .delete }
    public var manifest: URL? { nil }
    public var journalName: String? { "delete" }

    /// In the account's folder: a delete reads no file to put its report beside.
    public func reportPlace(dryRun: Bool, account: AccountState) -> ReportPlace? {
        .new(in: account.folder.appendingPathComponent("reports"), prefix: dryRun ? "delete-plan" : "delete")
    }

    /// Deletes send no photo: nothing to shrink or read.
    public func shape(_ options: inout SyncOptions, useCaches: inout Bool) { useCaches = false }

    public func rows(into sink: any RowSink) throws {
        try sink.delete(names, reason: reason)
    }
}

extension DeleteRows {
    public struct Unknown: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// The product id a name on the command line means (delete, show): a linked key, `#ID`,
    /// or a bare number that no key is (said in `note`).
    public static func productID(named name: String, link: (String) throws -> ProductLink?) rethrows -> Result<(id: Int, note: String?), Unknown> {
        if let link = try link(name), !link.byName {
            guard let linked = link.productID, link.state == .linked else {
                return .failure(Unknown(message: "key \(name): its product is not known yet (a create whose answer was lost); run the import again first"))
            }
            return .success((linked, nil))
        }
        if name.hasPrefix("#"), let number = Int(name.dropFirst()), number > 0 { return .success((number, nil)) }
        if let number = Int(name), number > 0 { return .success((number, "no key \(name) is linked: taken as product #\(number)")) }
        return .failure(Unknown(message: "no product of this account has the key \(name) (`openmarket export --out DIR` writes this account's products with their keys; a product id is written #ID)"))
    }
}

extension SyncRun {
    /// Deletes the named products of this vendor (or, in a dry run, lists them).
    public func delete(_ names: [String], reason: String) throws {
        setTotal(names.count)
        let planner = try plan()
        var targets: [MissingProduct] = []
        var seen = Set<Int>()
        for (index, name) in names.enumerated() {
            // A product id on a server whose list names no owner (2021): asked first.
            if let number = Int(name.hasPrefix("#") ? String(name.dropFirst()) : name) {
                do { try planner.openUnsure(id: number) } catch {
                    finish(.failed(row: index + 1, key: name, name: "", error: "asking whether product #\(number) is this merchant's failed: \(error)"))
                    continue
                }
            }
            switch Self.resolve(name, links: planner.links, live: planner.live) {
            case .success(let found):
                guard seen.insert(found.product.id).inserted else {
                    finish(.skipped(row: index + 1, key: name, notes: [Phrase("n_named_twice", String(found.product.id))]))
                    continue
                }
                targets.append(MissingProduct(product: found.product, link: found.link,
                                              reason: [reason, found.note].compactMap { $0 }.joined(separator: "; ")))
            case .failure(let problem):
                finish(.failed(row: index + 1, key: name, name: "", error: problem.message))
            }
        }
        try recordRunStart()
        deleteMissing(targets)
    }

    /// The product a name means, when it is this account's on the server.
    static func resolve(_ name: String, links: LinkTable, live: LiveCatalog)
        -> Result<(product: ProductSummary, link: ProductLink?, note: String?), DeleteRows.Unknown> {
        let linkOfProduct = Dictionary(links.values.compactMap { link in link.productID.map { ($0, link) } }, uniquingKeysWith: { a, _ in a })
        let id: Int, note: String?
        switch DeleteRows.productID(named: name, link: { links[$0] }) {
        case .success(let found): (id, note) = found
        case .failure(let unknown): return .failure(unknown)
        }
        guard let product = live.products[id] else {
            let what = name.hasPrefix("#") || note != nil ? "product #\(id)" : "key \(name) (product #\(id))"
            return .failure(DeleteRows.Unknown(message: "\(what) is not a product of this account on the server: already deleted, or another vendor's"))
        }
        return .success((product, linkOfProduct[id], note))
    }
}
