import Foundation
import Words
import Manifest
import TOMLKit

/// The parts of a map file that read another platform's export: values made of several
/// columns, `[rows]`, `[photos]` and `[detect]` (see `ValueSpec`, `RowLayout`, `PhotoRule`,
/// `MapDetection`).
extension FeedTableReader {
    /// A `[columns]` value that is a list or a table.
    func spec(_ value: any TOMLValueConvertible, key: String) throws(FeedFileError) -> ValueSpec {
        if let text = value.string {
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw fail(Phrase("fm_must_not_be_empty"), table: "columns", key: key) }
            return ValueSpec.parse(text)
        }
        if let list = value.array {
            guard !list.isEmpty else { throw fail(Phrase("fm_a_list_of_values"), table: "columns", key: key) }
            var specs: [ValueSpec] = []
            for item in list { specs.append(try spec(item, key: key)) }
            return .first(specs)
        }
        guard let table = value.table else {
            throw fail(Phrase("fm_must_be_a_header"), table: "columns", key: key)
        }
        let known = ["value", "text", "when_above", "when_below", "when_set", "else", "map", "quiet", "unit", "percent_of"]
        for name in table.keys where !known.contains(name) {
            throw fail(Phrase("fm_unknown_key_a_value", "\(name)", "\(known.joined(separator: ", "))"), table: "columns", key: key)
        }
        if let text = table["text"] {
            guard let literal = Self.text(text), table.keys.count == 1 else {
                throw fail(Phrase("fm_text_is_a_fixed"), table: "columns", key: key)
            }
            return .text(literal)
        }
        guard let inner = table["value"] else { throw fail(Phrase("fm_a_value_s_table"), table: "columns", key: key) }
        var result = try spec(inner, key: key)
        let tests = ["when_above", "when_below", "when_set"].filter { table[$0] != nil }
        if tests.count > 1 { throw fail(Phrase("fm_one_of_when_above"), table: "columns", key: key) }
        if let name = tests.first {
            guard let header = table[name]?.string, !header.isEmpty else { throw fail(Phrase("fm_must_be_a_header_b", "\(name)"), table: "columns", key: key) }
            let ref = HeaderRef(header)
            let test: ValueChoice.Test = name == "when_above" ? .above(ref) : name == "when_below" ? .below(ref) : .set(ref)
            var choice = ValueChoice(value: result, test: test, otherwise: try table["else"].map { value throws(FeedFileError) in try spec(value, key: key) })
            choice.quiet = table["quiet"]?.bool ?? false
            result = .choice(choice)
        } else if table["else"] != nil {
            throw fail(Phrase("fm_else_needs_a_test"), table: "columns", key: key)
        }
        if table["unit"] != nil || table["percent_of"] != nil {
            guard let unit = table["unit"], let base = table["percent_of"] else {
                throw fail(Phrase("fm_an_amount_in_won"),
                           table: "columns", key: key)
            }
            result = .percent(PercentAmount(value: result, unit: try spec(unit, key: key), base: try spec(base, key: key)))
        }
        if let map = table["map"] {
            let words = try self.table(map, "columns", key: key)
            var entries: [String: String] = [:]
            for word in words.keys {
                guard let value = words[word].flatMap(Self.text) else { throw fail(Phrase("fm_must_be_a_text_or_a", "\(word)"), table: "columns", key: key) }
                entries[word.trimmingCharacters(in: .whitespaces)] = value
            }
            result = .mapped(result, ValueMap(entries: entries))
        }
        return result
    }

    func readLayout(_ table: TOMLTable) throws(FeedFileError) -> RowLayout {
        let known = ["group_by", "parent", "parent_ids", "fill_down", "products", "blank", "not_rows", "guide"]
        for key in table.keys where !known.contains(key) {
            throw fail(Phrase("fm_unknown_key_rows_has", "\(known.joined(separator: ", "))"), table: "rows", key: key)
        }
        var layout = RowLayout()
        layout.groupBy = try header(table, "group_by", in: "rows")
        layout.parent = try header(table, "parent", in: "rows")
        layout.parentIDs = try headers(table, "parent_ids", in: "rows")
        layout.fillDown = try headers(table, "fill_down", in: "rows")
        layout.products = try headers(table, "products", in: "rows")
        if let blank = table["blank"] {
            layout.blank = try tests(try self.table(blank, "rows", key: "blank"), table: "rows", key: "blank", item: 0)
        }
        if let words = table["not_rows"] {
            guard let list = words.array, !list.isEmpty, list.allSatisfy({ $0.string != nil }) else {
                throw fail(Phrase("fm_must_be_a_list"), table: "rows", key: "not_rows")
            }
            layout.notRows = Set(list.compactMap(\.string))
        }
        if let words = table["guide"] {
            guard let list = words.array, !list.isEmpty, list.allSatisfy({ ($0.string ?? "").isEmpty == false }) else {
                throw fail(Phrase("fm_must_be_a_list_of_words"), table: "rows", key: "guide")
            }
            layout.guide = list.compactMap(\.string)
        }
        if layout.groupBy != nil && layout.parent != nil { throw fail(Phrase("fm_group_by_or_parent"), table: "rows", key: "parent") }
        if layout.parent != nil && layout.parentIDs.isEmpty {
            throw fail(Phrase("fm_parent_needs_parent_ids"), table: "rows", key: "parent")
        }
        return layout
    }

    func readPhotos(_ table: TOMLTable) throws(FeedFileError) -> PhotoRule {
        let known = ["from", "order", "own", "split", "whole_group", "most"]
        for key in table.keys where !known.contains(key) {
            throw fail(Phrase("fm_unknown_key_photos_has", "\(known.joined(separator: ", "))"), table: "photos", key: key)
        }
        let from = try headers(table, "from", in: "photos")
        guard !from.isEmpty else { throw fail(Phrase("fm_photos_needs_from_their"), table: "photos") }
        var rule = PhotoRule(from: from)
        rule.order = try header(table, "order", in: "photos")
        rule.own = try header(table, "own", in: "photos")
        if let split = table["split"] {
            if let text = split.string { rule.split = [text] } else if let list = split.array, list.allSatisfy({ $0.string != nil }) {
                rule.split = list.compactMap(\.string)
            } else {
                throw fail(Phrase("fm_must_be_a_separator"), table: "photos", key: "split")
            }
        }
        rule.wholeGroup = table["whole_group"]?.bool ?? false
        if let most = table["most"] {
            guard let count = most.int, count >= 1 else { throw fail(Phrase("fm_must_be_a_count"), table: "photos", key: "most") }
            rule.most = count
        }
        return rule
    }

    func readOptions(_ table: TOMLTable) throws(FeedFileError) -> OptionRule {
        let known = ["names", "values", "prices", "stocks", "split", "per_first", "each_line", "stock_at"]
        for key in table.keys where !known.contains(key) {
            throw fail(Phrase("fm_unknown_key_options_has", "\(known.joined(separator: ", "))"), table: "options", key: key)
        }
        guard let values = try header(table, "values", in: "options") else {
            throw fail(Phrase("fm_options_needs_values_the"), table: "options")
        }
        var rule = OptionRule(names: try header(table, "names", in: "options"), values: values)
        rule.prices = try header(table, "prices", in: "options")
        rule.stocks = try header(table, "stocks", in: "options")
        if let split = table["split"] {
            guard let text = split.string, !text.isEmpty, text != "\n" else {
                throw fail(Phrase("fm_must_be_the_separator"), table: "options", key: "split")
            }
            rule.split = text
        }
        rule.perFirst = table["per_first"]?.bool ?? false
        rule.eachLine = table["each_line"]?.bool ?? false
        if let at = table["stock_at"] {
            guard let position = at.int, position >= 1, rule.eachLine else {
                throw fail(Phrase("fm_must_be_a_position"), table: "options", key: "stock_at")
            }
            rule.stockAt = position
        }
        if rule.eachLine, rule.names == nil {
            throw fail(Phrase("fm_each_line_true_needs"), table: "options", key: "each_line")
        }
        return rule
    }

    func readDetect(_ table: TOMLTable) throws(FeedFileError) -> MapDetection {
        let known = ["headers", "any", "title", "title_ko", "label", "aliases", "asks_currency", "needs_key", "platform", "platform_headers", "platform_any",
                     "own_numbers", "own_key"]
        for key in table.keys where !known.contains(key) {
            throw fail(Phrase("fm_unknown_key_detect_has", "\(known.joined(separator: ", "))"), table: "detect", key: key)
        }
        let list = (table["headers"]?.array ?? []).compactMap(\.string)
        guard !list.isEmpty else { throw fail(Phrase("fm_needs_headers_the_headers"), table: "detect", key: "headers") }
        var detection = MapDetection(headers: list, title: table["title"]?.string ?? "a sheet with \(list.joined(separator: ", "))")
        detection.asksCurrency = table["asks_currency"]?.bool ?? false
        detection.needsKey = table["needs_key"]?.bool ?? false
        detection.any = (table["any"]?.array ?? []).compactMap(\.string)
        detection.label = table["label"]?.string
        detection.koreanTitle = table["title_ko"]?.string
        detection.aliases = (table["aliases"]?.array ?? []).compactMap(\.string)
        if let name = table["platform"]?.string {
            let own = (table["own_numbers"]?.array ?? []).compactMap(\.string)
            let headers = (table["platform_headers"]?.array ?? []).compactMap(\.string)
            guard !headers.isEmpty, !own.isEmpty || table["own_key"] != nil else {
                throw fail(Phrase("fm_needs_platform_headers_the", "\(name)"), table: "detect", key: "platform")
            }
            detection.platform = PlatformColumns(name: name, headers: headers, any: (table["platform_any"]?.array ?? []).compactMap(\.string),
                                                 ownNumbers: own, ownKey: table["own_key"]?.string)
        } else if let stray = ["platform_headers", "platform_any", "own_numbers", "own_key"].first(where: { table[$0] != nil }) {
            throw fail(Phrase("fm_needs_platform_the_platform"), table: "detect", key: stray)
        }
        return detection
    }

    private func header(_ table: TOMLTable, _ key: String, in name: String) throws(FeedFileError) -> HeaderRef? {
        guard let value = table[key] else { return nil }
        guard let text = value.string, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw fail(Phrase("fm_must_be_the_supplier_s_header"), table: name, key: key)
        }
        return HeaderRef(text)
    }

    func headers(_ table: TOMLTable, _ key: String, in name: String) throws(FeedFileError) -> [HeaderRef] {
        guard let value = table[key] else { return [] }
        if let text = value.string { return [HeaderRef(text)] }
        guard let list = value.array else { throw fail(Phrase("fm_must_be_a_list_of_headers"), table: name, key: key) }
        let texts = list.compactMap(\.string)
        guard texts.count == list.count else { throw fail(Phrase("fm_must_be_a_list_of_headers_in_quotes"), table: name, key: key) }
        return texts.map(HeaderRef.init)
    }
}
