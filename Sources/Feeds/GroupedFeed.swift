import Foundation
import Manifest
import OpenMarketContract

/// A map with `[rows]` or `[photos]`, bound to a file: the file's rows are kept as they are
/// read, then made into products together (see `RowLayout`, `PhotoRule`). A group's head
/// fills the blank cells its map names in each product row; photo rows give their photos
/// to the group's products; rows that are no product (a group's photo rows) are not rows
/// of the result.
final class GroupedFeed: GroupedMapping, @unchecked Sendable {
    private let inner: BoundFeed
    private let layout: RowLayout
    private let photos: PhotoRule?
    private let resolved: [HeaderRef: Int]
    private let imagesFrom: URL?
    /// The photo files of `imagesFrom`, by name.
    private let savedPhotos: Set<String>
    /// The columns every row reads, found once (a header's lookup hashes its text).
    private let photoColumns: (from: [Int?], order: Int?, own: Int?)
    private let optionColumns: (names: Int?, values: Int?, prices: Int?, stocks: Int?)
    /// `[rows]`'s columns by place, found once (`assemble` runs for each row of a map that
    /// does not span rows).
    private let productColumns: [Int]
    private let fillColumns: [Int]
    private let blankColumns: [(column: Int, test: CellTest)]
    /// `[photos] split`'s separators in the order a cell is split on them (a line break also
    /// as `\r\n` and `\r`).
    private let photoSeparators: [String]
    let spansRows: Bool

    init(_ inner: BoundFeed, resolved: [HeaderRef: Int], imagesFrom: URL?) {
        self.inner = inner
        layout = inner.feed.layout ?? RowLayout()
        photos = inner.feed.photos
        self.resolved = resolved
        self.imagesFrom = imagesFrom
        savedPhotos = imagesFrom.map { Set((try? FileManager.default.contentsOfDirectory(atPath: $0.path)) ?? []) } ?? []
        func slot(_ ref: HeaderRef?) -> Int? { ref.flatMap { resolved[$0] } }
        photoColumns = (inner.feed.photos?.from.map(slot) ?? [], slot(inner.feed.photos?.order), slot(inner.feed.photos?.own))
        let options = inner.feed.options
        optionColumns = (slot(options?.names), slot(options?.values), slot(options?.prices), slot(options?.stocks))
        productColumns = layout.products.compactMap(slot)
        fillColumns = layout.fillDown.compactMap(slot)
        blankColumns = layout.blank.compactMap { test in slot(test.source).map { ($0, test) } }
        photoSeparators = (photos?.split ?? []).filter { !$0.isEmpty }.flatMap { $0 == "\n" ? ["\r\n", "\n", "\r"] : [$0] }
        spansRows = layout.groupBy != nil || layout.parent != nil || !layout.products.isEmpty || !layout.fillDown.isEmpty
            || photos?.wholeGroup == true
    }

    var columns: ColumnSet { inner.columns }
    var fileNotes: [RowIssue] { inner.fileNotes }
    func source(of column: Column) -> String? { inner.source(of: column) }

    func row(_ cells: [String], number: Int, notes: [RowIssue]) -> RawRow {
        var origin = RowOrigin()
        origin.record = cells
        return RawRow(number: number, values: [:], imageList: nil, notes: notes, origin: origin)
    }

    private struct Record {
        var cells: [String]
        var number: Int
        var notes: [RowIssue]
    }

    private func index(_ ref: HeaderRef?) -> Int? { ref.flatMap { resolved[$0] } }

    private func cell(_ record: Record, _ ref: HeaderRef?) -> String {
        cell(record, at: index(ref))
    }

    private func cell(_ record: Record, at index: Int?) -> String {
        guard let index, index < record.cells.count else { return "" }
        return ManifestValidator.trimmed(record.cells[index])
    }

    func assemble(_ rows: [RawRow], firstPosition: Int) -> [RawRow] {
        // The notes row of an upload form (`필수`, `비필수` under each header) is no product.
        // So is the guide row of a form (how to fill each column), among the first under its header.
        var records: [Record] = []
        records.reserveCapacity(rows.count)
        for (position, row) in rows.enumerated() {
            let cells = row.origin?.record ?? []
            guard !layout.isNotRow(cells), !(firstPosition + position < RowLayout.guideDepth && layout.isGuide(cells)) else { continue }
            records.append(Record(cells: cells, number: row.number, notes: row.notes))
        }
        for position in records.indices { blankOut(&records[position]) }
        let heads = groupHeads(records)
        // A group's members, only where its photos are the whole group's.
        var members: [Int: [Int]] = [:]
        if photos?.wholeGroup == true {
            for (position, head) in heads.enumerated() { members[head.head, default: []].append(position) }
        }
        var result: [RawRow] = []
        result.reserveCapacity(records.count)
        for (position, record) in records.enumerated() {
            let head = heads[position]
            var effective = record
            if head.head != position { fill(&effective, from: records[head.head]) }
            let group = photos?.wholeGroup == true ? (members[head.head] ?? [position]).map { records[$0] } : nil
            products(of: effective, missingParent: head.missingParent, group: group) { result.append($0) }
        }
        return result
    }

