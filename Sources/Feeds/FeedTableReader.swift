import Foundation
import Words
import OpenMarketContract
import Manifest
import TOMLKit

/// Turns a feed file's TOML tables into a `Feed`, a section at a time, naming the line
/// and key of any mistake.
struct FeedTableReader {
    let file: String
    let lines: TOMLLines

    /// The sections a feed file may have (and two keys at its top: description, keep_reports).
    static let sections = ["description", "keep_reports", "map", "columns", "constants", "maps", "prices", "filter", "protect",
                           "rows", "photos", "options", "detect", "source", "target", "sync", "checks", "notify"]
    static let settingKeys = ["markup_percent", "add", "round_to", "round", "min_margin_percent"]
    /// Our fields a feed may fill, and `cost`.
    static var fieldNames: [String] { Column.allCases.map(\.rawValue) + ["cost"] }

    func fail(_ said: Phrase, table: String, key: String? = nil, item: Int = 0) -> FeedFileError {
        let shown = key.map { table.isEmpty ? $0 : "\(table).\($0)" } ?? (table.isEmpty ? nil : "[\(table)]")
        return FeedFileError(file: file, line: lines.line(of: key, in: table, item: item), key: shown, said: said)
    }

    mutating func feed(_ root: TOMLTable, url: URL) throws(FeedFileError) -> Feed {
        var feed = Feed(name: url.deletingPathExtension().lastPathComponent, url: url)
        for key in root.keys where !Self.sections.contains(key) {
            throw fail(Phrase("fm_unknown_section_a_feed", "\(Self.sections.dropFirst(2).map { "[\($0)]" }.joined(separator: ", "))"), table: key)
        }
        if let shipped = root["map"] {
            // A platform's export (a supplier who sells on Shopify): its shipped map reads the
            // file; the feed adds constants, protected fields and how it runs.
            guard let name = shipped.string, let base = ShippedMaps.feed(name) else {
                throw fail(Phrase("fm_must_be_one_of", "\(ShippedMaps.listed.map { "\"\($0)\"" }.joined(separator: ", "))"), table: "", key: "map")
            }
            if root["columns"] != nil { throw fail(Phrase("fm_a_feed_with_map", "\(name)"), table: "columns") }
            feed.columns = base.columns
            feed.values = base.values
            feed.layout = base.layout
            feed.photos = base.photos
            feed.options = base.options
            feed.filter = base.filter
            feed.maps = base.maps
            feed.constants = base.constants
            feed.detect = base.detect
            for key in root.keys where !["description", "keep_reports", "map", "constants", "protect", "source", "target", "sync", "checks", "notify"].contains(key) {
                throw fail(Phrase("fm_a_feed_with_map_has_constants", "\(name)"), table: key)
            }
        } else {
            guard let columns = root["columns"]?.table else {
                throw fail(Phrase("fm_a_feed_needs_columns"), table: "")
            }
            try readColumns(columns, into: &feed)
        }
        if let constants = root["constants"] { try readConstants(try table(constants, "constants"), into: &feed) }
        if let maps = root["maps"] { try readMaps(try table(maps, "maps"), into: &feed) }
        if let prices = root["prices"] { feed.prices = try readPrices(try table(prices, "prices")) }
        if let filter = root["filter"] { feed.filter = try readFilter(try table(filter, "filter")) }
        if let protect = root["protect"] { feed.protected = try readProtect(try table(protect, "protect")) }
        if let rows = root["rows"] { feed.layout = try readLayout(try table(rows, "rows")) }
        if let photos = root["photos"] { feed.photos = try readPhotos(try table(photos, "photos")) }
        if let options = root["options"] { feed.options = try readOptions(try table(options, "options")) }
        if let detect = root["detect"] { feed.detect = try readDetect(try table(detect, "detect")) }
        feed.run = try readRunSettings(root)
        try checkConsistency(feed)
        return feed
    }

    func table(_ value: any TOMLValueConvertible, _ name: String, key: String? = nil) throws(FeedFileError) -> TOMLTable {
        guard let table = value.table else { throw fail(Phrase("fm_must_be_a_table"), table: name, key: key) }
        return table
    }

