import CXLSXWriter
import Foundation

/// Writes one sheet of an .xlsx workbook with libxlsxwriter, row by row in its
/// constant-memory mode (a row is on disk once the next begins). The header row is
/// bold and frozen; text that Excel would change (leading zeros, long digit strings,
/// `1e5`, dates) is written as text cells, amounts as numbers.
public final class SpreadsheetWriter {
    public enum Cell: Equatable {
        /// A text cell, exactly these characters.
        case text(String)
        /// A number cell (what was typed is kept: `4500`, `12.5`), or a text cell when
        /// Excel could not keep it (more than 15 digits, not a plain decimal).
        case number(String)
        case empty
    }

    private let url: URL
    private var workbook: UnsafeMutablePointer<lxw_workbook>?
    private var sheets: [(sheet: UnsafeMutablePointer<lxw_worksheet>, row: UInt32)] = []
    private var current = 0
    private var sheet: UnsafeMutablePointer<lxw_worksheet> { sheets[current].sheet }
    private var row: UInt32 {
        get { sheets[current].row }
        set { sheets[current].row = newValue }
    }
    private let bold: UnsafeMutablePointer<lxw_format>
    private let wrap: UnsafeMutablePointer<lxw_format>
    private let textFormat: UnsafeMutablePointer<lxw_format>
    private var failure: lxw_error = LXW_NO_ERROR
    /// The sheets' names as written (`sheetName`), to keep each one unique.
    private var sheetNames: [String] = []

    /// Starts the workbook at `url` (replaced when complete; see `close`) with one sheet.
    public init(url: URL, sheetName: String = "Products") throws {
        self.url = url
        var options = lxw_workbook_options()
        options.constant_memory = UInt8(LXW_TRUE.rawValue)
        let tmp = strdup(FileManager.default.temporaryDirectory.path)
        defer { free(tmp) }
        options.tmpdir = tmp
        options.use_zip64 = UInt8(LXW_TRUE.rawValue)
        guard let workbook = workbook_new_opt(url.path, &options),
              let sheet = workbook_add_worksheet(workbook, Self.sheetName(sheetName, besides: [])),
              let bold = workbook_add_format(workbook), let wrap = workbook_add_format(workbook),
              let textFormat = workbook_add_format(workbook) else {
            throw ManifestError(file: url.lastPathComponent, message: "cannot start the workbook")
        }
        format_set_bold(bold)
        format_set_text_wrap(wrap)
        format_set_num_format(textFormat, "@")
        self.workbook = workbook
        sheets = [(sheet, 0)]
        sheetNames = [Self.sheetName(sheetName, besides: [])]
        self.bold = bold
        self.wrap = wrap
        self.textFormat = textFormat
    }

    deinit {
        // Not closed: nothing half-written is left under the name.
        if workbook != nil { abandon() }
    }

    /// The sheet being written, to `select` it again later.
    public var currentSheet: Int { current }

    /// Adds a sheet after the others and writes to it from now on.
    @discardableResult
    public func addSheet(_ name: String) throws -> Int {
        let fitting = Self.sheetName(name, besides: sheetNames)
        guard let workbook, let added = workbook_add_worksheet(workbook, fitting) else {
            throw ManifestError(file: url.lastPathComponent, message: "cannot add the sheet \(name)")
        }
        sheets.append((added, 0))
        sheetNames.append(fitting)
        current = sheets.count - 1
        return current
    }

    /// A sheet's name as Excel takes it, whatever a translation made of it: no `[ ] : * ? / \`
    /// (brackets become parentheses, the rest `-`), no apostrophe at either end, at most 31
    /// characters, and not one already `besides` (Excel compares them without case): `2` after.
    public static func sheetName(_ wanted: String, besides: [String]) -> String {
        var name = String(wanted.map { character -> Character in
            switch character {
            case "[": "("
            case "]": ")"
            case ":", "*", "?", "/", "\\": "-"
            default: character
            }
        }).trimmingCharacters(in: CharacterSet(charactersIn: "' "))
        if name.isEmpty { name = "Sheet" }
        name = String(name.prefix(31))
        let taken = Set(besides.map { $0.lowercased() })
        var candidate = name
        var number = 2
        while taken.contains(candidate.lowercased()) {
            candidate = String(name.prefix(31 - " \(number)".count)) + " \(number)"
            number += 1
        }
        return candidate
    }

    /// Writes to this sheet (each sheet's rows go down in order).
    public func select(_ sheet: Int) { current = sheet }

