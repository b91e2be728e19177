import Foundation

/// Counts of a validation run.
public struct ValidationSummary: Sendable, Equatable, Codable {
    public var rows = 0
    public var valid = 0
    public var withErrors = 0
    public var withWarnings = 0
    /// Problems of the file as a whole (a missing column).
    public var fileErrors = 0

    enum CodingKeys: String, CodingKey {
        case rows, valid
        case withErrors = "with_errors"
        case withWarnings = "with_warnings"
        case fileErrors = "file_errors"
    }

    public var hasErrors: Bool { withErrors > 0 || fileErrors > 0 }
}

/// Reads and validates a whole manifest as a stream: `onRow` sees each
/// row's draft (if valid) and issues as soon as the row is read.
public enum ManifestCheck {
    public static func run(
        _ url: URL, format: ManifestFormat? = nil, encoding: TextEncoding? = nil, delimiter: Character? = nil,
        options: ValidationOptions,
        onFileIssue: (RowIssue) -> Void,
        onRow: (RawRow, ProductDraft?, [RowIssue]) -> Void
    ) throws(ManifestError) -> ValidationSummary {
        let reader: ManifestReader
        do { reader = try ManifestReader(url: url, format: format, encoding: encoding, delimiter: delimiter) }
        catch let error as ManifestError { throw error }
        catch { throw ManifestError(file: url.lastPathComponent, message: "\(error)") }
        var summary = ValidationSummary()
        let fileIssues = ManifestValidator.fileIssues(reader)
        for issue in fileIssues {
            if issue.severity == .error { summary.fileErrors += 1 }
            onFileIssue(issue)
        }
        let validator = ManifestValidator(reader: reader, options: options)
        while true {
            let next: RawRow?
            do { next = try reader.next() }
            catch let error as ManifestError { throw error }
            catch { throw ManifestError(file: url.lastPathComponent, message: "\(error)") }
            guard let raw = next else { break }
            let (draft, issues) = validator.validate(raw)
            summary.rows += 1
            if issues.contains(where: { $0.severity == .error }) { summary.withErrors += 1 } else { summary.valid += 1 }
            if issues.contains(where: { $0.severity == .warning }) { summary.withWarnings += 1 }
            onRow(raw, draft, issues)
        }
        return summary
    }
}