    private func readColumns(_ table: TOMLTable, into feed: inout Feed) throws(FeedFileError) {
        for key in table.keys {
            if key != "cost", let field = Column(rawValue: key), let value = table[key], value.string == nil {
                feed.values.append((field, try spec(value, key: key)))
                continue
            }
            guard let source = table[key]?.string, !source.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw fail(Phrase("fm_must_be_the_supplier"),
                           table: "columns", key: key)
            }
            if key == "cost" {
                feed.cost = HeaderRef(source)
                continue
            }
            guard let field = Column(rawValue: key) else {
                throw fail(Phrase("fm_unknown_field_columns_maps", "\(Self.fieldNames.joined(separator: ", "))"), table: "columns", key: key)
            }
            if source.contains("{") {
                feed.values.append((field, ValueSpec.parse(source)))
            } else {
                feed.columns.append((field, HeaderRef(source)))
            }
        }
        // The file's order is lost in the TOML table: ours is the manifest's.
        feed.columns.sort { Column.allCases.firstIndex(of: $0.field)! < Column.allCases.firstIndex(of: $1.field)! }
        feed.values.sort { Column.allCases.firstIndex(of: $0.field)! < Column.allCases.firstIndex(of: $1.field)! }
    }

    private func readConstants(_ table: TOMLTable, into feed: inout Feed) throws(FeedFileError) {
        for key in table.keys {
            guard let field = Column(rawValue: key), field != .key, field != .id else {
                throw fail(Phrase("fm_unknown_field_a_constant", "\(ProductDraft.allFields.map(\.rawValue).sorted().joined(separator: ", "))"),
                           table: "constants", key: key)
            }
            guard let value = table[key].flatMap(Self.text) else {
                throw fail(Phrase("fm_must_be_a_text"), table: "constants", key: key)
            }
            feed.constants[field] = value
        }
    }

    private func readMaps(_ table: TOMLTable, into feed: inout Feed) throws(FeedFileError) {
        for key in table.keys {
            let words = try self.table(table[key]!, "maps", key: key)
            var entries: [String: String] = [:]
            for word in words.keys {
                guard let value = words[word].flatMap(Self.text) else {
                    throw fail(Phrase("fm_must_be_a_text"), table: "maps.\(key)", key: word)
                }
                entries[word.trimmingCharacters(in: .whitespaces)] = value
            }
            if key == "cost" { feed.costMap = ValueMap(entries: entries); continue }
            guard let field = Column(rawValue: key) else {
                throw fail(Phrase("fm_unknown_field_maps_field", "\(Self.fieldNames.joined(separator: ", "))"), table: "maps", key: key)
            }
            feed.maps[field] = ValueMap(entries: entries)
        }
    }

    private func readPrices(_ table: TOMLTable) throws(FeedFileError) -> PricePolicy {
        for key in table.keys where !Self.settingKeys.contains(key) && key != "rules" {
            throw fail(Phrase("fm_unknown_key_prices_has", "\((Self.settingKeys + ["rules"]).joined(separator: ", "))"), table: "prices", key: key)
        }
        var policy = PricePolicy(defaults: try settings(table, table: "prices", item: 0))
        guard let rules = table["rules"] else { return policy }
        guard let list = rules.array else { throw fail(Phrase("fm_must_be_prices_rules"), table: "prices", key: "rules") }
        for (index, value) in list.enumerated() {
            guard let rule = value.table else { throw fail(Phrase("fm_must_be_a_table"), table: "prices.rules", item: index + 1) }
            policy.rules.append(try readRule(rule, number: index + 1))
        }
        return policy
    }

    private func readRule(_ table: TOMLTable, number: Int) throws(FeedFileError) -> PriceRule {
        let name = "prices.rules"
        let known = Self.settingKeys + ["when", "cost_at_least", "cost_below"]
        for key in table.keys where !known.contains(key) {
            throw fail(Phrase("fm_unknown_key_in_rule", "\(number)", "\(known.joined(separator: ", "))"), table: name, key: key, item: number)
        }
        var rule = PriceRule(number: number, settings: try settings(table, table: name, item: number))
        if let when = table["when"] {
            rule.when = try tests(try self.table(when, name, key: "when"), table: name, key: "when", item: number)
        }
        rule.costAtLeast = try decimal(table, "cost_at_least", table: name, item: number)
        rule.costBelow = try decimal(table, "cost_below", table: name, item: number)
        if rule.when.isEmpty && rule.costAtLeast == nil && rule.costBelow == nil {
            throw fail(Phrase("fm_rule_has_no_condition", "\(number)"),
                       table: name, item: number)
        }
        return rule
    }

    private func settings(_ table: TOMLTable, table name: String, item: Int) throws(FeedFileError) -> PriceSettings {
        var settings = PriceSettings()
        settings.markupPercent = try decimal(table, "markup_percent", table: name, item: item)
        settings.add = try decimal(table, "add", table: name, item: item)
        settings.roundTo = try decimal(table, "round_to", table: name, item: item)
        settings.minMarginPercent = try decimal(table, "min_margin_percent", table: name, item: item)
        if let step = settings.roundTo, step <= 0 { throw fail(Phrase("fm_must_be_above"), table: name, key: "round_to", item: item) }
        if let value = table["round"] {
            guard let text = value.string, let mode = Rounding(rawValue: text) else {
                throw fail(Phrase("fm_must_be_up_down"), table: name, key: "round", item: item)
            }
            settings.round = mode
        }
        return settings
    }

    func decimal(_ table: TOMLTable, _ key: String, table name: String, item: Int) throws(FeedFileError) -> Decimal? {
        guard let value = table[key] else { return nil }
        if let int = value.int { return Decimal(int) }
        if let double = value.double, double.isFinite { return Money.decimal(double) }
        throw fail(Phrase("fm_must_be_a_number"), table: name, key: key, item: item)
    }

    private func readFilter(_ table: TOMLTable) throws(FeedFileError) -> RowFilter {
        var filter = RowFilter()
        for key in table.keys {
            if key == "why" || key == "why_ko" {
                let words = try self.table(table[key]!, "filter", key: key)
                for word in words.keys {
                    guard let text = words[word]?.string else { throw fail(Phrase("fm_must_be_a_text_b", "\(word)"), table: "filter", key: key) }
                    if key == "why" { filter.why[word.lowercased()] = text } else { filter.whyKorean[word.lowercased()] = text }
                }
                continue
            }
            if key == "ends" {
                filter.ends = try headers(table, "ends", in: "filter")
                continue
            }
            guard ["skip", "only", "active"].contains(key) else {
                throw fail(Phrase("fm_unknown_key_filter_has"), table: "filter", key: key)
            }
            let list = try tests(try self.table(table[key]!, "filter", key: key), table: "filter", key: key, item: 0)
            switch key {
            case "skip": filter.skip = list
            case "only": filter.only = list
            default: filter.active = list
            }
        }
        return filter
    }

    /// `{ "카테고리" = "가전" }` or `{ "카테고리" = ["샘플", "단종"] }`.
    func tests(_ table: TOMLTable, table name: String, key: String, item: Int) throws(FeedFileError) -> [CellTest] {
        try table.keys.sorted().map { header throws(FeedFileError) -> CellTest in
            let value = table[header]!
            if let list = value.array {
                let values = list.compactMap(Self.text)
                guard values.count == list.count, !values.isEmpty else {
                    throw fail(Phrase("fm_must_be_a_text_a_number", "\(header)"), table: name, key: key, item: item)
                }
                return CellTest(source: HeaderRef(header), values: values)
            }
            guard let text = Self.text(value) else {
                throw fail(Phrase("fm_must_be_a_text_a_number", "\(header)"), table: name, key: key, item: item)
            }
            return CellTest(source: HeaderRef(header), values: [text])
        }
    }

    private func readProtect(_ table: TOMLTable) throws(FeedFileError) -> ColumnSet {
        for key in table.keys where key != "fields" { throw fail(Phrase("fm_unknown_key_protect_has"), table: "protect", key: key) }
        guard let list = table["fields"]?.array else { return [] }
        var fields = ColumnSet()
        for value in list {
            guard let name = value.string, let field = Column(rawValue: name), ProductDraft.allFields.contains(field) else {
                throw fail(Phrase("fm_not_a_product_field", "\(Self.text(value) ?? "?")", "\(ProductDraft.allFields.map(\.rawValue).sorted().joined(separator: ", "))"),
                           table: "protect", key: "fields")
            }
            fields.insert(field)
        }
        return fields
    }

    /// What the feed's parts say together.
    private func checkConsistency(_ feed: Feed) throws(FeedFileError) {
        let mapped = Set(feed.columns.map(\.field) + feed.values.map(\.field))
        if feed.cost != nil && mapped.contains(.price) {
            throw fail(Phrase("fm_map_the_supplier_s"), table: "columns", key: "cost")
        }
        if feed.cost != nil && feed.prices == nil {
            throw fail(Phrase("fm_a_cost_needs_prices"),
                       table: "columns", key: "cost")
        }
        if feed.prices != nil && feed.cost == nil {
            throw fail(Phrase("fm_prices_makes_the_selling"), table: "prices")
        }
        if !mapped.contains(.key) && !mapped.contains(.name) && !mapped.contains(.id) {
            throw fail(Phrase("fm_nothing_says_which_product"), table: "columns")
        }
        for field in feed.constants.keys where mapped.contains(field) {
            throw fail(Phrase("fm_is_both_a_column", "\(field.rawValue)"), table: "constants", key: field.rawValue)
        }
        for field in feed.maps.keys where !mapped.contains(field) {
            throw fail(Phrase("fm_maps_a_field_that"), table: "maps", key: field.rawValue)
        }
        if feed.costMap != nil && feed.cost == nil { throw fail(Phrase("fm_maps_a_field_that"), table: "maps", key: "cost") }
    }

    /// A TOML text or number as cell text.
    static func text(_ value: any TOMLValueConvertible) -> String? {
        if let text = value.string { return text }
        if let int = value.int { return String(int) }
        if let double = value.double, double.isFinite { return Money.text(Money.decimal(double)) }
        return nil
    }
}
