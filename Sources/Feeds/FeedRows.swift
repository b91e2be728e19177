import Foundation
import OpenMarketContract
import Manifest

/// A feed bound to one supplier file's header: turns the supplier's rows into ours.
/// Immutable, so rows are mapped on several threads.
final class BoundFeed: BoundHeaderMapping, @unchecked Sendable {
    let feed: Feed
    let file: String
    let columns: ColumnSet
    let fileNotes: [RowIssue]
    /// The plain columns, each with the supplier's words for its values (`[maps.FIELD]`), found once.
    private let fields: [(field: Column, index: Int, map: ValueMap?)]
    private let costIndex: Int?
    private let resolved: [HeaderRef: Int]
    private let headers: [(Int, String)]
    private let keepCells: Bool
    private let includeInactive: Bool
    private let prices: PriceTable?
    /// The columns the rows read, by their place in this file (see `ColumnSlots`).
    let slots: ColumnSlots
    /// The feed's values, filter and cost with their columns slotted; the `active` tests and
    /// the sale's end only of columns the file has (a test of a column it lacks is no test).
    private let made: [(field: Column, spec: ValueSpec)]
    private let skip: [CellTest]
    private let only: [CellTest]
    private let active: [CellTest]
    private let ends: [HeaderRef]
    private let cost: HeaderRef?

    init(feed: Feed, file: String, resolved: [HeaderRef: Int], headers: [(Int, String)], keepCells: Bool, includeInactive: Bool,
         fileNotes: [RowIssue]) {
        self.feed = feed
        self.file = file
        self.resolved = resolved
        self.headers = headers
        self.keepCells = keepCells
        self.includeInactive = includeInactive
        self.fileNotes = fileNotes
        fields = feed.columns.compactMap { column in resolved[column.source].map { (column.field, $0, feed.maps[column.field]) } }
        costIndex = feed.cost.flatMap { resolved[$0] }
        let slots = ColumnSlots(resolved: resolved)
        self.slots = slots
        prices = feed.prices.map { PriceTable(slots.slot($0)) }
        made = feed.values.map { ($0.field, slots.slot($0.spec)) }
        skip = feed.filter.skip.map(slots.slot)
        only = feed.filter.only.map(slots.slot)
        active = feed.filter.active.filter { resolved[$0.source] != nil }.map(slots.slot)
        ends = feed.filter.ends.filter { resolved[$0] != nil }.map(slots.slot)
        cost = feed.cost.map(slots.slot)
        var columns = ColumnSet(fields.map(\.field) + feed.values.map(\.field)).union(ColumnSet(feed.constants.keys))
        if feed.photos != nil { columns.insert(.images) }
        if costIndex != nil { columns.insert(.price) }
        self.columns = columns
    }

    /// The supplier's header of one of our columns (`stock` → `재고수량`; `price` → the cost's).
    func source(of column: Column) -> String? {
        if let spec = feed.values.first(where: { $0.field == column })?.spec {
            if case .column(let ref) = spec, let index = resolved[ref] { return headers.first { $0.0 == index }?.1 }
            return spec.description
        }
        if column == .images, let photos = feed.photos { return photos.from.map(\.description).joined(separator: ", ") }
        let ref = column == .price && costIndex != nil ? feed.cost : feed.columns.first { $0.field == column }?.source
        guard let ref, let index = resolved[ref] else { return nil }
        return headers.first { $0.0 == index }?.1 ?? ref.description
    }

    func row(_ cells: [String], number: Int, notes: [RowIssue]) -> RawRow {
        let slots = self.slots
        func cell(_ ref: HeaderRef) -> String { slots.cell(cells, ref) }
        var origin = RowOrigin(protected: feed.protected)
        if keepCells {
            origin.cells = headers.map { SupplierCell(header: $0.1, value: $0.0 < cells.count ? cells[$0.0] : "") }
        }
        var values = RowValues()
        for (field, index, map) in fields {
            let text = index < cells.count ? ManifestValidator.trimmed(cells[index]) : ""
            values[field] = map?.apply(text) ?? text
        }
        var notes = notes
        for (field, spec) in made {
            values[field] = spec.value(cell) { note in
                notes.append(RowIssue(file: file, row: number, column: field.rawValue, value: nil, severity: .warning, rule: "map-choice",
                                      message: note))
            }
        }
        for (field, value) in feed.constants { values[field] = value }
        var row = RawRow(number: number, values: values, imageList: nil, notes: notes)
        // A row left out keeps its key and name: `--delete-missing` counts it as listed.
        if let (reason, words) = skipReason(cell) {
            origin.skipped = reason
            origin.skippedWords = words
            row.origin = origin
            return row
        }
        // A row that says its product is not on sale sends its stock as 0 and nothing else
        // (its key and name say which product); the run never makes a product of it.
        if let offSale = offSale(cell) {
            var kept = RowValues()
            for field in [Column.id, .key, .name] { if let value = row.values[field] { kept[field] = value } }
            kept[.stock] = "0"
            row.values = kept
            origin.offSale = offSale
            row.origin = origin
            return row
        }
        if let costIndex, let cost { price(cost: cell(cost), header: headers.first { $0.0 == costIndex }?.1 ?? "cost", row: &row, origin: &origin, cell: cell) }
        row.origin = origin
        return row
    }

