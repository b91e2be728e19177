import Foundation

/// The most a cell may hold. A product's longest field is its description (1,000 characters
/// sent, an HTML source a good deal longer): a cell past a mebibyte is no product's, and one of
/// 200 MB cost gigabytes of memory and a 200-million-character line on the terminal. Such a
/// cell is emptied where it is read and its row fails, naming it; the other rows go on.
public enum CellLimit {
    public static let bytes = 1 << 20

    /// Empties the fields past the limit; the issues that fail the row.
    static func cap(_ fields: inout [String], file: String, row: Int, headers: [Int: String]) -> [RowIssue] {
        var issues: [RowIssue] = []
        for index in fields.indices where fields[index].utf8.count > bytes {
            issues.append(issue(file: file, row: row, column: headers[index] ?? "#\(index + 1)", fields[index]))
            fields[index] = ""
        }
        return issues
    }

    static func issue(file: String, row: Int, column: String, _ value: String) -> RowIssue {
        let size = ByteCountFormatter.string(fromByteCount: Int64(value.utf8.count), countStyle: .binary)
        return RowIssue(file: file, row: row, column: column, value: String(value.prefix(40)) + "…", severity: .error, rule: "cell-too-long",
                        message: "a cell of \(size): openmarket reads cells up to 1 MB (a description is sent as at most 1,000 characters); this row is not read")
    }
}