    /// One row's products, of a map that does not span rows, made where the row is read: no
    /// array of records, heads or results for it (a tenth of a Cafe24 file's reading).
    func products(_ cells: [String], number: Int, notes: [RowIssue], position: Int, each body: (RawRow) -> Void) {
        guard !spansRows else {
            for product in assemble([row(cells, number: number, notes: notes)], firstPosition: position) { body(product) }
            return
        }
        guard !layout.isNotRow(cells), !(position < RowLayout.guideDepth && layout.isGuide(cells)) else { return }
        var record = Record(cells: cells, number: number, notes: notes)
        blankOut(&record)
        products(of: record, missingParent: nil, group: nil, body)
    }

    /// The products of a record (its group's head's cells filled in): none when `[rows]
    /// products` says it is no product, else the row, or a product per option. `group` is
    /// the records whose photos it takes (nil: its own).
    private func products(of record: Record, missingParent: String?, group: [Record]?, _ body: (RawRow) -> Void) {
        let isProduct = productColumns.isEmpty
            || productColumns.contains { $0 < record.cells.count && !ManifestValidator.trimmed(record.cells[$0]).isEmpty }
        guard isProduct else { return }
        var notes = record.notes
        if let missing = missingParent {
            notes.append(RowIssue(file: inner.file, row: record.number, column: layout.parent?.description, value: missing,
                                  severity: .warning, rule: "map-parent-missing",
                                  message: "names a parent that is not in the file: read without its parent's fields"))
        }
        var row = inner.row(record.cells, number: record.number, notes: notes)
        if let photos, row.origin?.skipped == nil, row.origin?.offSale == nil {
            gather(photos, own: record, group: group, into: &row)
        }
        if let options = inner.feed.options, row.origin?.skipped == nil {
            expand(row, options, record, body)
        } else {
            body(row)
        }
    }

    /// A row holding options made into a product per option (`OptionRule`); a row without any, as it is.
    private func expand(_ row: RawRow, _ rule: OptionRule, _ record: Record, _ body: (RawRow) -> Void) {
        let options: [OptionRule.Option]
        do {
            let values = cell(record, at: optionColumns.values)
            // No options in the row (most rows): as it is.
            guard !values.isEmpty else { return body(row) }
            options = try rule.options(names: cell(record, at: optionColumns.names), values: values,
                                       prices: cell(record, at: optionColumns.prices), stocks: cell(record, at: optionColumns.stocks))
        } catch {
            guard case .mismatch(let what) = error else { return body(row) }
            var failed = row
            failed.notes.append(RowIssue(file: inner.file, row: row.number, column: rule.values.description, value: cell(record, rule.values),
                                         severity: .error, rule: "options-mismatch",
                                         message: "the options do not line up (\(what)): each option value needs its extra amount and its count, in order"))
            return body(failed)
        }
        guard !options.isEmpty else { return body(row) }
        for (index, option) in options.enumerated() {
            var one = row
            if let key = row.values[.key], !key.isEmpty { one.values[.key] = ([key] + option.values).joined(separator: "/") }
            if let name = row.values[.name], !name.isEmpty { one.values[.name] = ([name] + option.values).joined(separator: " ") }
            if let stock = option.stock, row.origin?.offSale == nil {
                one.values[.stock] = stock
            } else if options.count > 1, row.origin?.offSale == nil, let total = row.values[.stock], !total.isEmpty {
                // The row's count is all its options' together: no option's own.
                one.values[.stock] = nil
                if index == 0 {
                    one.notes.append(RowIssue(file: inner.file, row: row.number, column: "stock", value: total, severity: .warning, rule: "options-stock",
                                              message: "the row's stock counts its \(options.count) options together; an option's own count is not in the file, so none is sent"))
                }
            }
            if let extra = option.extra, let amount = Self.amount(extra), amount != 0 {
                for field in [Column.price, .salePrice] {
                    if let base = row.values[field].flatMap(Self.amount) { one.values[field] = Money.text(base + amount) }
                }
            }
            body(one)
        }
    }

