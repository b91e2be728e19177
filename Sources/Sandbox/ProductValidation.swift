import Foundation
import OpenMarketContract

/// The contract's rules for the fields of register and edit bodies. Every
/// message names the field, the rule and the value received.
struct ProductValidation: Sendable {
    var currencies: [String]

    static let registerKeys = Set(ProductKey.register.map(\.rawValue))
    static let editKeys = Set(ProductKey.edit.map(\.rawValue))

    /// Refuses keys the endpoint does not know, so that a misspelt field
    /// (`discountedPrice`) is an error instead of a silent default.
    static func rejectUnknownKeys(_ object: [String: JSONValue], allowed: Set<String>, what: String) throws {
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw SandboxError.badRequest(
                "\(what): unknown field '\(unknown)'; accepted fields: \(allowed.sorted().joined(separator: ", "))")
        }
    }

    static func secret(in object: [String: JSONValue]) throws -> String {
        guard let value = object[ProductKey.secret.rawValue] else { throw SandboxError.badRequest("secret: required") }
        guard case .string(let secret) = value else { throw SandboxError.badRequest("secret: must be a string") }
        return secret
    }

    func string(_ field: ProductKey, in object: [String: JSONValue]) throws -> String? {
        let key = field.rawValue
        guard let value = object[key], value != .null else { return nil }
        guard case .string(let text) = value else {
            throw SandboxError.badRequest("\(key): must be a string, got \(value.kind)")
        }
        return text
    }

    func number(_ field: ProductKey, in object: [String: JSONValue]) throws -> Double? {
        let key = field.rawValue
        guard let value = object[key], value != .null else { return nil }
        guard case .number(let number) = value, number.isFinite else {
            throw SandboxError.badRequest("\(key): must be a number, got \(value.kind)")
        }
        return number
    }

    func integer(_ field: ProductKey, in object: [String: JSONValue]) throws -> Int? {
        let key = field.rawValue
        guard let number = try number(field, in: object) else { return nil }
        guard number.rounded() == number, abs(number) < 1e15, let integer = Int(exactly: number) else {
            throw SandboxError.badRequest("\(key): must be a whole number, got \(plain(number))")
        }
        return integer
    }

    /// Reads a register body: every required field present, all rules met.
    func registerFields(_ object: [String: JSONValue]) throws -> ProductFields {
        func require<T>(_ key: ProductKey, _ value: T?) throws -> T {
            guard let value else { throw SandboxError.badRequest("\(key.rawValue): required") }
            return value
        }
        var fields = ProductFields(
            name: try require(ProductKey.name, string(ProductKey.name, in: object)),
            description: try require(ProductKey.description, string(ProductKey.description, in: object)),
            currency: try require(ProductKey.currency, string(ProductKey.currency, in: object)),
            price: try require(ProductKey.price, number(ProductKey.price, in: object)),
            discountedPrice: try number(ProductKey.discountedPrice, in: object) ?? 0,
            stock: try integer(ProductKey.stock, in: object) ?? 0)
        try check(&fields)
        return fields
    }

    /// Applies the fields present in an edit body, then checks the whole.
    func applyEdit(_ object: [String: JSONValue], to fields: inout ProductFields) throws {
        if let name = try string(ProductKey.name, in: object) { fields.name = name }
        if let description = try string(ProductKey.description, in: object) { fields.description = description }
        if let currency = try string(ProductKey.currency, in: object) { fields.currency = currency }
        if let price = try number(ProductKey.price, in: object) { fields.price = price }
        if let discount = try number(ProductKey.discountedPrice, in: object) { fields.discountedPrice = discount }
        if let stock = try integer(ProductKey.stock, in: object) { fields.stock = stock }
        try check(&fields)
    }

    /// The rules; trims the name and normalises the currency's case.
    func check(_ fields: inout ProductFields) throws {
        fields.name = fields.name.trimmingCharacters(in: .whitespacesAndNewlines)
        let nameLength = ProductRules.characterCount(fields.name)
        guard ProductRules.nameLength.contains(nameLength) else {
            throw SandboxError.badRequest(
                "name: must be \(ProductRules.nameLength.lowerBound) to \(ProductRules.nameLength.upperBound) characters, got \(nameLength)")
        }
        let descriptionLength = ProductRules.characterCount(fields.description)
        guard descriptionLength <= ProductRules.descriptionMaxLength else {
            throw SandboxError.badRequest(
                "description: must be at most \(ProductRules.descriptionMaxLength) characters, got \(descriptionLength)")
        }
        guard fields.price >= 0 else {
            throw SandboxError.badRequest("price: must be 0 or more, got \(plain(fields.price))")
        }
        guard fields.discountedPrice >= 0, fields.discountedPrice <= fields.price else {
            throw SandboxError.badRequest(
                "discounted_price: must be between 0 and the price (\(plain(fields.price))), got \(plain(fields.discountedPrice))")
        }
        guard fields.stock >= 0 else {
            throw SandboxError.badRequest("stock: must be 0 or more, got \(fields.stock)")
        }
        let currency = fields.currency.uppercased()
        guard currencies.contains(currency) else {
            throw SandboxError.badRequest(
                "currency: must be one of \(currencies.joined(separator: ", ")), got '\(fields.currency)'")
        }
        fields.currency = currency
    }
}
