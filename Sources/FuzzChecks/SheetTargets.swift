import Feeds
import Foundation
import Manifest
import Zip

/// The merchant's sheets: CSV (encodings and delimiters detected), JSON, JSON Lines, .xlsx,
/// read and validated the way `validate` and `import` read them (`ManifestCheck`).
enum SheetTargets {
    static let all: [FuzzTarget] = [
        FuzzTarget("csv", reads: "a CSV sheet: encoding (UTF-8, UTF-16, CP949) and delimiter detected, rows validated") { data throws(FuzzFinding) in
            try readSheet(data, named: "products.csv")
        },
        FuzzTarget("json", reads: "a JSON sheet (an array of products, or an object holding one)") { data throws(FuzzFinding) in
            try readSheet(data, named: "products.json")
        },
        FuzzTarget("jsonl", reads: "a JSON Lines sheet (one product a line)") { data throws(FuzzFinding) in
            try readSheet(data, named: "products.jsonl")
        },
        FuzzTarget("xlsx", reads: "an .xlsx workbook as bytes (the zip, its XML parts)") { data throws(FuzzFinding) in
            try readSheet(data, named: "products.xlsx")
        },
        FuzzTarget("xlsx-xml", reads: "an .xlsx workbook's XML (sheet and shared strings) in a well-formed zip") { data throws(FuzzFinding) in
            try readSheet(try FuzzWorkbook.zip(data), named: "products.xlsx")
        },
        FuzzTarget("ods-xml", reads: "an .ods spreadsheet's content.xml (every sheet, repeated rows and cells) in a well-formed zip") { data throws(FuzzFinding) in
            try readSheet(try FuzzWorkbook.zip([("mimetype", Data("application/vnd.oasis.opendocument.spreadsheet".utf8)),
                                                ("content.xml", data)]), named: "products.ods")
        },
        FuzzTarget("supplier-csv", reads: "a supplier's CSV through a feed's map (templates/feed.toml: their headers, maps, prices from costs, filter)") { data throws(FuzzFinding) in
            try readSheet(data, named: "supplier.csv", map: .feed(try SupplierFeed.template()))
        },
        FuzzTarget("csv-roundtrip", reads: "products written by the CSV writer (export) and read back (import)") { data throws(FuzzFinding) in
            try RoundTrip.check(data, named: "roundtrip.csv")
        },
        FuzzTarget("jsonl-roundtrip", reads: "products written by the JSON Lines writer (export) and read back (import)") { data throws(FuzzFinding) in
            try RoundTrip.check(data, named: "roundtrip.jsonl")
        },
    ]

    /// Reads and validates a whole sheet. It either cannot be read at all (one error naming
    /// the file) or gives rows, each valid or with errors that name their row and rule.
    static func readSheet(_ data: Data, named name: String, map: SheetReading.Map = .none) throws(FuzzFinding) {
        let url = try Scratch.file(name, data)
        var reading = SheetReading()
        reading.map = map
        reading.imagesFolder = Scratch.folder
        reading.checkPhotoFiles = false
        let options = reading.options
        var delivered = 0
        var lastRow = 0
        var finding: FuzzFinding?
        do {
            let summary = try ManifestCheck.run(url, options: options, onFileIssue: { issue in
                if issue.file != name, finding == nil { finding = FuzzFinding("a file issue names '\(issue.file)', not '\(name)': \(issue)") }
            }, onRow: { raw, draft, issues in
                delivered += 1
                if raw.number <= lastRow, finding == nil {
                    finding = FuzzFinding("row \(raw.number) came after row \(lastRow): rows must come in order")
                }
                lastRow = raw.number
                let errors = issues.filter { $0.severity == .error }
                if draft == nil, errors.isEmpty, raw.origin?.skipped == nil, finding == nil {
                    finding = FuzzFinding("row \(raw.number) gave neither a product nor an error")
                }
                for issue in issues where finding == nil {
                    if issue.row != raw.number { finding = FuzzFinding("an issue of row \(raw.number) names row \(issue.row): \(issue)") }
                    else if issue.rule.isEmpty || issue.message.isEmpty { finding = FuzzFinding("an issue without its rule or message: \(issue)") }
                }
            })
            if summary.rows != delivered, finding == nil {
                finding = FuzzFinding("the summary counts \(summary.rows) rows, \(delivered) were delivered")
            }
        } catch {
            if error.file != name || error.message.isEmpty { throw FuzzFinding("a file error that does not name the file: \(error)") }
        }
        if let finding { throw finding }
    }
}

/// An .xlsx made of the fuzzer's bytes: the part before the first NUL byte is the sheet's
/// XML, the rest the shared strings; the workbook and content types are fixed, the zip is
/// well formed, so the fuzzer's work goes to the XML readers, not to zip checksums.
enum FuzzWorkbook {
    static func zip(_ data: Data) throws(FuzzFinding) -> Data {
        try zip(xlsxParts(data))
    }

    private static func xlsxParts(_ data: Data) -> [(String, Data)] {
        let split = data.firstIndex(of: 0) ?? data.endIndex
        let sheet = Data(data[data.startIndex..<split])
        let strings = split < data.endIndex ? Data(data[data.index(after: split)...]) : Data()
        return [
            ("[Content_Types].xml", Data("""
            <?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">\
            <Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>\
            <Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>\
            <Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>\
            <Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>
            """.utf8)),
            ("_rels/.rels", Data("""
            <?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\
            <Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>
            """.utf8)),
            ("xl/workbook.xml", Data("""
            <?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" \
            xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Products" sheetId="1" r:id="rId1"/></sheets></workbook>
            """.utf8)),
            ("xl/_rels/workbook.xml.rels", Data("""
            <?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\
            <Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>\
            <Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>
            """.utf8)),
            ("xl/worksheets/sheet1.xml", sheet),
            ("xl/sharedStrings.xml", strings),
        ]
    }

    /// A zip of these parts, stored as they are.
    static func zip(_ parts: [(String, Data)]) throws(FuzzFinding) -> Data {
        var writer = ZipWriter()
        do {
            for (path, bytes) in parts { try writer.add(path, bytes, method: .stored) }
        } catch {
            throw FuzzFinding("cannot make the workbook's zip: \(error)")
        }
        return writer.data
    }
}

/// The commented feed file every merchant starts from, read once from the source tree.
enum SupplierFeed {
    static let loaded: Result<Feed, FuzzFinding> = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("templates/feed.toml")
        do { return .success(try FeedFile.load(url)) } catch { return .failure(FuzzFinding("templates/feed.toml: \(error)")) }
    }()

    static func template() throws(FuzzFinding) -> Feed { try loaded.get() }
}
