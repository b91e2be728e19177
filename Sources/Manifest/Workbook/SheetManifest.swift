import Foundation

/// Which sheet of a workbook is the manifest, and where its header is.
public struct SheetChoice: Sendable, Equatable {
    /// A sheet's name, or its position among the visible sheets (from 1). Default: the first visible sheet.
    public var sheet: String?
    /// The header's row number as Excel shows it. Default: found (the first row naming two known columns).
    public var headerRow: Int?

    public init(sheet: String? = nil, headerRow: Int? = nil) {
        self.sheet = sheet
        self.headerRow = headerRow
    }
}

/// A workbook's sheet read as a manifest: the header found, then rows numbered as
/// Excel numbers them, with what a cell hides (a date, a formula never computed, an
/// error, a rounded number) as issues of the row.
final class SheetManifest {
    let file: String
    private(set) var sheetName: String
    private var rows: SheetRows
    /// Sheets before the one read that have no header (instructions, a cover page), by name.
    private(set) var skippedSheets: [String] = []
    private(set) var header: [(Int, String)] = []
    private(set) var headerRow = 0
    private(set) var estimatedRows: Int?
    /// Rows read while looking for the header, given out after it.
    static let headerSearchRows = 100

    /// Whether a header is one the reader knows (a feed's map knows the supplier's).
    private let knows: (String) -> Bool

    /// Whether a row is another platform's header (its section row above may name two of our
    /// columns too: SmartStore's `이미지`, `할인`).
    private let isPlatformHeader: (([String]) -> Bool)?
    /// A row of many Korean headers was seen: another marketplace's sheet, which a map reads.
    private var sawPlatformHeader = false
    /// How far below a row naming two of our columns a platform's header is looked for.
    static let platformHeaderLookahead = 5

    init(url: URL, choice: SheetChoice, knows: ((String) -> Bool)? = nil,
         isPlatformHeader: (([String]) -> Bool)? = nil) throws(ManifestError) {
        file = url.lastPathComponent
        self.knows = knows ?? { Column(header: $0) != nil }
        self.isPlatformHeader = knows == nil ? isPlatformHeader : nil
        let workbook = try Workbook(url: url)
        let sheet = try Self.choose(choice.sheet, in: workbook)
        // No sheet named: the first visible sheet with a header (a workbook may open on its instructions).
        let candidates = choice.sheet == nil && choice.headerRow == nil
            ? Array(workbook.sheets.filter(\.visible).drop { $0 != sheet }) : [sheet]
        sheetName = sheet.name
        rows = SheetRows(workbook: workbook, sheet: sheet)
        for (index, candidate) in candidates.enumerated() {
            if index > 0 {
                skippedSheets.append(sheetName)
                sheetName = candidate.name
                rows = SheetRows(workbook: workbook, sheet: candidate)
            }
            do {
                if let fallback = try findHeader(choice.headerRow) {
                    // No platform's header below the first row naming two columns: that row, read again.
                    rows.close()
                    rows = SheetRows(workbook: workbook, sheet: candidate)
                    try findHeader(fallback)
                }
                break
            } catch let error as ManifestError {
                rows.close()
                guard index + 1 < candidates.count else {
                    guard candidates.count > 1 else { throw error }
                    let names = candidates.map { "'\($0.name)'" }.joined(separator: ", ")
                    throw ManifestError(file: file, message: "no sheet has a header row in its first \(Self.headerSearchRows) rows (sheets: \(names)). The header names at least two columns (key, name, price, stock…); name the sheet with --sheet NAME, and its header's row with --header-row N"
                                        + (sawPlatformHeader ? ManifestValidator.mapWay : ""))
                }
            } catch {
                rows.close()
                throw ManifestError(file: file, message: "\(error)")
            }
        }
        if let last = rows.waitForDimension(), last > headerRow { estimatedRows = last - headerRow }
    }

