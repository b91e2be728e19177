import Foundation
import Hummingbird
import Feeds
import Manifest
import OpenMarketContract

/// How a sheet is read, chosen on the page as the CLI's flags choose it: the map (`--map`),
/// rows a platform marks as not on sale (`--include-inactive`), and what another platform's
/// export cannot say (`--currency`, `--default-stock`): the currency its prices are in and the
/// stock of an item available with no count. Carried by the forms of a sheet's Check, Plan and
/// Apply, and by the next steps of their pages, so that an apply reads the sheet as its plan did.
struct PageAnswers: Sendable, Equatable {
    /// The sheet's text encoding, where the check could not tell it (`--encoding`).
    var encoding: TextEncoding?
    var currency: String?
    var defaultStock: Int?
    /// A shipped map by name, or "none" (our own columns only); nil: as the header says.
    var map: String?
    var includeInactive = false

    /// The map menu's choices besides the header's own: our columns only, then each shipped map.
    static let maps = ["none"] + ShippedMaps.names

    init(currency: String? = nil, defaultStock: Int? = nil) {
        self.currency = currency
        self.defaultStock = defaultStock
    }

    /// From a form's `currency` and `default_stock` (blank: not chosen); a value that is none
    /// of the currencies, or no count, is refused.
    init(form: [String: String]) throws {
        if let text = form["currency"]?.trimmingCharacters(in: .whitespaces).uppercased(), !text.isEmpty {
            guard ProductRules.sandboxCurrencies.contains(text) else {
                throw PageRefusal("form_currency", ProductRules.sandboxCurrencies.joined(separator: ", "))
            }
            currency = text
        }
        if let text = form["encoding"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            guard let chosen = TextEncoding(name: text) else { throw PageRefusal("form_encoding", TextEncoding.allCases.map(\.rawValue).joined(separator: ", ")) }
            encoding = chosen
        }
        if let text = form["default_stock"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            guard let count = Int(text), count >= 0 else { throw PageRefusal("form_default_stock") }
            defaultStock = count
        }
        if let text = form["map"]?.trimmingCharacters(in: .whitespaces).lowercased(), !text.isEmpty, text != "auto" {
            guard Self.maps.contains(text) else { throw PageRefusal("form_map", Self.maps.joined(separator: ", ")) }
            map = text
        }
        includeInactive = ["1", "on", "true"].contains(form["include_inactive"] ?? "")
    }

    func apply(_ reading: inout SheetReading) {
        reading.answersOnPage = true
        if let encoding { reading.encoding = encoding }
        if let currency { reading.currency = currency }
        if let defaultStock { reading.defaultStock = defaultStock }
        switch map {
        case nil: reading.map = .recognised
        case "none": reading.map = .none
        case let name?: reading.map = .shipped(name)
        }
        reading.includeInactive = includeInactive
    }

    /// The hidden fields a next step's form carries.
    var hidden: [[String: String]] {
        var fields: [[String: String]] = []
        if let encoding { fields.append(["name": "encoding", "value": encoding.rawValue]) }
        if let currency { fields.append(["name": "currency", "value": currency]) }
        if let defaultStock { fields.append(["name": "default_stock", "value": String(defaultStock)]) }
        if let map { fields.append(["name": "map", "value": map]) }
        if includeInactive { fields.append(["name": "include_inactive", "value": "1"]) }
        return fields
    }
}
