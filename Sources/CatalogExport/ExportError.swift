import Foundation

public enum ExportError: Error, Sendable, CustomStringConvertible {
    case cannotWrite(String)
    case earlierExport(String)
    case resumeMismatch(String)
    case needsCredentials(String)
    case server(String)

    public var description: String {
        switch self {
        case .cannotWrite(let path): "cannot write \(path)"
        case .earlierExport(let detail): detail
        case .resumeMismatch(let detail): detail
        case .needsCredentials(let detail): detail
        case .server(let detail): detail
        }
    }
}