    /// Why the filter leaves the row out, or nil.
    private func skipReason(_ cell: (HeaderRef) -> String) -> (String, PhraseRef)? {
        if let test = skip.first(where: { $0.matches(cell($0.source)) }) {
            let value = cell(test.source)
            let why = feed.filter.why[value.lowercased()].map { ": \($0)" } ?? ""
            let whyKorean = (feed.filter.whyKorean[value.lowercased()] ?? feed.filter.why[value.lowercased()]).map { ": \($0)" } ?? ""
            return ("[filter] skip: \(test.source) is \(value)" + why,
                    PhraseRef("n_filter_skip", ["\(test.source)", value, why, whyKorean]))
        }
        if !only.isEmpty, !only.contains(where: { $0.matches(cell($0.source)) }) {
            let wanted = only.map(\.text).joined(separator: "; ")
            let found = only.map { "\(cell($0.source))" }.joined(separator: ", ")
            return ("[filter] only: \(wanted) (this row: \(found))", PhraseRef("n_filter_only", [wanted, found]))
        }
        return nil
    }

    /// Why the row says its product is not on sale (the `active` tests fail, or an end date
    /// passed), or nil; `--include-inactive` reads every row as on sale.
    private func offSale(_ cell: (HeaderRef) -> String) -> OffSale? {
        guard !includeInactive else { return nil }
        if !active.isEmpty, !active.contains(where: { $0.matches(cell($0.source)) }) {
            let test = active[0]
            return OffSale(column: header(of: test.source), value: cell(test.source))
        }
        for ref in ends {
            let text = cell(ref)
            if let day = SaleEnd.day(text), day < SaleEnd.today() {
                return OffSale(kind: .ended, column: header(of: ref), value: text)
            }
        }
        return nil
    }

    /// A supplier's column as its file writes the header.
    private func header(of ref: HeaderRef) -> String {
        guard let index = slots.index(ref) else { return ref.description }
        return headers.first { $0.0 == index }?.1 ?? ref.description
    }

    private static let cent = Decimal(sign: .plus, exponent: -2, significand: 1)

    /// The selling price made from the cost cell, with how; a cost that is no amount is the
    /// row's error, named by the supplier's header.
    private func price(cost text: String, header: String, row: inout RawRow, origin: inout RowOrigin, cell: (HeaderRef) -> String) {
        guard !text.isEmpty, let prices else { return }
        let mapped = feed.costMap?.apply(text) ?? text
        func problem(_ rule: String, _ message: String) {
            row.notes.append(RowIssue(file: file, row: row.number, column: "\(header) (cost)", value: text, severity: .error,
                                      rule: rule, message: message))
        }
        switch Money.parse(mapped) {
        case .failure(let failure):
            problem("cost-format", failure.message)
        case .success(let parsed):
            guard parsed.amount >= 0 else { return problem("cost-negative", "a cost must be 0 or more") }
            let written = row.values[.currency].flatMap { $0.isEmpty ? nil : Money.currencyCode($0) }
            if written == nil, let symbol = parsed.currency { row.values[.currency] = symbol }
            let currency = written ?? parsed.currency ?? "KRW"
            let unit = currency == "KRW" || currency == "JPY" ? Decimal(1) : Self.cent
            let (price, explanation) = prices.price(cost: parsed.amount, unit: unit, cell: cell)
            row.values[.price] = Money.text(price)
            origin.explanations[.price] = explanation
        }
    }
}

/// A sale's last day as platforms write it: `2026-11-30`, `2026.11.30`, `2026/11/30`,
/// `20261130`, with or without a time after it; compared as days (`yyyymmdd`).
enum SaleEnd {
    static func day(_ text: String) -> Int? {
        let digits = text.prefix { !$0.isWhitespace && $0 != "T" }.filter { $0 != "-" && $0 != "." && $0 != "/" }
        guard digits.count == 8, digits.allSatisfy(\.isASCII), let value = Int(digits) else { return nil }
        let month = value / 100 % 100, day = value % 100
        guard (1...12).contains(month), (1...31).contains(day) else { return nil }
        return value
    }

    /// Today on this machine's calendar, as `yyyymmdd`.
    static func today() -> Int {
        let parts = Calendar.current.dateComponents([.year, .month, .day], from: Date())
        return (parts.year ?? 1970) * 10000 + (parts.month ?? 1) * 100 + (parts.day ?? 1)
    }
}