    static func choose(_ wanted: String?, in workbook: Workbook) throws(ManifestError) -> Workbook.Sheet {
        let visible = workbook.sheets.filter(\.visible)
        let names = workbook.sheets.map { "'\($0.name)'\($0.visible ? "" : " (hidden)")" }.joined(separator: ", ")
        guard let wanted else {
            guard let first = visible.first else {
                throw ManifestError(file: workbook.file, message: "the workbook has no visible sheet (sheets: \(names))")
            }
            return first
        }
        if let sheet = workbook.sheets.first(where: { $0.name == wanted }) ?? workbook.sheets.first(where: {
            $0.name.compare(wanted, options: .caseInsensitive) == .orderedSame
        }) {
            guard sheet.visible else {
                throw ManifestError(file: workbook.file, message: "sheet '\(sheet.name)' is hidden; hidden sheets are never read as data (unhide it in Excel to use it)")
            }
            return sheet
        }
        if let position = Int(wanted) {
            guard visible.indices.contains(position - 1) else {
                throw ManifestError(file: workbook.file, message: "--sheet \(position): the workbook has \(visible.count) visible sheet(s) (\(names))")
            }
            return visible[position - 1]
        }
        throw ManifestError(file: workbook.file, message: "no sheet named '\(wanted)' (sheets: \(names))")
    }

    /// Finds the header row; returns the row to read again as the header when a first row
    /// naming two columns was passed over looking for a platform's header below it.
    @discardableResult
    private func findHeader(_ given: Int?) throws -> Int? {
        var firstKnown: Int?
        while let row = try rows.next() {
            if let given {
                if row.number < given { continue }
                guard row.number == given else { break }
            } else {
                if let firstKnown, row.number > firstKnown + Self.platformHeaderLookahead { return firstKnown }
                let texts = row.cells.map { $0.text.trimmingCharacters(in: .whitespaces) }
                if let isPlatformHeader, isPlatformHeader(texts) {
                    // Another platform's header: taken even below a section row that names our columns.
                } else {
                    let known = texts.filter(knows).count
                    if !sawPlatformHeader, ManifestValidator.looksLikePlatform(texts) { sawPlatformHeader = true }
                    guard known >= 2 else {
                        if row.number >= Self.headerSearchRows { break }
                        continue
                    }
                    if isPlatformHeader != nil {
                        if firstKnown == nil { firstKnown = row.number }
                        continue
                    }
                }
            }
            header = row.cells.map { ($0.column, $0.text) }
            headerRow = row.number
            return nil
        }
        if let firstKnown { return firstKnown }
        if let given {
            throw ManifestError(file: file, message: "sheet '\(sheetName)', row \(given) (--header-row) is empty or missing")
        }
        throw ManifestError(file: file, message: "sheet '\(sheetName)': no header row in its first \(Self.headerSearchRows) rows. The header names at least two columns (key, name, price, stock…); give its row with --header-row N"
                            + (sawPlatformHeader ? ManifestValidator.mapWay : ""))
    }

    /// Called once the reader has mapped the header: from then on, rows are turned into
    /// manifest rows on the reading thread (the caller's thread validates them).
    func use(_ columns: [(Int, Column)], bound: (any BoundHeaderMapping)? = nil) {
        let mapper = SheetRowMapper(file: file, header: header, columns: columns, bound: bound)
        self.mapper = mapper
        rows.mapOnReadingThread(mapper)
    }

    private var mapper: SheetRowMapper?

    func close() { rows.close() }

    /// The next row with a value in a known column (or a problem to report), or nil at the end.
    func next() throws -> RawRow? {
        while let item = try rows.nextItem() {
            switch item {
            case .mapped(let row): return row
            case .raw(let row): if let mapped = mapper?.map(row) { return mapped }
            }
        }
        return nil
    }

    /// 0 → `A`, 27 → `AB`.
    static func letters(_ column: Int) -> String {
        var index = column + 1
        var result = ""
        while index > 0 {
            let remainder = (index - 1) % 26
            result = String(UnicodeScalar(UInt8(65 + remainder))) + result
            index = (index - 1) / 26
        }
        return result
    }

    static func reference(_ column: Int, _ row: Int) -> String { "\(letters(column))\(row)" }
}

/// Turns a sheet's row into a manifest row: cells by their header's column, and what a
/// cell hides as the row's issues. Used from the reading thread and the caller's.
final class SheetRowMapper: @unchecked Sendable {
    let file: String
    private let header: [(Int, String)]
    /// The known column of each sheet column (by index from A), nil for the others.
    private let byColumn: [Column?]
    private var warnedUnheaded: Set<Int> = []
    private let lock = NSLock()
    /// A supplier's sheet: every cell by position, through the feed's map.
    private let bound: (any BoundHeaderMapping)?

