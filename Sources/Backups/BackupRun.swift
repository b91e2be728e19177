import CatalogExport
import CatalogSync
import Foundation
import Manifest
import OpenMarketAPI
import ShopState
import Support

/// Makes one snapshot: the list pages (every product's fields), the merchant keys from the
/// link store, and details and photos only for products the repository has never seen (on
/// this API a product's photos never change without a new id). A night with nothing new
/// costs the list pages.
public final class BackupRun: @unchecked Sendable {
    public let repository: BackupRepository
    let client: any Shop
    let account: AccountState?
    public var jobs = 4
    public var perPage = 500
    /// Told as products' photos are fetched (done, of how many).
    public var onProgress: (@Sendable (_ done: Int, _ total: Int) -> Void)?

    /// `account`: whose link store gives the merchant keys (none: ids only).
    public init(repository: BackupRepository, client: any Shop, account: AccountState?) {
        self.repository = repository
        self.client = client
        self.account = account
    }

    /// Blocking: call from a thread of its own. Throws `RunLock.Busy` when another run has the repository.
    public func run() throws -> SnapshotInfo {
        let started = Date()
        let lock = try repository.lock("backup")
        defer { lock.release() }
        repository.sweep()
        var config = try checkedConfig()
        let summaries = Summaries()
        let scan = CatalogScan(client: client, filter: CatalogFilter(vendor: config.vendorID.map { .id($0) } ?? .me), perPage: perPage)
        scan.onProducts = { summaries.add($0) }
        let listed = try scan.run()
        if config.vendorID == nil, let vendor = listed.vendorID {
            config.vendorID = vendor
            try repository.save(config)
        }
        // The merchant keys, read as export reads them (two columns, not every link decoded).
        let keys = try account?.linkedKeys() ?? [:]
        // Photos by product: from the last snapshot, else from what a killed run recorded.
        var known = try repository.list().last.map { try repository.products(of: $0) }
            .map { Dictionary($0.map { ($0.id, $0.photos) }, uniquingKeysWith: { first, _ in first }) } ?? [:]
        for id in listed.ids where known[id] == nil { known[id] = repository.knownPhotos(of: id) }
        // A photo the repository lost (what `check` calls missing) is fetched again with its product.
        for id in listed.ids where known[id]?.contains(where: { !FileManager.default.fileExists(atPath: repository.photoURL($0).path) }) == true {
            known[id] = nil
        }
        let fresh = listed.ids.filter { known[$0] == nil }
        var (photosAdded, bytesAdded, gone) = try fetchPhotos(fresh, describing: summaries)
        for id in fresh where !gone.contains(id) { known[id] = repository.knownPhotos(of: id) }
        // The 2021 and 2022-01 servers list no descriptions: each product's own page has it
        // (the new products' pages were just read for their photos).
        let undescribed = listed.ids.filter { !gone.contains($0) && summaries[$0].map { $0.description == nil } ?? false }
        gone.formUnion(try fillDescriptions(undescribed, into: summaries))
        var products: [SnapshotProduct] = []
        for id in listed.ids where !gone.contains(id) {
            guard let summary = summaries[id], let photos = known[id] else { continue }
            products.append(Self.product(summary, key: keys[id], photos: photos))
        }
        var info = SnapshotInfo(id: BackupRepository.newID(started), time: started, products: products.count, newProducts: fresh.count - gone.count,
                                photosAdded: photosAdded, bytesAdded: bytesAdded, seconds: 0)
        info.seconds = Date().timeIntervalSince(started)
        info.bytesAdded += try repository.publish(info, products: products)
        return info
    }

    /// The repository's account, made on the first backup; another account's repository is refused.
    private func checkedConfig() throws -> BackupRepository.Config {
        let server = client.address
        let account = self.account?.links.tag ?? ""
        if let config = repository.config() {
            guard config.account == account || account.isEmpty else {
                throw BackupError(say: "b_other_account", repository.url.path, config.server)
            }
            return config
        }
        let config = BackupRepository.Config(server: server, account: account, vendorID: nil)
        try repository.save(config)
        return config
    }

    /// Details and photos of products the repository has not seen, `jobs` at a time. A
    /// product deleted meanwhile (404) is left out of the snapshot.
    private func fetchPhotos(_ ids: [Int], describing summaries: Summaries) throws -> (photos: Int, bytes: Int, gone: Set<Int>) {
        var photos = 0, bytes = 0, done = 0
        var gone = Set<Int>()
        try OrderedWork.run(count: ids.count, jobs: jobs, window: jobs * 2, work: { [self] index -> Result<(Int, Int)?, any Error> in
            Result { try fetch(ids[index], describing: summaries) }
        }, deliver: { index, result in
            switch try result.get() {
            case nil: gone.insert(ids[index])
            case let (count, added)?:
                if added > 0 { photos += count }
                bytes += added
            }
            done += 1
            onProgress?(done, ids.count)
        })
        return (photos, bytes, gone)
    }

    /// Descriptions read from each product's page, `jobs` at a time; returns the products gone meanwhile.
    private func fillDescriptions(_ ids: [Int], into summaries: Summaries) throws -> Set<Int> {
        var gone = Set<Int>()
        try OrderedWork.run(count: ids.count, jobs: jobs, window: jobs * 2, work: { [self] index -> Result<ProductSummary?, any Error> in
            do throws(OpenMarketError) {
                return .success(try client.product(id: ids[index]).summary)
            } catch {
                return error.status == 404 ? .success(nil) : .failure(error)
            }
        }, deliver: { index, result in
            if let summary = try result.get() { summaries.describe(ids[index], summary.description ?? "") } else { gone.insert(ids[index]) }
        })
        return gone
    }

    /// One product's photos stored: how many new, and their bytes; nil when it is gone.
    private func fetch(_ id: Int, describing summaries: Summaries) throws -> (Int, Int)? {
        let detail: ProductDetail
        do { detail = try client.product(id: id) } catch {
            if error.status == 404 { return nil }
            throw error
        }
        if summaries[id]?.description == nil { summaries.describe(id, detail.summary.description ?? "") }
        var names: [String] = []
        var added = 0, new = 0
        for image in detail.images ?? [] {
            let bytes = try client.download(image.url, maxBytes: 16 << 20)
            let stored = try repository.store(photo: bytes)
            names.append(stored.name)
            added += stored.added
            if stored.added > 0 { new += 1 }
        }
        try repository.remember(photos: names, of: id)
        return (new, added)
    }

    static func product(_ summary: ProductSummary, key: String?, photos: [String]) -> SnapshotProduct {
        SnapshotProduct(id: summary.id, key: key, fields: Product(summary), createdAt: OpenMarketTimestamp.format(summary.createdAt), photos: photos)
    }

    /// The latest list fields of each product, from the scan's pages.
    final class Summaries: @unchecked Sendable {
        private let lock = NSLock()
        private var byID: [Int: ProductSummary] = [:]
        func add(_ products: [ProductSummary]) {
            lock.lock()
            for product in products { byID[product.id] = product }
            lock.unlock()
        }
        func describe(_ id: Int, _ description: String) {
            lock.lock()
            byID[id]?.description = description
            lock.unlock()
        }
        subscript(id: Int) -> ProductSummary? {
            lock.lock(); defer { lock.unlock() }
            return byID[id]
        }
    }
}
