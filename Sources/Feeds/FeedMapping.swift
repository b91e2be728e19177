import Foundation
import Manifest

/// A feed as the manifest reader's map (`HeaderMapping`): the supplier's file read through
/// it becomes rows of our columns, with prices made from costs, the supplier's words
/// mapped, rows left out by the filter, and protected fields marked.
public struct FeedMapping: HeaderMapping {
    public let feed: Feed
    /// Keep each row's supplier cells (for `feed test`).
    public var keepCells: Bool
    /// Rows the map's `active` tests call not for sale are read too (`--include-inactive`).
    public var includeInactive: Bool
    /// Photos saved by the merchant: a photo address is read from this folder when a file
    /// there has its name (`--images-from`).
    public var imagesFrom: URL?

    public init(feed: Feed, keepCells: Bool = false, includeInactive: Bool = false, imagesFrom: URL? = nil) {
        self.feed = feed
        self.keepCells = keepCells
        self.includeInactive = includeInactive
        self.imagesFrom = imagesFrom
    }

    public var export: ExportKind? {
        feed.detect.map { detect in
            let key = detect.needsKey ? feed.columns.first { $0.field == .key }?.source.description : nil
            return ExportKind(title: detect.title, asksCurrency: detect.asksCurrency && feed.constants[.currency] == nil, keyHeader: key)
        }
    }

    public func keepingCells() -> any HeaderMapping {
        var kept = self
        kept.keepCells = true
        return kept
    }

    public func knows(header: String) -> Bool {
        let wanted = HeaderMatch.normalise(header)
        return feed.referencedHeaders.contains {
            if case .header(let text) = $0 { return HeaderMatch.normalise(text) == wanted }
            return false
        }
    }

    public func bind(headers: [(Int, String)], file: String) throws(ManifestError) -> any BoundHeaderMapping {
        let feed = withMerchantColumns(headers)
        var match = HeaderMatch(headers: headers)
        var resolved: [HeaderRef: Int] = [:]
        for ref in feed.referencedHeaders {
            if let index = match.resolve(ref) { resolved[ref] = index }
        }
        var problems: [String] = []
        var notes: [String] = []
        // A shipped map reads many layouts of one platform's export (older ones lack columns):
        // what a file does not have reads as empty.
        for ref in feed.referencedHeaders where resolved[ref] == nil && feed.detect == nil {
            let role = roles(of: ref).joined(separator: ", ")
            if let close = match.closest(to: ref) {
                problems.append("\(ref) (\(role)): not in the file; did you mean \(close)?")
                continue
            }
            switch severity(of: ref, resolved: resolved) {
            case .error: problems.append("\(ref) (\(role)): not in the file")
            case .warning: notes.append("\(ref) (\(role)) is not in the file: \(consequence(of: ref))")
            }
        }
        if !problems.isEmpty {
            let shown = headers.map(\.1).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            throw ManifestError(file: file, message: "the feed \(feed.name) expects columns this file does not have: \(problems.joined(separator: "; ")) (the file's columns: \(shown.joined(separator: ", "))); nothing was read or sent")
        }
        let fileNotes = notes.map {
            RowIssue(file: file, row: 1, column: nil, value: nil, severity: .warning, rule: "feed-column-absent", message: $0)
        }
        let bound = BoundFeed(feed: feed, file: file, resolved: resolved, headers: headers, keepCells: keepCells,
                              includeInactive: includeInactive, fileNotes: fileNotes)
        guard feed.layout != nil || feed.photos != nil || feed.options != nil else { return bound }
        return GroupedFeed(bound, resolved: resolved, imagesFrom: imagesFrom)
    }

    /// Columns a merchant added to a platform's file in openmarket's own words (`재고수량`, `stock`,
    /// `currency`) for a field the shipped map leaves out (Cafe24's file has no stock): read as
    /// they are, over the map's default of nothing.
    func withMerchantColumns(_ headers: [(Int, String)]) -> Feed {
        guard feed.detect != nil else { return feed }
        var feed = self.feed
        let mapped = Set(feed.columns.map(\.field) + feed.values.map(\.field)).union(feed.constants.keys)
        let referenced = Set(feed.referencedHeaders.compactMap { ref -> String? in
            if case .header(let text) = ref { return HeaderMatch.normalise(text) } else { return nil }
        })
        for (_, header) in headers where !referenced.contains(HeaderMatch.normalise(header)) {
            guard let column = Column(header: header), Self.addable.contains(column), !mapped.contains(column),
                  !feed.columns.contains(where: { $0.field == column }) else { continue }
            feed.columns.append((column, .header(header)))
        }
        return feed
    }

