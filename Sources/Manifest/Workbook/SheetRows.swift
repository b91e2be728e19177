import Foundation
import Support

/// One non-empty cell of a sheet, as the merchant sees it.
struct SheetCell: Sendable {
    enum Problem: Sendable, Equatable {
        /// A date or time cell (the text is the date).
        case date
        /// A formula whose value was never saved (the formula's text).
        case formulaWithoutValue(String)
        /// An Excel error value such as #N/A.
        case excelError
        /// A number of more than 15 digits: Excel has already rounded it.
        case roundedNumber
        /// A shared string index that the workbook does not have.
        case missingString
    }

    /// From 0 for column A.
    var column: Int
    var text: String
    var problem: Problem?
}

/// One row of a sheet: its number as Excel shows it, and its non-empty cells.
struct SheetRow: Sendable {
    var number: Int
    var cells: [SheetCell]
}

/// Streams the rows of one sheet: a thread inflates and tokenizes the sheet part while
/// the caller takes rows, in batches through a bounded queue (memory stays flat).
final class SheetRows: @unchecked Sendable {
    private enum Batch {
        case rows([SheetRow])
        case mapped([RawRow])
        case failure(any Error)
    }

    /// A row as read, or already turned into a manifest row on the reading thread.
    enum Item {
        case raw(SheetRow)
        case mapped(RawRow)
    }

    private let queue = BoundedQueue<Batch>(capacity: 8)
    private var pending: [SheetRow] = []
    private var pendingMapped: [RawRow] = []
    private var position = 0
    private var mapper: SheetRowMapper?
    private var failed: (any Error)?
    private let lock = NSLock()
    private var stopped = false
    /// The last row the sheet's `<dimension>` names, when it has one.
    private(set) var lastRow: Int?
    private let dimension = NSCondition()
    private var dimensionKnown = false

