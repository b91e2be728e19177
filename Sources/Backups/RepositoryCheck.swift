import Support
import Foundation

extension BackupRepository {
    public struct CheckResult: Sendable {
        public var snapshots = 0
        public var photos = 0
        /// One line per problem: the photo (or file), what is wrong, the products that use it.
        public var problems: [String] = []
        public var isClean: Bool { problems.isEmpty }
    }

    /// Every snapshot readable and every photo it uses present; with `readData`, each
    /// photo's bytes hashed and compared with its name. Problems name the products that use
    /// the photo.
    public func check(readData: Bool) -> CheckResult {
        var result = CheckResult()
        var users: [String: [String]] = [:]
        for snapshot in list() {
            result.snapshots += 1
            do {
                for product in try products(of: snapshot) {
                    for photo in product.photos { users[photo, default: []].append("\(product.label) in \(snapshot.id)") }
                }
            } catch {
                result.problems.append("snapshot \(snapshot.id): its product list cannot be read (\(error)); `forget` it or restore from another")
            }
        }
        for (photo, products) in users.sorted(by: { $0.key < $1.key }) {
            result.photos += 1
            let url = photoURL(photo)
            let shown = products.prefix(5).joined(separator: ", ") + (products.count > 5 ? " and \(products.count - 5) more" : "")
            guard let data = try? Data(contentsOf: url) else {
                result.problems.append("photo \(photo) is missing; used by \(shown). The next backup fetches it again while its product is in the shop")
                continue
            }
            if readData, Self.photoName(data) != photo {
                result.problems.append("photo \(photo) is damaged (its bytes do not hash to its name); used by \(shown). Delete \(url.path): the next backup fetches it again while its product is in the shop")
            }
        }
        return result
    }
}
