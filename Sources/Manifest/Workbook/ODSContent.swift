import Foundation

/// LibreOffice's and Google Sheets' `.ods`: every sheet is a `<table:table>` of one part,
/// `content.xml`. Rows and cells carry repeat counts (a sheet's empty tail is one row repeated
/// a million times), so rows are numbered by them and never walked one by one. A number is
/// read at its stored value, as an Excel sheet's is (`4500`, not the `4,500.00` its format
/// shows), unless its shown text keeps zeros the number lost (`00120` formatted with zeros).
enum ODSContent {
    /// The part that holds every sheet.
    static let part = "content.xml"

    /// A sheet's path in `Workbook.Sheet`: the part and the sheet's position in it.
    static func path(_ index: Int) -> String { "\(part)#\(index)" }

    static func index(of path: String) -> Int? {
        guard path.hasPrefix(part + "#") else { return nil }
        return Int(path.dropFirst(part.count + 1))
    }
}

/// The sheets of `content.xml`: names, and which are hidden (a table style with `table:display="false"`).
struct ODSTableList: XMLTokenHandler {
    var tables: [(name: String, style: String)] = []
    var hiddenStyles: Set<String> = []
    private var styleName: String?
    var wantsText: Bool { false }

    mutating func start(_ name: XMLBytes, attributes: XMLAttributes) throws {
        if name.elementsEqual("style".utf8) {
            styleName = try attributes.string("family") == "table" ? try attributes.string("name") : nil
        } else if name.elementsEqual("table-properties".utf8), let style = styleName, try attributes.string("display") == "false" {
            hiddenStyles.insert(style)
        } else if name.elementsEqual("table".utf8) {
            tables.append((try attributes.string("name") ?? "Sheet\(tables.count + 1)", try attributes.string("style-name") ?? ""))
        }
    }
    mutating func end(_ name: XMLBytes) throws {
        if name.elementsEqual("style".utf8) { styleName = nil }
    }
    mutating func text(_ bytes: XMLBytes) throws {}
}

/// The rows of one sheet of `content.xml`, as `SheetHandler` gives an Excel sheet's.
struct ODSSheetHandler: XMLTokenHandler {
    /// The sheet's position among the part's tables.
    let table: Int
    var emit: (SheetRow) throws -> Void = { _ in }
    var onDimension: (Int?) -> Void = { _ in }

    private var tableIndex = -1
    private var inTable = false
    /// Tables inside a cell (a rare sub-table) are not rows of the sheet.
    private var depth = 0
    private var rowNumber = 0
    private var rowRepeat = 1
    private var row: [SheetCell] = []
    private var column = 0
    private var cellRepeat = 1
    private var inCell = false
    private var cellType = ""
    private var cellValue: String?
    private var text: [UInt8] = []
    private var paragraphs = 0
    private var inParagraph = false
    private var inAnnotation = 0
    private var told = false

    init(table: Int) { self.table = table }

    /// As an Excel sheet's: rows and columns past these are no sheet's.
    static let maxRows = 1_048_576
    static let maxColumns = 16_384

    var wantsText: Bool { inCell && inParagraph && inAnnotation == 0 }