    init(workbook: Workbook, sheet: Workbook.Sheet) {
        let thread = Thread { [self] in
            var handler = SheetHandler(strings: workbook.sharedStrings, dateStyles: workbook.dateStyles,
                                       uses1904: workbook.uses1904)
            var batch: [SheetRow] = []
            handler.onDimension = { [self] last in setDimension(last) }
            handler.emit = { [self] row in
                if isStopped { throw Workbook.StopReading() }
                batch.append(row)
                if batch.count >= 256 {
                    flush(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            do {
                if let table = ODSContent.index(of: sheet.path) {
                    var sheetHandler = ODSSheetHandler(table: table)
                    sheetHandler.emit = handler.emit
                    sheetHandler.onDimension = handler.onDimension
                    do { try workbook.parse(ODSContent.part, limit: workbook.budget.sheet, into: &sheetHandler) } catch is Workbook.StopReading {}
                    setDimension(nil)
                } else {
                    try workbook.parse(sheet.path, limit: workbook.budget.sheet, into: &handler)
                }
                if !batch.isEmpty { flush(batch) }
            } catch is Workbook.StopReading {
            } catch {
                if !batch.isEmpty { flush(batch) }
                queue.put(.failure(error))
            }
            setDimension(nil)
            queue.close()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    deinit { close() }

    /// Rows read from now on are mapped on the reading thread.
    func mapOnReadingThread(_ mapper: SheetRowMapper) {
        lock.lock(); self.mapper = mapper; lock.unlock()
    }

    private func flush(_ batch: [SheetRow]) {
        lock.lock(); let mapper = self.mapper; lock.unlock()
        if let mapper { queue.put(.mapped(batch.compactMap(mapper.map))) } else { queue.put(.rows(batch)) }
    }

    private var isStopped: Bool {
        lock.lock(); defer { lock.unlock() }
        return stopped
    }

    private func setDimension(_ last: Int?) {
        dimension.lock()
        if !dimensionKnown { lastRow = last; dimensionKnown = true }
        dimension.broadcast()
        dimension.unlock()
    }

    /// The sheet's own count of rows, once its first rows have been read.
    func waitForDimension() -> Int? {
        dimension.lock(); defer { dimension.unlock() }
        while !dimensionKnown { dimension.wait() }
        return lastRow
    }

    /// Stops the reading thread (it ends at its next row).
    func close() {
        lock.lock(); stopped = true; lock.unlock()
        queue.close()
    }

    /// The next row with at least one cell, or nil at the end. Throws what the sheet
    /// turned out to hold (damaged XML, a zip bomb) once the rows before it are taken.
    func next() throws -> SheetRow? {
        while let item = try nextItem() {
            if case .raw(let row) = item { return row }
        }
        return nil
    }

    /// The next row, raw or mapped (see `mapOnReadingThread`), or nil at the end.
    func nextItem() throws -> Item? {
        while position == pending.count + pendingMapped.count {
            if let failed { throw failed }
            position = 0
            pending = []
            pendingMapped = []
            switch queue.take() {
            case .rows(let rows)?: pending = rows
            case .mapped(let rows)?: pendingMapped = rows
            case .failure(let error)?: failed = error
            case nil: return nil
            }
        }
        position += 1
        return pending.isEmpty ? .mapped(pendingMapped[position - 1]) : .raw(pending[position - 1])
    }
}

/// Turns the tokens of a sheet part into rows.
private struct SheetHandler: XMLTokenHandler {
    let strings: [String]
    let dateStyles: Set<Int>
    let uses1904: Bool
    var emit: (SheetRow) throws -> Void = { _ in }
    var onDimension: (Int?) -> Void = { _ in }

    private var inData = false
    /// The rows of an Excel sheet.
    static let maxRows = 1_048_576
    /// The columns of an Excel sheet (A to XFD).
    static let maxColumns = 16_384
    private var row = SheetRow(number: 0, cells: [])
    /// Inside a `<row>`: cells outside one (a damaged sheet) belong to no row.
    private var inRow = false
    /// Inside a `<c>`: an end tag without its start (a damaged sheet) finishes no cell.
    private var inCell = false
    private var column = -1
    private var type: [UInt8] = []
    private var style = 0
    private var value: [UInt8] = []
    private var formula: [UInt8] = []
    private var hasFormula = false
    private enum Capture { case none, value, inline, formula }
    private var capture = Capture.none
    private var inInline = false
    private var inPhonetic = false

    init(strings: [String], dateStyles: Set<Int>, uses1904: Bool) {
        self.strings = strings
        self.dateStyles = dateStyles
        self.uses1904 = uses1904
    }

    var wantsText: Bool { capture != .none && !inPhonetic }

    mutating func start(_ name: XMLBytes, attributes: XMLAttributes) throws {
        switch name.count {
        case 1:
            switch name.first! {
            case UInt8(ascii: "c") where inData:
                // One pass over r, t and s, without allocating (a cell's attributes need no unescaping).
                var reference = -1
                type.removeAll(keepingCapacity: true)
                style = 0
                try attributes.each { name, value in
                    guard name.count == 1 else { return }
                    switch name.first! {
                    case UInt8(ascii: "r"): reference = Self.columnIndex(value)
                    case UInt8(ascii: "t"): type.append(contentsOf: value)
                    case UInt8(ascii: "s"): style = value.reduce(0) { $0 &* 10 &+ Int($1 &- UInt8(ascii: "0")) }
                    default: break
                    }
                }
                column = reference >= 0 ? reference : column + 1
                inCell = column < Self.maxColumns
                value.removeAll(keepingCapacity: true)
                formula.removeAll(keepingCapacity: true)
                hasFormula = false
            case UInt8(ascii: "v") where inData: capture = .value
            case UInt8(ascii: "f") where inData: capture = .formula; hasFormula = true
            case UInt8(ascii: "t") where inInline: capture = .inline
            default: break
            }
        case 2 where inData && name.elementsEqual("is".utf8): inInline = true
        case 3:
            if inData, name.elementsEqual("row".utf8) {
                // Excel numbers rows 1 to 1,048,576, upwards; a row without a number (or with
                // one that does not go up) is the one after the last.
                let given = try attributes.value("r").flatMap { Int(String(decoding: $0, as: UTF8.self)) }
                // `row` is still the last row started (0 before the first).
                let number = given.flatMap { $0 > row.number && $0 <= Self.maxRows ? $0 : nil } ?? row.number + 1
                row = SheetRow(number: number, cells: [])
                inRow = true
                inCell = false
                column = -1
            } else if name.elementsEqual("rPh".utf8) {
                inPhonetic = true
            }
        case 9 where name.elementsEqual("sheetData".utf8):
            inData = true
            onDimension(nil)
        case 9 where name.elementsEqual("dimension".utf8):
            // "A1:H100001": the last row, for progress.
            let reference = try attributes.string("ref") ?? ""
            let last = reference.split(separator: ":").last.map { String($0.drop { !$0.isNumber }) }.flatMap { Int($0) }
            onDimension(last)
        default: break
        }
    }

    mutating func end(_ name: XMLBytes) throws {
        switch name.count {
        case 1:
            switch name.first! {
            case UInt8(ascii: "c") where inData:
                if inRow, inCell { finishCell() }
                inCell = false
            case UInt8(ascii: "v"), UInt8(ascii: "f"), UInt8(ascii: "t"): capture = .none
            default: break
            }
        case 2 where name.elementsEqual("is".utf8): inInline = false
        case 3:
            if inData, name.elementsEqual("row".utf8) {
                if inRow, !row.cells.isEmpty { try emit(row) }
                row.cells = []
                inRow = false
            } else if name.elementsEqual("rPh".utf8) {
                inPhonetic = false
            }
        case 9 where name.elementsEqual("sheetData".utf8): inData = false
        default: break
        }
    }

    mutating func text(_ bytes: XMLBytes) throws {
        switch capture {
        case .value, .inline: value.append(contentsOf: bytes)
        case .formula: formula.append(contentsOf: bytes)
        case .none: break
        }
    }

    private mutating func finishCell() {
        // A shared string: its index, read from the bytes (no text to make).
        if type.count == 1, type[0] == UInt8(ascii: "s"), !value.isEmpty, value.count < 10,
           value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            let index = value.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            if index < strings.count {
                row.cells.append(SheetCell(column: column, text: strings[index], problem: nil))
                return
            }
        }
        let text = String(decoding: value, as: UTF8.self)
        var cell = SheetCell(column: column, text: text, problem: nil)
        if value.isEmpty {
            guard hasFormula else { return }
            cell.problem = .formulaWithoutValue(String(decoding: formula, as: UTF8.self))
            row.cells.append(cell)
            return
        }
        switch type.count == 1 ? type.first! : (type.isEmpty ? UInt8(ascii: "n") : 0) {
        case UInt8(ascii: "n"):
            if dateStyles.contains(style), let serial = Double(text) {
                cell.text = CellText.date(serial: serial, uses1904: uses1904)
                cell.problem = .date
            } else {
                if !value.withUnsafeBufferPointer(CellText.isPlainDecimal) {
                    let (shown, rounded) = CellText.number(text)
                    cell.text = shown
                    if rounded { cell.problem = .roundedNumber }
                }
            }
        case UInt8(ascii: "s"):
            if let index = Int(text), strings.indices.contains(index) { cell.text = strings[index] } else { cell.problem = .missingString }
        case UInt8(ascii: "b"): cell.text = text == "1" ? "TRUE" : "FALSE"
        case UInt8(ascii: "e"): cell.problem = .excelError
        case UInt8(ascii: "d"): cell.problem = .date
        default: break // "str" (a formula's text) and "inlineStr": the text as it is
        }
        row.cells.append(cell)
    }

    /// `B7` → 1 (column letters from A = 0).
    static func columnIndex<Bytes: Sequence<UInt8>>(_ reference: Bytes) -> Int {
        var index = 0
        for byte in reference {
            guard byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") else { break }
            index = index * 26 + Int(byte - UInt8(ascii: "A")) + 1
            // Past XFD, no column of Excel's: the cell is taken as the next one (and dropped there).
            guard index <= maxColumns else { return -1 }
        }
        return index - 1
    }
}