    init(file: String, header: [(Int, String)], columns: [(Int, Column)], bound: (any BoundHeaderMapping)? = nil) {
        self.file = file
        self.header = header
        self.bound = bound
        var byColumn = [Column?](repeating: nil, count: (columns.map(\.0).max() ?? -1) + 1)
        for (index, column) in columns where byColumn[index] == nil { byColumn[index] = column }
        self.byColumn = byColumn
    }

    /// The manifest row, or nil when the row has nothing in a known column and nothing to report.
    func map(_ row: SheetRow) -> RawRow? {
        if let bound { return mapThrough(bound, row) }
        var values = RowValues()
        var notes: [RowIssue] = []
        var any = false
        for cell in row.cells {
            guard cell.column >= 0, cell.column < byColumn.count, let column = byColumn[cell.column] else {
                // A column with an unknown header has its warning already; one with none gets one here, once.
                if !ManifestReader.isBlank(cell.text), !header.contains(where: { $0.0 == cell.column && !ManifestReader.isBlank($0.1) }),
                   firstUnheaded(cell.column) {
                    notes.append(RowIssue(file: file, row: row.number, column: nil, value: cell.text, severity: .warning,
                                          rule: "column-unheaded",
                                          message: "cell \(SheetManifest.reference(cell.column, row.number)) has a value but column \(SheetManifest.letters(cell.column)) has no header: the column is ignored"))
                }
                continue
            }
            values[column] = cell.text
            if !ManifestReader.isBlank(cell.text) { any = true }
            if let problem = cell.problem { notes.append(issue(problem, cell, column, row.number)); any = true }
        }
        guard any else { return nil }
        return RawRow(number: row.number, values: values, imageList: nil, notes: notes)
    }

    /// A supplier's row: its cells by position, what they hide as notes named by their header.
    private func mapThrough(_ bound: any BoundHeaderMapping, _ row: SheetRow) -> RawRow? {
        let width = max((header.map(\.0).max() ?? -1) + 1, (row.cells.map(\.column).max() ?? -1) + 1)
        var cells = [String](repeating: "", count: max(width, 0))
        var notes: [RowIssue] = []
        for cell in row.cells where cell.column >= 0 {
            cells[cell.column] = cell.text
            guard let problem = cell.problem, let name = header.first(where: { $0.0 == cell.column })?.1 else { continue }
            var note = issue(problem, cell, .name, row.number)
            note.column = name
            notes.append(note)
        }
        guard cells.contains(where: { !ManifestReader.isBlank($0) }) else { return nil }
        return bound.row(cells, number: row.number, notes: notes)
    }

    private func firstUnheaded(_ column: Int) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return warnedUnheaded.insert(column).inserted
    }

    private func issue(_ problem: SheetCell.Problem, _ cell: SheetCell, _ column: Column, _ row: Int) -> RowIssue {
        let place = "cell \(SheetManifest.reference(cell.column, row))"
        func make(_ severity: RowIssue.Severity, _ rule: String, _ message: String) -> RowIssue {
            RowIssue(file: file, row: row, column: column.rawValue, value: cell.text.isEmpty ? nil : cell.text,
                     severity: severity, rule: rule, message: message)
        }
        switch problem {
        case .date:
            return make(.warning, "cell-date", "\(place) is a date; no product column holds dates, so it is read as the text \(cell.text)")
        case .formulaWithoutValue(let formula):
            return make(.error, "cell-formula", "\(place) has a formula (=\(formula)) whose value was never saved: open the workbook in Excel and save it, or paste values")
        case .excelError:
            return make(.error, "cell-error", "\(place) shows the Excel error \(cell.text); fix the formula or type the value")
        case .roundedNumber:
            return make(.warning, "cell-number-rounded", "\(place) is a number of more than 15 digits, which Excel has already rounded: format the column as Text and type it again")
        case .missingString:
            return make(.error, "cell-string", "\(place) refers to a shared string the workbook does not have (the file is damaged)")
        }
    }
}