    mutating func start(_ name: XMLBytes, attributes: XMLAttributes) throws {
        switch name.count {
        case 5 where name.elementsEqual("table".utf8):
            if inTable { depth += 1; return }
            tableIndex += 1
            if tableIndex == table { inTable = true; rowNumber = 0 }
        case 9 where name.elementsEqual("table-row".utf8):
            guard inTable, depth == 0 else { return }
            if !told { told = true; onDimension(nil) }
            rowRepeat = max(1, try attributes.string("number-rows-repeated").flatMap { Int($0) } ?? 1)
            row.removeAll(keepingCapacity: true)
            column = 0
        case 10 where name.elementsEqual("table-cell".utf8), 18 where name.elementsEqual("covered-table-cell".utf8):
            guard inTable, depth == 0 else { return }
            inCell = true
            cellRepeat = max(1, try attributes.string("number-columns-repeated").flatMap { Int($0) } ?? 1)
            cellType = try attributes.string("value-type") ?? ""
            cellValue = switch cellType {
            case "float", "percentage", "currency": try attributes.string("value")
            case "date": try attributes.string("date-value")
            case "boolean": try attributes.string("boolean-value")
            default: nil
            }
            text.removeAll(keepingCapacity: true)
            paragraphs = 0
        case 1 where name.first == UInt8(ascii: "p"), 1 where name.first == UInt8(ascii: "h"):
            guard inCell, inAnnotation == 0 else { return }
            if paragraphs > 0 { text.append(0x0A) }
            paragraphs += 1
            inParagraph = true
        case 1 where name.first == UInt8(ascii: "s"):
            guard wantsText else { return }
            let spaces = max(1, min(1_000, try attributes.string("c").flatMap { Int($0) } ?? 1))
            text.append(contentsOf: repeatElement(0x20, count: spaces))
        case 3 where name.elementsEqual("tab".utf8):
            if wantsText { text.append(0x09) }
        case 10 where name.elementsEqual("line-break".utf8):
            if wantsText { text.append(0x0A) }
        case 10 where name.elementsEqual("annotation".utf8):
            inAnnotation += 1
        default:
            break
        }
    }

    mutating func end(_ name: XMLBytes) throws {
        switch name.count {
        case 5 where name.elementsEqual("table".utf8):
            if depth > 0 { depth -= 1; return }
            if inTable {
                inTable = false
                // The sheet read: the rest of the part is other sheets.
                throw Workbook.StopReading()
            }
        case 9 where name.elementsEqual("table-row".utf8):
            guard inTable, depth == 0 else { return }
            if row.isEmpty {
                rowNumber += rowRepeat
            } else {
                // A row with values repeated: each is a row of its own (a pasted block).
                for _ in 0..<min(rowRepeat, Self.maxRows) {
                    rowNumber += 1
                    try emit(SheetRow(number: rowNumber, cells: row))
                }
            }
        case 10 where name.elementsEqual("table-cell".utf8), 18 where name.elementsEqual("covered-table-cell".utf8):
            guard inCell else { return }
            inCell = false
            let shown = String(decoding: text, as: UTF8.self)
            let value = Self.cellText(type: cellType, value: cellValue, shown: shown)
            if !value.text.isEmpty || value.problem != nil {
                for _ in 0..<min(cellRepeat, 64) where column < Self.maxColumns {
                    row.append(SheetCell(column: column, text: value.text, problem: value.problem))
                    column += 1
                }
                column += max(0, cellRepeat - 64)
            } else {
                column += cellRepeat
            }
        case 1 where name.first == UInt8(ascii: "p"), 1 where name.first == UInt8(ascii: "h"):
            inParagraph = false
        case 10 where name.elementsEqual("annotation".utf8):
            inAnnotation = max(0, inAnnotation - 1)
        default:
            break
        }
    }

    mutating func text(_ bytes: XMLBytes) throws { text.append(contentsOf: bytes) }

    /// What the cell says: a number's stored value (or its shown digits when they keep
    /// leading zeros); dates are dates, errors are errors, text is as shown.
    static func cellText(type: String, value: String?, shown: String) -> (text: String, problem: SheetCell.Problem?) {
        switch type {
        case "float", "percentage", "currency":
            guard let value, let stored = Decimal(string: value, locale: Locale(identifier: "en_US_POSIX")) else { return (shown, nil) }
            if shown.count > 1, shown.first == "0", shown.allSatisfy(\.isASCII), shown.allSatisfy(\.isNumber),
               Decimal(string: shown, locale: Locale(identifier: "en_US_POSIX")) == stored {
                return (shown, nil)
            }
            return (value, nil)
        case "date":
            return (shown.isEmpty ? value ?? "" : shown, .date)
        default:
            if shown.hasPrefix("#"), ["#N/A", "#VALUE!", "#REF!", "#DIV/0!", "#NAME?", "#NUM!", "#NULL!", "Err:502", "Err:504"].contains(shown) {
                return (shown, .excelError)
            }
            return (shown, nil)
        }
    }
}