    /// The creation date the workbook records (default: now). A fixed one makes the same
    /// content the same bytes (the committed template).
    public func created(_ date: Date) {
        guard let workbook else { return }
        var properties = lxw_doc_properties()
        properties.created = time_t(date.timeIntervalSince1970)
        keep(workbook_set_properties(workbook, &properties))
    }

    /// Column widths in characters, from A.
    public func widths(_ widths: [Double]) {
        for (index, width) in widths.enumerated() {
            worksheet_set_column(sheet, UInt16(index), UInt16(index), width, nil)
        }
    }

    /// A row of notes above the header (a template's instructions), in its first cell.
    public func note(_ text: String) {
        keep(worksheet_write_string(sheet, row, 0, text, wrap))
        row += 1
    }

    /// The header row: bold, and frozen so it stays in view.
    public func header(_ names: [String]) {
        for (index, name) in names.enumerated() { keep(worksheet_write_string(sheet, row, UInt16(index), name, bold)) }
        worksheet_freeze_panes(sheet, row + 1, 0)
        row += 1
    }

    /// A drop-down list of allowed values for a column, from the next row down.
    public func choices(column: Int, _ values: [String], rows: Int = 10_000) {
        var validation = lxw_data_validation()
        validation.validate = UInt8(LXW_VALIDATION_TYPE_LIST.rawValue)
        let strings = values.map { strdup($0) } + [nil]
        defer { strings.forEach { free($0) } }
        var pointers = strings
        pointers.withUnsafeMutableBufferPointer { list in
            validation.value_list = list.baseAddress
            keep(worksheet_data_validation_range(sheet, row, UInt16(column), row + UInt32(rows), UInt16(column), &validation))
        }
    }

    /// Excel's most characters in a cell: a longer text is written to it cut (a cell over it
    /// makes Excel refuse the whole file), counted in `cutCells`.
    public static let cellCharacters = 32_767
    /// The cells written cut, by row (as Excel numbers it) and column (from 0): the caller says so.
    public private(set) var cutCells: [(row: Int, column: Int)] = []

    public func write(_ cells: [Cell]) throws {
        for (index, cell) in cells.enumerated() {
            let column = UInt16(index)
            switch cell {
            case .empty: continue
            case .text(var text):
                if text.unicodeScalars.count > Self.cellCharacters {
                    text = String(String.UnicodeScalarView(text.unicodeScalars.prefix(Self.cellCharacters)))
                    cutCells.append((Int(row) + 1, index))
                }
                keep(worksheet_write_string(sheet, row, column, text, Self.looksLikeNumber(text) ? textFormat : nil))
            case .number(let text):
                if let value = Self.excelNumber(text) {
                    keep(worksheet_write_number(sheet, row, column, value, nil))
                } else {
                    keep(worksheet_write_string(sheet, row, column, text, textFormat))
                }
            }
        }
        row += 1
        if failure != LXW_NO_ERROR { throw error() }
    }

    /// Writes the workbook out.
    public func close() throws {
        guard let workbook else { return }
        self.workbook = nil
        let result = workbook_close(workbook)
        if failure == LXW_NO_ERROR { failure = result }
        if failure != LXW_NO_ERROR {
            try? FileManager.default.removeItem(at: url)
            throw error()
        }
    }

    /// Gives up: no file is left.
    public func abandon() {
        guard let workbook else { return }
        self.workbook = nil
        _ = workbook_close(workbook)
        try? FileManager.default.removeItem(at: url)
    }

    private func keep(_ result: lxw_error) {
        if failure == LXW_NO_ERROR, result != LXW_NO_ERROR { failure = result }
    }

    private func error() -> ManifestError {
        let reason = lxw_strerror(failure).map { String(cString: $0) } ?? "error \(failure.rawValue)"
        return ManifestError(file: url.lastPathComponent, message: "cannot write the workbook (\(reason))")
    }

    /// A plain decimal that a number cell keeps exactly: at most 15 significant digits,
    /// no leading zero before other digits (`00123` is a code, not a number).
    static func excelNumber(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard let plain = bytes.withUnsafeBufferPointer(CellText.plainDecimal), plain.significant <= 15 else { return nil }
        return Double(text)
    }

    /// Text that Excel would turn into a number or a date if typed: stored with the Text format.
    static func looksLikeNumber(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first else { return false }
        return first.properties.numericType != nil || first == "-" || first == "+" || first == "."
    }
}
