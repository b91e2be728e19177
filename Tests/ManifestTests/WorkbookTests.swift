import Foundation
@testable import Manifest
import Testing
import Zip

/// Workbooks made here part by part (the XML Excel, LibreOffice and openpyxl write), and by
/// libxlsxwriter through `SpreadsheetWriter`, read back to the exact rows expected.
@Suite("Excel workbooks as manifests")
struct WorkbookTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("workbook-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// A zip of these parts (deflated), at `name` in the test's folder.
    func zip(_ name: String, _ parts: [(String, String)]) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: url)
        var writer = ZipWriter()
        for (path, text) in parts { try writer.add(path, Data(text.utf8)) }
        try writer.data.write(to: url)
        return url
    }

    static let main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    static let rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"

    /// A workbook with these sheets (name, state, sheetData XML), shared strings and styles.
    func workbook(_ name: String, sheets: [(String, String, String)], strings: [String]? = nil, styles: String? = nil,
                  absoluteTargets: Bool = false, prefix: String = "") throws -> URL {
        var parts: [(String, String)] = [
            ("_rels/.rels", """
             <?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="\(Self.rel)/officeDocument" Target="xl/workbook.xml"/></Relationships>
             """),
        ]
        var rels = ""
        var list = ""
        for (index, sheet) in sheets.enumerated() {
            let target = absoluteTargets ? "/xl/worksheets/sheet\(index + 1).xml" : "worksheets/sheet\(index + 1).xml"
            rels += "<Relationship Id=\"rId\(index + 1)\" Type=\"\(Self.rel)/worksheet\" Target=\"\(target)\"/>"
            list += "<\(prefix)sheet name=\"\(sheet.0)\" sheetId=\"\(index + 1)\" state=\"\(sheet.1)\" r:id=\"rId\(index + 1)\"/>"
            parts.append(("xl/worksheets/sheet\(index + 1).xml", """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <\(prefix)worksheet xmlns\(prefix.isEmpty ? "" : ":" + prefix.dropLast())="\(Self.main)" xmlns:r="\(Self.rel)"><\(prefix)sheetData>\(sheet.2)</\(prefix)sheetData></\(prefix)worksheet>
                """))
        }
        if let strings {
            rels += "<Relationship Id=\"rS\" Type=\"\(Self.rel)/sharedStrings\" Target=\"sharedStrings.xml\"/>"
            parts.append(("xl/sharedStrings.xml", "<sst xmlns=\"\(Self.main)\">" + strings.joined() + "</sst>"))
        }
        if let styles {
            rels += "<Relationship Id=\"rT\" Type=\"\(Self.rel)/styles\" Target=\"styles.xml\"/>"
            parts.append(("xl/styles.xml", "<styleSheet xmlns=\"\(Self.main)\">\(styles)</styleSheet>"))
        }
        parts.append(("xl/_rels/workbook.xml.rels", "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">\(rels)</Relationships>"))
        parts.append(("xl/workbook.xml", """
            <\(prefix)workbook xmlns\(prefix.isEmpty ? "" : ":" + prefix.dropLast())="\(Self.main)" xmlns:r="\(Self.rel)"><\(prefix)sheets>\(list)</\(prefix)sheets></\(prefix)workbook>
            """))
        return try zip(name, parts)
    }

    func rows(_ url: URL, _ choice: SheetChoice = SheetChoice()) throws -> (ManifestReader, [RawRow]) {
        let reader = try ManifestReader(url: url, sheet: choice)
        var rows: [RawRow] = []
        while let row = try reader.next() { rows.append(row) }
        return (reader, rows)
    }

    func inline(_ ref: String, _ text: String) -> String { "<c r=\"\(ref)\" t=\"inlineStr\"><is><t>\(text)</t></is></c>" }

    @Test("shared and inline strings, a title above the header, sparse cells, Excel's row numbers")
    func sharedAndInline() throws {
        let strings = ["<si><t>key</t></si>", "<si><t>name</t></si>", "<si><t>price</t></si>",
                       // rich text runs are joined; the phonetic guide is not text
                       "<si><r><t>녹차 </t></r><r><rPr><b/></rPr><t xml:space=\"preserve\">라떼 🍵</t></r><rPh sb=\"0\" eb=\"2\"><t>ノクチャ</t></rPh></si>",
                       "<si><t>00123</t></si>", "<si><t>line one\nline &amp; two</t></si>"]
        let sheet = """
            <row r="1"><c r="A1" t="inlineStr"><is><t>November price list</t></is></c></row>
            <row r="2"><c r="C2" t="inlineStr"><is><t>(prices in won)</t></is></c></row>
            <row r="4"><c r="A4" t="s"><v>0</v></c><c r="B4" t="s"><v>1</v></c><c r="D4" t="s"><v>2</v></c><c r="E4" t="inlineStr"><is><t>stock</t></is></c></row>
            <row r="5"><c r="A5" t="s"><v>4</v></c><c r="B5" t="s"><v>3</v></c><c r="D5"><v>25000</v></c><c r="E5"><v>0</v></c></row>
            <row r="6"><c t="s"><v>5</v></c><c t="inlineStr"><is><t>Plain name</t></is></c><c/><c><v>24.5</v></c></row>
            <row r="9"><c r="E9"><v>3</v></c><c r="A9" t="inlineStr"><is><t>K-9</t></is></c></row>
            """
        let url = try workbook("strings.xlsx", sheets: [("Products", "visible", sheet)], strings: strings)
        let (reader, rows) = try rows(url)
        #expect(reader.format == .xlsx && reader.sheetName == "Products")
        #expect(reader.columns == [.key, .name, .price, .stock] && reader.unknownColumns.isEmpty)
        #expect(rows.map(\.number) == [5, 6, 9])
        #expect(rows[0].values == [.key: "00123", .name: "녹차 라떼 🍵", .price: "25000", .stock: "0"])
        #expect(rows[1].values == [.key: "line one\nline & two", .name: "Plain name", .price: "24.5"])
        #expect(rows[2].values == [.key: "K-9", .stock: "3"])
        #expect(rows.allSatisfy { $0.notes.isEmpty })
    }

    @Test("the first visible sheet by default; --sheet by name or position; a hidden sheet is never read")
    func hiddenSheets() throws {
        let header = inline("A1", "sku") + inline("B1", "상품명")
        let url = try workbook("sheets.xlsm", sheets: [
            ("Lists", "hidden", "<row r=\"1\">\(header)</row><row r=\"2\">\(inline("A2", "HIDDEN"))\(inline("B2", "not data"))</row>"),
            ("상품", "visible", "<row r=\"1\">\(header)</row><row r=\"2\">\(inline("A2", "K-1"))\(inline("B2", "First tab"))</row>"),
            ("Second", "visible", "<row r=\"1\">\(header)</row><row r=\"2\">\(inline("A2", "K-2"))\(inline("B2", "Second tab"))</row>"),
        ], absoluteTargets: true)
        #expect(try rows(url).1.map { $0.values[.key] } == ["K-1"])
        #expect(try rows(url, SheetChoice(sheet: "second")).1.map { $0.values[.key] } == ["K-2"])
        #expect(try rows(url, SheetChoice(sheet: "2")).1.map { $0.values[.key] } == ["K-2"])
        #expect(try rows(url, SheetChoice(sheet: "상품")).1.map { $0.values[.key] } == ["K-1"])
        #expect(throws: ManifestError(file: "sheets.xlsm", message: "sheet 'Lists' is hidden; hidden sheets are never read as data (unhide it in Excel to use it)")) {
            try rows(url, SheetChoice(sheet: "Lists"))
        }
        #expect(throws: ManifestError.self) { try rows(url, SheetChoice(sheet: "9")) }
        #expect(throws: ManifestError.self) { try rows(url, SheetChoice(sheet: "Nope")) }
    }

    @Test("numbers as Excel shows them, dates by their format, formulas by their saved value, errors named by cell")
    func cellKinds() throws {
        let styles = """
            <numFmts count="2"><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd"/><numFmt numFmtId="165" formatCode="#,##0&quot;원&quot;"/></numFmts>
            <cellStyleXfs count="1"><xf numFmtId="14"/></cellStyleXfs>
            <cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="165"/></cellXfs>
            """
        let header = "<row r=\"1\">" + inline("A1", "key") + inline("B1", "name") + inline("C1", "price") + inline("D1", "stock") + "</row>"
        let sheet = header + """
            <row r="2"><c r="A2"><v>1.2345678901234567E+19</v></c><c r="B2" t="inlineStr"><is><t>Big key</t></is></c><c r="C2"><v>0.30000000000000004</v></c><c r="D2" s="3"><v>12</v></c></row>
            <row r="3"><c r="A3" t="str"><f>"K-"&amp;ROW()</f><v>K-3</v></c><c r="B3" t="inlineStr"><is><t>Formula</t></is></c><c r="C3"><f>SUM(C1:C2)</f><v>4500</v></c><c r="D3" t="b"><v>1</v></c></row>
            <row r="4"><c r="A4" t="inlineStr"><is><t>K-4</t></is></c><c r="B4" t="inlineStr"><is><t>Dated</t></is></c><c r="C4" s="1"><v>45356</v></c><c r="D4" s="2"><v>45356.5</v></c></row>
            <row r="5"><c r="A5" t="inlineStr"><is><t>K-5</t></is></c><c r="B5" t="inlineStr"><is><t>Never computed</t></is></c><c r="C5"><f>C4*2</f></c><c r="D5" t="e"><v>#N/A</v></c></row>
            <row r="6"><c r="A6" t="inlineStr"><is><t>K-6</t></is></c><c r="B6"><v>1E-7</v></c><c r="C6"><v>2.4500000000000002</v></c><c r="D6"><v>-0</v></c><c r="G6"><v>99</v></c></row>
            """
        let url = try workbook("kinds.xlsx", sheets: [("Sheet1", "visible", sheet)], styles: styles)
        let (_, rows) = try rows(url)
        #expect(rows.map(\.number) == [2, 3, 4, 5, 6])
        #expect(rows[0].values == [.key: "12345678901234600000", .name: "Big key", .price: "0.3", .stock: "12"])
        #expect(rows[0].notes.map(\.rule) == ["cell-number-rounded"] && rows[0].notes[0].message.contains("cell A2"))
        #expect(rows[1].values == [.key: "K-3", .name: "Formula", .price: "4500", .stock: "TRUE"])
        #expect(rows[1].notes.isEmpty)
        #expect(rows[2].values[.price] == "2024-03-05" && rows[2].values[.stock] == "2024-03-05 12:00:00")
        #expect(rows[2].notes.map(\.rule) == ["cell-date", "cell-date"] && rows[2].notes.allSatisfy { $0.severity == .warning })
        #expect(rows[3].notes.map(\.rule) == ["cell-formula", "cell-error"])
        #expect(rows[3].notes[0].message.contains("cell C5") && rows[3].notes[0].message.contains("=C4*2"))
        #expect(rows[3].notes[1].message.contains("#N/A") && rows[3].notes.allSatisfy { $0.severity == .error })
        #expect(rows[4].values == [.key: "K-6", .name: "0.0000001", .price: "2.45", .stock: "0"])
        #expect(rows[4].notes.map(\.rule) == ["column-unheaded"] && rows[4].notes[0].message.contains("cell G6"))

        // The validator reports them at the row and column a merchant finds in Excel.
        let validator = ManifestValidator(reader: try ManifestReader(url: url), options: { var o = ValidationOptions(); o.checkImageFiles = false; return o }())
        let (draft, issues) = validator.validate(rows[3])
        #expect(draft == nil)
        #expect(issues.first.map { "\($0.file) \($0.row) \($0.column ?? "")" } == "kinds.xlsx 5 price")
    }

    @Test("--header-row, no header found, a namespace prefix, a workbook under another name")
    func headerChoice() throws {
        // Only one known column in row 1, so the header is found in row 2 unless told.
        let sheet = "<x:row r=\"1\"><x:c r=\"A1\" t=\"inlineStr\"><x:is><x:t>name</x:t></x:is></x:c></x:row>"
            + "<x:row r=\"2\"><x:c r=\"A2\" t=\"inlineStr\"><x:is><x:t>key</x:t></x:is></x:c><x:c r=\"B2\" t=\"inlineStr\"><x:is><x:t>name</x:t></x:is></x:c></x:row>"
            + "<x:row r=\"3\"><x:c r=\"A3\" t=\"inlineStr\"><x:is><x:t>K-1</x:t></x:is></x:c><x:c r=\"B3\" t=\"inlineStr\"><x:is><x:t>Tea</x:t></x:is></x:c></x:row>"
        let url = try workbook("prefixed.xlsx", sheets: [("S", "visible", sheet)], prefix: "x:")
        #expect(try rows(url).1.map(\.number) == [3])
        let (reader, fromOne) = try rows(url, SheetChoice(headerRow: 1))
        #expect(reader.columns == [.name] && fromOne.map { $0.values[.name] } == ["key", "K-1"])
        #expect(throws: ManifestError.self) { try rows(url, SheetChoice(headerRow: 7)) }
        let renamed = folder.appendingPathComponent("products.csv")
        try FileManager.default.copyItem(at: url, to: renamed)
        #expect(try rows(renamed).1.map(\.number) == [3])

        let empty = try workbook("noheader.xlsx", sheets: [("S", "visible", "<row r=\"1\">\(inline("A1", "hello"))</row>")])
        #expect(throws: ManifestError(file: "noheader.xlsx", message: "sheet 'S': no header row in its first 100 rows. The header names at least two columns (key, name, price, stock…); give its row with --header-row N")) {
            try rows(empty)
        }
    }

    @Test("libxlsxwriter's workbook reads back cell for cell: text stays text, numbers stay what was typed")
    func writtenByLibxlsxwriter() throws {
        let url = folder.appendingPathComponent("written.xlsx")
        let writer = try SpreadsheetWriter(url: url)
        writer.note("Fill one row per product. Keys are text: 00123 stays 00123.")
        writer.header(["key", "name", "description", "price", "stock"])
        let rows: [[SpreadsheetWriter.Cell]] = [
            [.text("00123"), .text("녹차 라떼 🍵"), .text("line one\nline two, \"quoted\""), .number("25000"), .number("0")],
            [.text("12345678901234567890"), .text("=SUM(A1:A2)"), .empty, .number("24.5"), .number("7")],
            [.text("2024-03-05"), .text("Huge price"), .text("<b>&amp;</b>"), .number("1234567890123456789"), .number("0012")],
        ]
        for row in rows { try writer.write(row) }
        try writer.close()
        let (reader, read) = try self.rows(url)
        #expect(read.map(\.number) == [3, 4, 5])
        #expect(reader.columns == [.key, .name, .description, .price, .stock])
        #expect(read[0].values == [.key: "00123", .name: "녹차 라떼 🍵", .description: "line one\nline two, \"quoted\"", .price: "25000", .stock: "0"])
        #expect(read[1].values == [.key: "12345678901234567890", .name: "=SUM(A1:A2)", .price: "24.5", .stock: "7"])
        // Over 15 digits and leading zeros are not numbers Excel could keep: written as text.
        #expect(read[2].values == [.key: "2024-03-05", .name: "Huge price", .description: "<b>&amp;</b>", .price: "1234567890123456789", .stock: "0012"])
        #expect(read.allSatisfy { $0.notes.isEmpty })
    }

    @Test("hostile and broken files: a clear error, within a bounded budget")
    func hostile() throws {
        let notZip = folder.appendingPathComponent("notzip.xlsx")
        try Data("key,name\nK,Tea\n".utf8).write(to: notZip)
        #expect(throws: ManifestError(file: "notzip.xlsx", message: "not an Excel workbook: the file is not a zip archive (an .xlsx file is one)")) {
            try rows(notZip)
        }
        let xls = folder.appendingPathComponent("old.xlsx")
        try Data([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1] + [UInt8](repeating: 0, count: 504)).write(to: xls)
        #expect(throws: ManifestError.self) { try rows(xls) }

        let noWorkbook = try zip("other.xlsx", [("hello.txt", "hi")])
        #expect(throws: ManifestError(file: "other.xlsx", message: "a zip archive, but neither an Excel workbook (no xl/workbook.xml) nor an OpenDocument spreadsheet (no content.xml)")) {
            try rows(noWorkbook)
        }
        let cut = folder.appendingPathComponent("cut.xlsx")
        let whole = try Data(contentsOf: try workbook("whole.xlsx", sheets: [("S", "visible", "<row r=\"1\">\(inline("A1", "key"))\(inline("B1", "name"))</row>")]))
        try whole.prefix(whole.count / 2).write(to: cut)
        #expect(throws: ManifestError.self) { try rows(cut) }

        // Entities: a document type is refused before anything expands.
        let laughs = """
            <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
            <row r="1"><c r="A1" t="inlineStr"><is><t>&lol2;</t></is></c></row>
            """
        let bomb = try workbook("laughs.xlsx", sheets: [("S", "visible", laughs)])
        do {
            _ = try rows(bomb)
            Issue.record("an entity declaration was accepted")
        } catch let error as ManifestError {
            #expect(error.message.contains("<!DOCTYPE"))
        }
        let undefined = try workbook("entity.xlsx", sheets: [("S", "visible", "<row r=\"1\">\(inline("A1", "&xxe;"))\(inline("B1", "name"))</row>")])
        #expect(throws: ManifestError.self) { try rows(undefined) }

        // A zip bomb: blanks inside the sheet pack a thousand to one. Past 16 MB, more than
        // 200 times the packed size is refused, long before a real bomb's gigabytes.
        let url = try workbook("bomb.xlsx", sheets: [("S", "visible", "<row r=\"1\">\(inline("A1", "key"))\(inline("B1", "name"))</row>"
                                                          + String(repeating: " ", count: 64 << 20))])
        let packed = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
        #expect(packed < 4 << 20)
        let started = Date()
        do {
            _ = try rows(url)
            Issue.record("a zip bomb was read")
        } catch let error as ManifestError {
            #expect(error.message.contains("zip bomb"), "\(error)")
        }
        #expect(Date().timeIntervalSince(started) < 10)
    }

    @Test("templates: the committed CSV and workbook are what the column definitions make (scripts/make-templates)")
    func templates() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let csv = root.appendingPathComponent("templates/products.csv")
        #expect(try String(contentsOf: csv, encoding: .utf8) == (try ManifestTemplate.csv()), "run scripts/make-templates")
        let (csvReader, csvRows) = try rows(csv)
        let committed = root.appendingPathComponent("templates/products.xlsx")
        let fresh = folder.appendingPathComponent("fresh.xlsx")
        try ManifestTemplate.writeWorkbook(to: fresh)
        for url in [committed, fresh] {
            let (reader, read) = try rows(url)
            #expect(reader.columns == csvReader.columns && reader.unknownColumns.isEmpty, "\(url.lastPathComponent)")
            #expect(read.map(\.number) == [3], "notes in row 1, the header in row 2")
            var expected = csvRows[0].values
            expected[.price] = "4500"
            expected[.id] = nil
            #expect(read.first?.values == expected, "\(url.lastPathComponent): run scripts/make-templates")
            // The currency column offers the accepted currencies as a list.
            let workbook = try Workbook(url: url)
            var xml = Data()
            try workbook.stream(workbook.sheets[0].path, limit: 1 << 20) { xml.append(contentsOf: $0) }
            let text = String(decoding: xml, as: UTF8.self)
            #expect(text.contains("<dataValidation type=\"list\"") && text.contains("\"KRW,USD,JPY\"") && text.contains("sqref=\"E3:E"))
            #expect(text.contains("state=\"frozen\""))
        }
    }

    @Test("CellText: shortest decimals without exponents; date serials in both systems")
    func cellText() {
        #expect(CellText.number("25000").text == "25000")
        #expect(CellText.number("25000.0").text == "25000")
        #expect(CellText.number("24.5").text == "24.5")
        #expect(CellText.number("-3.25").text == "-3.25")
        #expect(CellText.number("123456789012345").text == "123456789012345")
        #expect(CellText.number("123456789012345") == ("123456789012345", false))
        #expect(CellText.number("1.2345678901234567E+17") == ("123456789012346000", true))
        #expect(CellText.number("1E+20") == ("100000000000000000000", false))
        #expect(CellText.number("1.5E-5").text == "0.000015")
        #expect(CellText.plain("1.5e+22") == "15000000000000000000000")
        #expect(CellText.date(serial: 1, uses1904: false) == "1900-01-01")
        #expect(CellText.date(serial: 45356, uses1904: false) == "2024-03-05")
        #expect(CellText.date(serial: 0, uses1904: true) == "1904-01-01")
        #expect(CellText.date(serial: 45356.75, uses1904: false) == "2024-03-05 18:00:00")
    }
}