    /// `1,000`, `1000원`, `+500`, `-500` as an amount, read as the sheet's money is (`Money.parse`).
    private static func amount(_ text: String) -> Decimal? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let negative = trimmed.hasPrefix("-")
        let unsigned = trimmed.hasPrefix("+") || negative ? String(trimmed.dropFirst()) : trimmed
        guard case .success(let parsed) = Money.parse(unsigned) else { return nil }
        return negative ? -parsed.amount : parsed.amount
    }

    /// The cells `[rows] blank` reads as blank (Shopify's "Default Title").
    private func blankOut(_ record: inout Record) {
        for (column, test) in blankColumns where column < record.cells.count {
            if test.matches(ManifestValidator.trimmed(record.cells[column])) { record.cells[column] = "" }
        }
    }

    /// Each record's group head (its own position when it heads one), and the parent it
    /// named that is not in the file.
    private func groupHeads(_ records: [Record]) -> [(head: Int, missingParent: String?)] {
        if let groupBy = layout.groupBy {
            var first: [String: Int] = [:]
            return records.enumerated().map { position, record in
                let value = cell(record, groupBy)
                guard !value.isEmpty else { return (position, nil) }
                if let head = first[value] { return (head, nil) }
                first[value] = position
                return (position, nil)
            }
        }
        guard let parent = layout.parent else { return records.indices.map { ($0, nil) } }
        // A parent is named `id:12` (by the first of parent_ids) or by another id (a SKU).
        var byID: [String: Int] = [:]
        var byOther: [String: Int] = [:]
        for (position, record) in records.enumerated() {
            for (number, ref) in layout.parentIDs.enumerated() {
                let value = cell(record, ref)
                guard !value.isEmpty else { continue }
                if number == 0 { if byID[value] == nil { byID[value] = position } }
                else if byOther[value] == nil { byOther[value] = position }
            }
        }
        return records.enumerated().map { position, record in
            let named = cell(record, parent)
            guard !named.isEmpty else { return (position, nil) }
            let lowered = named.lowercased()
            let found = lowered.hasPrefix("id:") ? byID[String(named.dropFirst(3)).trimmingCharacters(in: .whitespaces)]
                : byOther[named] ?? byID[named]
            guard let found, found != position else { return (position, named) }
            return (found, nil)
        }
    }

    private func fill(_ record: inout Record, from head: Record) {
        for column in fillColumns {
            guard column < head.cells.count else { continue }
            while record.cells.count <= column { record.cells.append("") }
            if ManifestValidator.trimmed(record.cells[column]).isEmpty { record.cells[column] = head.cells[column] }
        }
    }

    /// The product's photos: its own first, then the group's in their order, each once, at
    /// most `most` (a note names the others); a saved copy in `--images-from` for an address.
    private func gather(_ rule: PhotoRule, own record: Record, group: [Record]?, into row: inout RawRow) {
        var photos: [String] = []
        pieces(of: cell(record, at: photoColumns.own)) { photos.append($0) }
        func add(_ value: String) { if !photos.contains(value) { photos.append(value) } }
        if let group, let orderColumn = photoColumns.order {
            // By their position; without one, as the file has them (the sort is stable on `seen`).
            var found: [(order: Double, seen: Int, value: String)] = []
            for member in group {
                let order = Double(cell(member, at: orderColumn)) ?? .infinity
                for column in photoColumns.from {
                    pieces(of: cell(member, at: column)) { found.append((order, found.count, $0)) }
                }
            }
            if found.count > 1 { found.sort { ($0.order, $0.seen) < ($1.order, $1.seen) } }
            for entry in found { add(entry.value) }
        } else {
            // One position for all (none, or one row's): as the file has them.
            func addAll(_ member: Record) { for column in photoColumns.from { pieces(of: cell(member, at: column), add) } }
            if let group { group.forEach(addAll) } else { addAll(record) }
        }
        if photos.count > rule.most {
            let left = photos[rule.most...]
            row.notes.append(RowIssue(file: inner.file, row: row.number, column: Column.images.rawValue, value: left.joined(separator: ", "),
                                      severity: .warning, rule: "photos-left-out",
                                      message: "\(photos.count) photos; a product has at most \(rule.most): left out \(left.joined(separator: ", "))"))
            photos = Array(photos.prefix(rule.most))
        }
        row.imageList = imagesFrom == nil ? photos : photos.map(saved)
        row.values[.images] = nil
    }

    /// A cell's list, on any of the separators (a line break also as Excel writes it, `\r\n`).
    private func pieces(of text: String, _ body: (String) -> Void) {
        guard !text.isEmpty else { return }
        // Most cells hold one photo: split only on what is there.
        guard photoSeparators.contains(where: { Self.holds(text, $0) }) else {
            let trimmed = ManifestValidator.trimmed(text)
            if !trimmed.isEmpty { body(trimmed) }
            return
        }
        var pieces = [text]
        for way in photoSeparators where pieces.contains(where: { Self.holds($0, way) }) { pieces = pieces.flatMap { $0.components(separatedBy: way) } }
        for piece in pieces {
            let trimmed = ManifestValidator.trimmed(piece)
            if !trimmed.isEmpty { body(trimmed) }
        }
    }

    /// Whether `text` holds `part`, byte for byte (Foundation's `contains` searched each cell
    /// with its locale-aware range search: a tenth of a Cafe24 file's reading).
    static func holds(_ text: String, _ part: String) -> Bool {
        let part = Array(part.utf8)
        guard let first = part.first else { return true }
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count >= part.count else { return false }
            for start in 0...(bytes.count - part.count) where bytes[start] == first {
                if part.count == 1 || (1..<part.count).allSatisfy({ bytes[start + $0] == part[$0] }) { return true }
            }
            return false
        }
    }

    /// A photo's address as a file of `--images-from` when one has its name (the address's
    /// last part, without its query).
    private func saved(_ reference: String) -> String {
        guard let imagesFrom, let url = URL(string: reference), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return reference }
        let name = url.lastPathComponent
        guard !name.isEmpty, savedPhotos.contains(name) else { return reference }
        return imagesFrom.appendingPathComponent(name).path
    }
}
