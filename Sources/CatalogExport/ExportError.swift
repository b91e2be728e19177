/// Why an export or a migration cannot start or go on, said so a person can act on it.
public struct ExportError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
