import Foundation

/// Why a file operation failed, in the system's words ("No space left on device"),
/// not Foundation's wrapper ("Error Domain=NSCocoaErrorDomain Code=640 …"); the
/// file's path first when the error names one. Other errors describe themselves.
public func fileErrorReason(_ error: any Error) -> String {
    if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
    let ns = error as NSError
    guard ns.domain == NSCocoaErrorDomain || ns.domain == NSPOSIXErrorDomain else { return "\(error)" }
    let path = (ns.userInfo[NSFilePathErrorKey] as? String) ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path
    let reason: String
    if ns.domain == NSPOSIXErrorDomain {
        reason = String(cString: strerror(Int32(ns.code)))
    } else if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
        reason = String(cString: strerror(Int32(underlying.code)))
    } else {
        switch CocoaError.Code(rawValue: ns.code) {
        case .fileWriteOutOfSpace: reason = String(cString: strerror(ENOSPC))
        case .fileWriteNoPermission, .fileReadNoPermission: reason = String(cString: strerror(EACCES))
        case .fileNoSuchFile, .fileReadNoSuchFile: reason = String(cString: strerror(ENOENT))
        default: reason = ns.localizedDescription
        }
    }
    return path.map { "\($0): \(reason)" } ?? reason
}
