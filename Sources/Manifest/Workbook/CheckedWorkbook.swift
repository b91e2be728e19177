import Foundation

/// `validate --format xlsx`: the manifest as a workbook to fix, rows with errors first,
/// each with what is wrong in an `errors` column (ignored when the file is read again),
/// then the rows without errors; every row keeps its original number in `row`.
public enum CheckedWorkbook {
    public static func write(_ manifest: URL, options: ValidationOptions, to url: URL,
                             onFileIssue: (RowIssue) -> Void = { _ in }) throws -> ValidationSummary {
        let book = try SpreadsheetWriter(url: url, sheetName: "Checked")
        var columns: [Column] = []
        var failed = Set<Int>()
        var started = false
        var writeError: (any Error)?
        func cells(_ raw: RawRow, _ issues: [RowIssue]) -> [SpreadsheetWriter.Cell] {
            columns.map { column -> SpreadsheetWriter.Cell in
                let value = column == .images ? (raw.imageList?.joined(separator: ";") ?? raw.values[.images]) : raw.values[column]
                guard let value, !value.isEmpty else { return .empty }
                return [.price, .discountedPrice, .stock].contains(column) ? .number(value) : .text(value)
            } + [issues.isEmpty ? .empty : .text(issues.map(describe).joined(separator: "\n")), .number(String(raw.number))]
        }
        func start(_ reader: ManifestReader) {
            guard !started else { return }
            started = true
            columns = ManifestTemplate.columns.filter { reader.columns.contains($0) }
            book.header(columns.map(\.rawValue) + [ManifestReader.errorsHeader, "row"])
        }
        do {
            // First pass: the rows with errors, as they are found.
            let summary = try ManifestCheck.run(
                manifest, encoding: options.encoding, delimiter: options.delimiter, options: options,
                onOpen: start, onFileIssue: onFileIssue,
                onRow: { raw, _, issues in
                    guard issues.contains(where: { $0.severity == .error }) else { return }
                    failed.insert(raw.number)
                    do { try book.write(cells(raw, issues)) } catch { writeError = writeError ?? error }
                })
            if let writeError { throw writeError }
            // Second pass: the others (warnings kept), in file order.
            let validator: ManifestValidator
            let reader = try ManifestReader(url: manifest, encoding: options.encoding, delimiter: options.delimiter, sheet: options.sheet,
                                            mapping: options.mapping, platformMaps: options.platformMaps)
            start(reader)
            validator = ManifestValidator(reader: reader, options: options)
            while let raw = try reader.next() {
                guard raw.origin?.skipped == nil else { continue }
                let (_, issues) = validator.validate(raw)
                guard !failed.contains(raw.number) else { continue }
                try book.write(cells(raw, issues))
            }
            try book.close()
            return summary
        } catch {
            book.abandon()
            throw error
        }
    }

    static func describe(_ issue: RowIssue) -> String {
        "\(issue.severity.rawValue) \(issue.column ?? "-"): \(issue.message) [\(issue.rule)]"
    }
}