    /// The fields a merchant adds to another platform's file by a column of their own.
    static let addable: Set<Column> = [.stock, .currency]

    /// What the feed uses a supplier's column for.
    func roles(of ref: HeaderRef) -> [String] {
        var roles = feed.columns.filter { $0.source == ref }.map(\.field.rawValue)
        roles += feed.values.filter { $0.spec.headers.contains(ref) }.map(\.field.rawValue)
        if feed.layout?.headers.contains(ref) == true { roles.append("[rows]") }
        if feed.photos?.headers.contains(ref) == true { roles.append("[photos]") }
        if feed.filter.active.contains(where: { $0.source == ref }) { roles.append("[filter] active") }
        if feed.cost == ref { roles.append("cost") }
        if feed.filter.skip.contains(where: { $0.source == ref }) || feed.filter.only.contains(where: { $0.source == ref }) {
            roles.append("[filter]")
        }
        for rule in feed.prices?.rules ?? [] where rule.when.contains(where: { $0.source == ref }) { roles.append("rule \(rule.number)") }
        return roles
    }

    /// A missing column stops the run when the rows could not be read right without it: the
    /// one that says which product a row is; a price rule's or the filter's test while the file
    /// has what they act on (the cost; the names that make new products). Otherwise the file
    /// is a partial one (a stock file: key and stock) and the field is left as the shop has it.
    private func severity(of ref: HeaderRef, resolved: [HeaderRef: Int]) -> RowIssue.Severity {
        let identity = feed.columns.first { $0.field == .key } ?? feed.columns.first { $0.field == .name }
        if identity?.source == ref { return .error }
        if let cost = feed.cost, resolved[cost] != nil, feed.prices?.rules.contains(where: { $0.when.contains { $0.source == ref } }) == true {
            return .error
        }
        let filtered = (feed.filter.skip + feed.filter.only).contains { $0.source == ref }
        if filtered, let name = feed.columns.first(where: { $0.field == .name }), resolved[name.source] != nil { return .error }
        return .warning
    }

    private func consequence(of ref: HeaderRef) -> String {
        if feed.cost == ref { return "prices are left as the shop has them" }
        if let field = feed.columns.first(where: { $0.source == ref })?.field { return "\(field.rawValue) is left as the shop has it" }
        if feed.values.contains(where: { $0.spec.headers.contains(ref) }) { return "read as empty where it is used" }
        return "the tests of it never match"
    }
}

/// Finds the supplier's headers: the same text ignoring letter case, spaces, `_` and `-`
/// (`재고 수량` is `재고수량`); and for one that is not there, the closest header no part of
/// the feed uses (a renamed column: `공급가` → `공급 가격`).
struct HeaderMatch {
    private let headers: [(Int, String)]
    private let byName: [String: Int]
    private var used = Set<Int>()

    init(headers: [(Int, String)]) {
        self.headers = headers.filter { !$0.1.trimmingCharacters(in: .whitespaces).isEmpty }
        var byName: [String: Int] = [:]
        for (index, text) in self.headers where byName[Self.normalise(text)] == nil { byName[Self.normalise(text)] = index }
        self.byName = byName
    }

    static func normalise(_ text: String) -> String {
        Column.normalise(text.precomposedStringWithCanonicalMapping)
    }

    mutating func resolve(_ ref: HeaderRef) -> Int? {
        let index: Int?
        switch ref {
        case .header(let text): index = byName[Self.normalise(text)]
        case .position(let position): index = position <= (headers.map(\.0).max() ?? -1) ? position : nil
        case .slot(let position, _): index = position >= 0 ? position : nil
        }
        if let index { used.insert(index) }
        return index
    }

    /// An unused header within a small edit distance of `ref` (or containing it, or in it).
    func closest(to ref: HeaderRef) -> String? {
        guard case .header(let text) = ref else { return nil }
        let wanted = Array(Self.normalise(text))
        var best: (distance: Int, header: String)?
        for (index, header) in headers where !used.contains(index) {
            let candidate = Array(Self.normalise(header))
            guard !candidate.isEmpty else { continue }
            var distance = Self.distance(wanted, candidate)
            let contains = wanted.count >= 2 && candidate.count >= 2
                && (String(candidate).contains(String(wanted)) || String(wanted).contains(String(candidate)))
            if contains { distance = min(distance, 1) }
            let limit = max(1, min(wanted.count, candidate.count) / 3)
            if distance <= limit, best == nil || distance < best!.distance { best = (distance, header) }
        }
        return best?.header
    }

    /// Levenshtein distance over characters.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + [Int](repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
