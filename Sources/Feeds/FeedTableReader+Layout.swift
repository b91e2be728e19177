import Foundation
import Manifest
import TOMLKit

/// The parts of a map file that read another platform's export: values made of several
/// columns, `[rows]`, `[photos]` and `[detect]` (see `ValueSpec`, `RowLayout`, `PhotoRule`,
/// `MapDetection`).
extension FeedTableReader {
    /// A `[columns]` value that is a list or a table.
    func spec(_ value: any TOMLValueConvertible, key: String) throws(FeedFileError) -> ValueSpec {
        if let text = value.string {
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw fail("must not be empty", table: "columns", key: key) }
            return ValueSpec.parse(text)
        }
        if let list = value.array {
            guard !list.isEmpty else { throw fail("a list of values to try in order must not be empty", table: "columns", key: key) }
            var specs: [ValueSpec] = []
            for item in list { specs.append(try spec(item, key: key)) }
            return .first(specs)
        }
        guard let table = value.table else {
            throw fail("must be a header, a text of fields, a list or a table", table: "columns", key: key)
        }
        let known = ["value", "text", "when_above", "when_below", "when_set", "else", "map", "quiet", "unit", "percent_of"]
        for name in table.keys where !known.contains(name) {
            throw fail("unknown key \(name); a value's table has \(known.joined(separator: ", "))", table: "columns", key: key)
        }
        if let text = table["text"] {
            guard let literal = Self.text(text), table.keys.count == 1 else {
                throw fail("text = \"…\" is a fixed value, alone in its table", table: "columns", key: key)
            }
            return .text(literal)
        }
        guard let inner = table["value"] else { throw fail("a value's table needs value = \"their header\"", table: "columns", key: key) }
        var result = try spec(inner, key: key)
        let tests = ["when_above", "when_below", "when_set"].filter { table[$0] != nil }
        if tests.count > 1 { throw fail("one of when_above, when_below, when_set", table: "columns", key: key) }
        if let name = tests.first {
            guard let header = table[name]?.string, !header.isEmpty else { throw fail("\(name) must be a header", table: "columns", key: key) }
            let ref = HeaderRef(header)
            let test: ValueChoice.Test = name == "when_above" ? .above(ref) : name == "when_below" ? .below(ref) : .set(ref)
            var choice = ValueChoice(value: result, test: test, otherwise: try table["else"].map { value throws(FeedFileError) in try spec(value, key: key) })
            choice.quiet = table["quiet"]?.bool ?? false
            result = .choice(choice)
        } else if table["else"] != nil {
            throw fail("else needs a test: when_above, when_below or when_set", table: "columns", key: key)
        }
        if table["unit"] != nil || table["percent_of"] != nil {
            guard let unit = table["unit"], let base = table["percent_of"] else {
                throw fail("an amount in won or percent needs both unit = \"its unit's header\" and percent_of = \"the header of the amount a percent is of\"",
                           table: "columns", key: key)
            }
            result = .percent(PercentAmount(value: result, unit: try spec(unit, key: key), base: try spec(base, key: key)))
        }
        if let map = table["map"] {
            let words = try self.table(map, "columns", key: key)
            var entries: [String: String] = [:]
            for word in words.keys {
                guard let value = words[word].flatMap(Self.text) else { throw fail("\(word): must be a text or a number", table: "columns", key: key) }
                entries[word.trimmingCharacters(in: .whitespaces)] = value
            }
            result = .mapped(result, ValueMap(entries: entries))
        }
        return result
    }

    func readLayout(_ table: TOMLTable) throws(FeedFileError) -> RowLayout {
        let known = ["group_by", "parent", "parent_ids", "fill_down", "products", "blank", "not_rows", "guide"]
        for key in table.keys where !known.contains(key) {
            throw fail("unknown key; [rows] has \(known.joined(separator: ", "))", table: "rows", key: key)
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
                throw fail("must be a list of words in quotes (the cells of a row that is no product)", table: "rows", key: "not_rows")
            }
            layout.notRows = Set(list.compactMap(\.string))
        }
        if let words = table["guide"] {
            guard let list = words.array, !list.isEmpty, list.allSatisfy({ ($0.string ?? "").isEmpty == false }) else {
                throw fail("must be a list of words in quotes (a cell of the form's guide row under the header holds one)", table: "rows", key: "guide")
            }
            layout.guide = list.compactMap(\.string)
        }
        if layout.groupBy != nil && layout.parent != nil { throw fail("group_by or parent, not both", table: "rows", key: "parent") }
        if layout.parent != nil && layout.parentIDs.isEmpty {
            throw fail("parent needs parent_ids: the columns a parent is named by (\"ID\", \"SKU\")", table: "rows", key: "parent")
        }
        return layout
    }

    func readPhotos(_ table: TOMLTable) throws(FeedFileError) -> PhotoRule {
        let known = ["from", "order", "own", "split", "whole_group", "most"]
        for key in table.keys where !known.contains(key) {
            throw fail("unknown key; [photos] has \(known.joined(separator: ", "))", table: "photos", key: key)
        }
        let from = try headers(table, "from", in: "photos")
        guard !from.isEmpty else { throw fail("[photos] needs from = \"their photo column\" (or a list of them, in order)", table: "photos") }
        var rule = PhotoRule(from: from)
        rule.order = try header(table, "order", in: "photos")
        rule.own = try header(table, "own", in: "photos")
        if let split = table["split"] {
            if let text = split.string { rule.split = [text] } else if let list = split.array, list.allSatisfy({ $0.string != nil }) {
                rule.split = list.compactMap(\.string)
            } else {
                throw fail("must be a separator in quotes (\"|\"), or a list of them ([\"\\n\", \",\"])", table: "photos", key: "split")
            }
        }
        rule.wholeGroup = table["whole_group"]?.bool ?? false
        if let most = table["most"] {
            guard let count = most.int, count >= 1 else { throw fail("must be a count, 1 or more", table: "photos", key: "most") }
            rule.most = count
        }
        return rule
    }

    func readOptions(_ table: TOMLTable) throws(FeedFileError) -> OptionRule {
        let known = ["names", "values", "prices", "stocks", "split", "per_first", "each_line", "stock_at"]
        for key in table.keys where !known.contains(key) {
            throw fail("unknown key; [options] has \(known.joined(separator: ", "))", table: "options", key: key)
        }
        guard let values = try header(table, "values", in: "options") else {
            throw fail("[options] needs values = \"the option values' column\" (and names = \"the option names' column\", unless the values name themselves: 색상{빨강|파랑})", table: "options")
        }
        var rule = OptionRule(names: try header(table, "names", in: "options"), values: values)
        rule.prices = try header(table, "prices", in: "options")
        rule.stocks = try header(table, "stocks", in: "options")
        if let split = table["split"] {
            guard let text = split.string, !text.isEmpty, text != "\n" else {
                throw fail("must be the separator between one name's values in quotes (\",\"); a line break separates names", table: "options", key: "split")
            }
            rule.split = text
        }
        rule.perFirst = table["per_first"]?.bool ?? false
        rule.eachLine = table["each_line"]?.bool ?? false
        if let at = table["stock_at"] {
            guard let position = at.int, position >= 1, rule.eachLine else {
                throw fail("must be a position, 1 or more, after an option's values on its line (with each_line = true)", table: "options", key: "stock_at")
            }
            rule.stockAt = position
        }
        if rule.eachLine, rule.names == nil {
            throw fail("each_line = true needs names = \"the option names' column\"", table: "options", key: "each_line")
        }
        return rule
    }

    func readDetect(_ table: TOMLTable) throws(FeedFileError) -> MapDetection {
        let known = ["headers", "any", "title", "title_ko", "label", "aliases", "asks_currency", "needs_key", "platform", "platform_headers", "platform_any",
                     "own_numbers", "own_key"]
        for key in table.keys where !known.contains(key) {
            throw fail("unknown key; [detect] has \(known.joined(separator: ", "))", table: "detect", key: key)
        }
        let list = (table["headers"]?.array ?? []).compactMap(\.string)
        guard !list.isEmpty else { throw fail("needs headers = [the headers that make a file this platform's]", table: "detect", key: "headers") }
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
                throw fail("needs platform_headers = [the headers that make a file surely \(name)'s] and own_numbers = [its own number columns] or own_key", table: "detect", key: "platform")
            }
            detection.platform = PlatformColumns(name: name, headers: headers, any: (table["platform_any"]?.array ?? []).compactMap(\.string),
                                                 ownNumbers: own, ownKey: table["own_key"]?.string)
        } else if let stray = ["platform_headers", "platform_any", "own_numbers", "own_key"].first(where: { table[$0] != nil }) {
            throw fail("needs platform = \"the platform's name\" beside it", table: "detect", key: stray)
        }
        return detection
    }

    private func header(_ table: TOMLTable, _ key: String, in name: String) throws(FeedFileError) -> HeaderRef? {
        guard let value = table[key] else { return nil }
        guard let text = value.string, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw fail("must be the supplier's header in quotes", table: name, key: key)
        }
        return HeaderRef(text)
    }

    func headers(_ table: TOMLTable, _ key: String, in name: String) throws(FeedFileError) -> [HeaderRef] {
        guard let value = table[key] else { return [] }
        if let text = value.string { return [HeaderRef(text)] }
        guard let list = value.array else { throw fail("must be a list of headers", table: name, key: key) }
        let texts = list.compactMap(\.string)
        guard texts.count == list.count else { throw fail("must be a list of headers in quotes", table: name, key: key) }
        return texts.map(HeaderRef.init)
    }
}
