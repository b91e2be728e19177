import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The rest of a file read as UTF-8 on the word of its first megabyte (`TextEncoding.sniff`),
/// checked as the reader reads it: each chunk once, on the thread that reads it, while the
/// rows already read are checked on the others. Before, `validate` read a million-row file
/// twice: once alone to tell its encoding, then again for its rows (issue 80).
///
/// A byte that is not UTF-8, or a NUL, ends the reading there; the run then reads the whole
/// file as `detect` does and throws what it says (`ManifestReader.encodingFailure`), so that
/// the outcome is the one a whole first pass gave. Only a door that confirms it at the end
/// reads so (`ManifestCheck`); import decides the encoding before anything is sent.
final class EncodingCheck: @unchecked Sendable {
    private var validator = UTF8Validator()
    private var offset = 0
    /// Where the reading stopped: the offset of the first byte that is not UTF-8 or is NUL.
    private(set) var failedAt: Int?

    /// The next bytes of the file, in order; false once a byte is not UTF-8 text.
    func check(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard failedAt == nil else { return false }
        if let base = bytes.baseAddress, let nul = memchr(base, 0, bytes.count) {
            failedAt = offset + base.distance(to: UnsafeRawPointer(nul))
            return false
        }
        validator.feed(bytes, at: offset)
        offset += bytes.count
        if let invalid = validator.firstInvalid { failedAt = invalid }
        return failedAt == nil
    }

    func check(_ data: Data) -> Bool {
        data.withUnsafeBytes { check($0) }
    }

    /// The end of the file: a character cut off there is not UTF-8 either.
    func finish() {
        if failedAt == nil, let cut = validator.finish(at: offset) { failedAt = cut }
    }
}

extension ManifestReader {
    /// What reading the file whole says, when a byte past its first megabyte was not UTF-8
    /// (the reading stopped there): the error `detect` gives such a file; or, for a file that
    /// reads as CP949 whole, that the run must be told (its first megabyte read as UTF-8).
    /// nil when the file was UTF-8 to its end (or its encoding was decided before reading).
    public func encodingFailure() -> ManifestError? {
        guard let check = encodingCheck, let failedAt = check.failedAt else { return nil }
        do {
            let whole = try TextEncoding.detect(url, file: fileName)
            return ManifestError(
                file: fileName,
                message: whole == .utf8
                    ? "the file changed while it was read (byte \(failedAt) was not UTF-8); read it again"
                    : "its first megabyte is UTF-8 text but byte \(failedAt) is not: the file reads whole as \(whole.rawValue); pass --encoding \(whole.rawValue) if it is", encodingUnknown: true)
        } catch let error as ManifestError {
            return error
        } catch {
            return ManifestError(file: fileName, message: "\(error)")
        }
    }
}
