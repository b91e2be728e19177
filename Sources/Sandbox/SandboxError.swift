/// An answer the sandbox gives on purpose: a status and a message that names
/// the field or the rule. Rendered as `{"code": ..., "message": ...}`.
struct SandboxError: Error, Sendable {
    var status: Int
    var message: String

    static func badRequest(_ message: String) -> SandboxError { .init(status: 400, message: message) }
    static func unauthorized(_ message: String) -> SandboxError { .init(status: 401, message: message) }
    static func forbidden(_ message: String) -> SandboxError { .init(status: 403, message: message) }
    static func notFound(_ message: String) -> SandboxError { .init(status: 404, message: message) }
    static func tooLarge(_ message: String) -> SandboxError { .init(status: 413, message: message) }
}

import Foundation

enum SandboxJSON {
    /// The sandbox's JSON encoder: URLs written without escaped slashes.
    static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return try encoder.encode(value)
    }
}

/// A number as a person writes it in a message: `500`, not `500.0`.
func plain(_ value: Double) -> String {
    if value.rounded() == value, abs(value) < 1e15 { return String(Int(value)) }
    return String(value)
}
