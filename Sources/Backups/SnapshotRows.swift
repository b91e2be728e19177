import CatalogSync
import Foundation
import Manifest
import ShopState

/// A snapshot's products as the rows of a sync (`openmarket restore`): each product is a
/// draft with every field it had and its stored photos (byte for byte), so that fields that
/// differ are put back, deleted products are made again and their keys linked to them. A
/// stored price that does not read as a number fails its product's row, naming the snapshot
/// and the key; it is never taken as 0.
public struct SnapshotRows: RowSource {
    public let snapshot: SnapshotInfo
    public let products: [SnapshotProduct]
    let repository: BackupRepository

    /// The snapshot's products, all or those of `keys` and `ids`; a key or id the snapshot
    /// does not have is an error naming it.
    public init(_ repository: BackupRepository, snapshot: SnapshotInfo, keys: [String] = [], ids: [Int] = []) throws {
        let all = try repository.products(of: snapshot)
        var chosen = all
        if !keys.isEmpty || !ids.isEmpty {
            chosen = all.filter { product in product.key.map(keys.contains) == true || ids.contains(product.id) }
            let unknown = keys.filter { key in !all.contains { $0.key == key } }
                + ids.filter { id in !all.contains { $0.id == id } }.map { "#\($0)" }
            if !unknown.isEmpty {
                throw BackupError(say: "b_no_product", snapshot.id, unknown.joined(separator: ", "))
            }
        }
        self.repository = repository
        self.snapshot = snapshot
        self.products = chosen
    }

    /// What a restore is, from the CLI or the console: a journal of this snapshot's own; no
    /// price guardrail (a restore is deliberate); the photos not compared (they are the
    /// server's stored copies, not the files a merchant sent) nor shrunk again; the report in
    /// `REPO/restores/`.
    public var journalName: String? { "restore-\(snapshot.id)" }

    public func reportPlace(dryRun: Bool, account: AccountState) -> ReportPlace? {
        .new(in: repository.url.appendingPathComponent("restores"), prefix: "restore")
    }

    public func shape(_ options: inout SyncOptions, useCaches: inout Bool) {
        options.force = true
        options.comparePhotos = false
        useCaches = false
    }

    public var kind: RunKind { .restore }
    public var label: String { "snapshot \(snapshot.id) of \(repository.url.path)" }
    public var manifest: URL? { nil }

    public func rows(into sink: any RowSink) throws {
        let names = products.map { DraftRows.RowNames(key: $0.key, id: $0.id, name: $0.fields.name) }
        let source = DraftRows(kind: kind, label: label, count: products.count, names: names) { [products, repository] feed in
            for (index, product) in products.enumerated() { feed.submit(Self.draft(product, row: index + 1, repository: repository)) }
        }
        try source.rows(into: sink)
    }

    /// A stored product as a draft: prices exactly as stored, photos from the repository.
    static func draft(_ product: SnapshotProduct, row: Int, repository: BackupRepository) -> ProductDraft {
        ProductDraft(row: row, key: product.key, id: product.id, fields: product.fields,
                     images: product.photos.map { .file(repository.photoURL($0)) })
    }
}
