import Foundation
import ShopState
import Words

/// What changed between two snapshots (by product id: a product deleted and made again
/// has a new id, and shows as deleted and created).
public struct SnapshotDiff: Sendable {
    public struct Change: Sendable {
        public var product: SnapshotProduct
        public var fields: [FieldChange]
        /// The key the product had, when it had another.
        public var formerKey: String?

        /// `price 1300 → 1500 (+15.4 %); stock 4 → 0`
        public var text: String { phrase.text(.en) }

        /// The same in the reader's language.
        public var phrase: Phrase {
            .list(fields.map(\.phrase) + (formerKey.map { [FieldChange.phrase(field: "key", old: $0, new: product.key ?? "", suffix: "")] } ?? []),
                  separator: "; ")
        }
    }

    public var created: [SnapshotProduct] = []
    public var deleted: [SnapshotProduct] = []
    public var changed: [Change] = []

    public init(from old: [SnapshotProduct], to new: [SnapshotProduct]) {
        let before = Dictionary(old.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(new.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        created = new.filter { before[$0.id] == nil }
        deleted = old.filter { after[$0.id] == nil }
        for product in new {
            guard let earlier = before[product.id] else { continue }
            if let change = Self.change(earlier, product) { changed.append(change) }
        }
    }

    /// What changed on one product between two snapshots (the product diff every command uses), if anything.
    static func change(_ old: SnapshotProduct, _ new: SnapshotProduct) -> Change? {
        let fields = old.fields.changes(to: new.fields)
        let keyMoved = old.key != new.key
        guard !fields.isEmpty || keyMoved else { return nil }
        return Change(product: new, fields: fields, formerKey: keyMoved ? (old.key ?? "") : nil)
    }

    /// One line per product: `+ KEY #ID name`, `- …`, `~ KEY #ID price 1300 → 1500; stock 4 → 0`.
    public var lines: [String] {
        created.map { "+ \(Self.name($0)) \($0.fields.name)" } + deleted.map { "- \(Self.name($0)) \($0.fields.name)" }
            + changed.map { change in
                "~ \(Self.name(change.product)) " + change.text
            }
    }

    static func name(_ product: SnapshotProduct) -> String { product.key.map { "\($0) #\(product.id)" } ?? "#\(product.id)" }
}

/// A product's fields over time, a line per change, from every snapshot oldest first.
public enum ProductHistory {
    public struct Line: Sendable, Equatable {
        public var snapshot: String
        public var time: Date
        /// What the line says, in the reader's language where it is shown.
        public var phrase: Phrase
        /// In English.
        public var text: String { phrase.text(.en) }
    }

    /// `selector`: a merchant key, or a product id (`123` or `#123`) when no snapshot has such a key.
    public static func of(_ selector: String, in repository: BackupRepository) throws -> [Line] {
        var lines: [Line] = []
        var last: SnapshotProduct?
        let snapshots = repository.list()
        let byKey = try snapshots.contains { try repository.products(of: $0).contains { $0.key == selector } }
        let id = Int(selector.hasPrefix("#") ? String(selector.dropFirst()) : selector)
        for snapshot in snapshots {
            let product = try repository.products(of: snapshot).first { byKey ? $0.key == selector : $0.id == id }
            let said: Phrase?
            switch (last, product) {
            case (nil, let now?):
                let fields = ProductField.allCases.dropFirst().map { FieldChange.phrase(field: $0.rawValue, value: now.fields.value(of: $0)) }
                var first = Phrase("h_first", count: now.photos.count, SnapshotDiff.name(now), now.fields.name, String(now.photos.count))
                first.parts = [.list(fields, separator: ", ")]
                said = first
            case (let before?, nil): said = Phrase("h_gone", SnapshotDiff.name(before))
            case (let before?, let now?) where before.id != now.id:
                said = Phrase("h_made_again", String(now.id), String(before.id))
            case (let before?, let now?):
                said = SnapshotDiff.change(before, now)?.phrase
            case (nil, nil): said = nil
            }
            if let said { lines.append(Line(snapshot: snapshot.id, time: snapshot.time, phrase: said)) }
            last = product
        }
        return lines
    }
}
