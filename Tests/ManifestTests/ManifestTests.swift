import Foundation
import Manifest
import OpenMarketContract
import Testing
import TestSupport

/// A folder with a manifest and images, for one test.
struct Workspace {
    let files: Scratch
    var directory: URL { files.directory }

    init() throws {
        files = try Scratch()
        _ = try files.write(Fixtures.jpeg(width: 32, height: 32), named: "a.jpg")
        _ = try files.write(Fixtures.png(), named: "b.png")
    }

    func write(_ text: String, named name: String = "products.csv") throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// Validates, returning drafts, issues and the summary.
    func check(_ url: URL, encoding: TextEncoding? = nil, delimiter: Character? = nil,
               options: ValidationOptions = ValidationOptions()) throws -> (drafts: [ProductDraft], issues: [RowIssue], summary: ValidationSummary) {
        var drafts: [ProductDraft] = []
        var issues: [RowIssue] = []
        let summary = try ManifestCheck.run(url, encoding: encoding, delimiter: delimiter, options: options,
                                            onFileIssue: { issues.append($0) },
                                            onRow: { _, draft, rowIssues in
                                                if let draft { drafts.append(draft) }
                                                issues += rowIssues
                                            })
        return (drafts, issues, summary)
    }

    func cleanup() { files.cleanup() }
}

@Suite("Reading manifests as merchants have them")
struct ReadingTests {
    @Test("quoted fields with commas, quotes and newlines; CRLF; a UTF-8 BOM; rows numbered as a spreadsheet shows")
    func rfc4180() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let csv = "\u{FEFF}name,description,price,stock,images\r\n"
            + "\"Tea, green\",\"She said \"\"fresh\"\"\",4500,1,a.jpg\r\n"
            + "\"Two\nlines\",\"line one\nline two\",5000,2,b.png\r\n"
            + "Third one,,6000,3,a.jpg\r\n"
        let result = try space.check(space.write(csv))
        #expect(result.issues.isEmpty, "\(result.issues)")
        #expect(result.drafts.map(\.fields.name) == ["Tea, green", "Two\nlines", "Third one"])
        #expect(result.drafts[0].fields.description == "She said \"fresh\"")
        #expect(result.drafts[1].fields.description == "line one\nline two")
        #expect(result.drafts.map(\.row) == [2, 3, 4])
        #expect(result.drafts[0].fields.price == 4500 && result.drafts[0].fields.currency == "KRW")
    }

    @Test("semicolon and tab delimiters are detected, or given", arguments: [";", "\t"])
    func delimiters(_ delimiter: String) throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let csv = ["name", "price", "images"].joined(separator: delimiter) + "\n"
            + ["Green tea", "4,500", "a.jpg"].joined(separator: delimiter) + "\n"
        let url = try space.write(csv, named: "products.txt")
        let detected = try space.check(url)
        #expect(detected.drafts.first?.fields.price == 4500, "\(detected.issues)")
        let given = try space.check(url, delimiter: Character(delimiter))
        #expect(given.drafts.count == 1)
    }

    @Test("UTF-16 with a BOM (Excel's Unicode text), without one in either byte order, and CP949 (Korean Excel) are read",
          arguments: ["UTF-16", "UTF-16LE", "UTF-16BE", "CP949"])
    func encodings(_ encoding: String) throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let utf8 = try space.write("상품명\t가격\t통화\t재고\t이미지\n녹차 라떼\t4500원\t원\t10\ta.jpg\n", named: "utf8.txt")
        let converted = space.directory.appendingPathComponent("products.txt")
        try #require(try runTool("/usr/bin/iconv", ["-f", "UTF-8", "-t", encoding, utf8.path, "-o", converted.path]) == 0)
        let bytes = try Data(contentsOf: converted)
        if encoding == "CP949" { #expect(String(data: bytes, encoding: .utf8) == nil, "the fixture must not be UTF-8") }
        if encoding.hasPrefix("UTF-16") && encoding != "UTF-16" {
            #expect(!bytes.starts(with: [0xFF, 0xFE]) && !bytes.starts(with: [0xFE, 0xFF]), "no byte-order mark")
        }
        let result = try space.check(converted)
        #expect(result.issues.isEmpty, "\(result.issues)")
        let draft = try #require(result.drafts.first)
        #expect(draft.fields.name == "녹차 라떼" && draft.fields.price == 4500 && draft.fields.currency == "KRW" && draft.fields.stock == 10)
        // Said as utf-16 (either order): the same rows, a long file read past its first chunks.
        if encoding.hasPrefix("UTF-16") {
            let given = try space.check(converted, encoding: .utf16)
            #expect(given.drafts.first?.fields.name == "녹차 라떼", "\(given.issues)")
        }
    }

    @Test("a file that is no known encoding is refused with the byte offset")
    func badEncoding() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        var bytes = Array("name,price,images\nGood row,1000,a.jpg\n".utf8)
        let offset = bytes.count
        bytes += [0xFF, 0xFE, 0xFF, 0x41, 0x0A]
        let url = space.directory.appendingPathComponent("broken.csv")
        try Data(bytes).write(to: url)
        #expect(throws: ManifestError.self) { try space.check(url) }
        do { _ = try space.check(url) } catch {
            #expect("\(error)".contains("offset \(offset)"), "\(error)")
        }
    }

    @Test("a binary file given as CSV is refused, naming the NUL byte")
    func binary() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let url = space.directory.appendingPathComponent("photo.csv")
        try Data(Fixtures.png()).write(to: url)
        do { _ = try space.check(url); Issue.record("expected an error") } catch {
            #expect("\(error)".contains("binary"), "\(error)")
        }
    }

    @Test("an empty file and a header-only file")
    func emptyAndHeaderOnly() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        do { _ = try space.check(space.write("")); Issue.record("expected an error") } catch {
            #expect("\(error)".contains("empty"))
        }
        let headerOnly = try space.check(space.write("name,price,images\n"))
        #expect(headerOnly.summary.rows == 0 && !headerOnly.summary.hasErrors)
    }

    @Test("a file with no column that says which product a row is: one error for the file, not one per row")
    func missingColumn() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let result = try space.check(space.write("price,images\n1000,a.jpg\n2000,a.jpg\n"))
        let columnErrors = result.issues.filter { $0.rule == "column-missing" }
        #expect(columnErrors.count == 1 && columnErrors[0].column == "key" && columnErrors[0].row == 1)
        #expect(columnErrors.first?.message.contains("key (or sku") == true)
        #expect(result.summary.fileErrors == 1 && result.summary.hasErrors)
        // A partial file (name and photos, no price) is fine: it can update; a create would need the price.
        let partial = try space.check(space.write("name,images\nOne product,a.jpg\n", named: "partial.csv"))
        #expect(!partial.summary.hasErrors && partial.issues.map(\.rule) == ["price-missing", "stock-missing"], "\(partial.issues)")
        #expect(partial.issues.allSatisfy { $0.severity == .warning })
    }

    @Test("unknown columns: one warning for the file")
    func unknownColumns() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let result = try space.check(space.write("name,price,images,colour,weight\nOne product,1000,a.jpg,red,1kg\n"))
        let warnings = result.issues.filter { $0.rule == "column-unknown" }
        #expect(warnings.count == 1 && warnings[0].value == "colour, weight" && warnings[0].severity == .warning)
        #expect(result.drafts.count == 1)
    }

    @Test("every alias, in English and Korean, any case and spacing")
    func aliases() throws {
        let expectations: [(String, Column)] = [
            ("name", .name), ("상품명", .name), ("Description", .description), ("설명", .description), ("상품설명", .description),
            ("PRICE", .price), ("가격", .price), ("판매가", .price), ("currency", .currency), ("통화", .currency),
            ("discounted_price", .discountedPrice), ("Discounted Price", .discountedPrice), ("할인금액", .discountedPrice),
            ("discount", .discountedPrice), ("stock", .stock), ("재고", .stock), ("수량", .stock), ("images", .images),
            ("이미지", .images), ("id", .id), ("상품번호", .id), ("key", .key), ("SKU", .key), (" s k u ", .key),
        ]
        for (header, column) in expectations {
            #expect(Column(header: header) == column, "\(header)")
        }
        #expect(Column(header: "colour") == nil)
    }

    @Test("JSON arrays and JSON Lines, with images as arrays or text")
    func json() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let array = try space.write("""
        [{"name": "Green tea", "price": 4500, "currency": "KRW", "images": ["a.jpg", "b.png"], "stock": 3},
         {"상품명": "Black tea", "가격": "$12.50", "이미지": "a.jpg", "sku": "BT-1", "재고": 4}]
        """, named: "products.json")
        let fromArray = try space.check(array)
        #expect(fromArray.issues.isEmpty, "\(fromArray.issues)")
        #expect(fromArray.drafts.map(\.images.count) == [2, 1])
        #expect(fromArray.drafts[1].fields.price == Money(exactly: "12.5") && fromArray.drafts[1].fields.currency == "USD" && fromArray.drafts[1].key == "BT-1")

        let lines = try space.write("""
        {"name": "Green tea", "price": 4500, "stock": 1, "images": "a.jpg"}

        {"name": "x", "price": 1, "stock": 1, "images": "a.jpg"}
        """, named: "products.jsonl")
        let fromLines = try space.check(lines)
        #expect(fromLines.drafts.map(\.fields.name) == ["Green tea"])
        #expect(fromLines.issues.map(\.row) == [3] && fromLines.issues.map(\.rule) == ["name-length"])

        let broken = try space.write("{\"name\": \"ok\", \"price\": 1, \"images\": \"a.jpg\"}\n{not json\n", named: "broken.jsonl")
        do { _ = try space.check(broken); Issue.record("expected an error") } catch {
            #expect("\(error)".contains("line 2"))
        }
        let notArray = try space.write("{\"name\": \"x\"}", named: "object.json")
        #expect(throws: ManifestError.self) { try space.check(notArray) }
    }

    @Test("a 10 MB cell fails its row where it is read [cell-too-long], naming its column; a cell of 900 KB is read (and refused by the description rule)")
    func hugeCell() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let big = String(repeating: "가", count: 10 * 1024 * 1024 / 3)
        let result = try space.check(space.write("name,description,price,stock,images\nBig one,\"\(big)\",1000,1,a.jpg\nSmall one,,1000,1,a.jpg\n"))
        #expect(result.issues.map(\.rule) == ["cell-too-long"])
        #expect(result.issues.first?.column == "description" && result.issues.first?.value?.count == 41)
        #expect(result.drafts.map(\.fields.name) == ["Small one"])
        let under = String(repeating: "가", count: 900 * 1024 / 3)
        let read = try space.check(space.write("name,description,price,stock,images\nLong one,\"\(under)\",1000,1,a.jpg\n", named: "under.csv"))
        #expect(read.issues.map(\.rule) == ["description-length"])
    }
}

@Suite("Writing manifests that read back unchanged")
struct WriterTests {
    @Test("CSV, JSON and JSON Lines round trips, formula-like cells included", arguments: ["products.csv", "products.json", "products.jsonl"])
    func roundTrip(_ name: String) throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let entries = [
            ManifestEntry(id: 12, key: "TEA-1", fields: Product(name: "녹차 라떼, \"큰 컵\"", description: "line one\nline two", price: 4500,
                                                                currency: "KRW", discountedPrice: 500, stock: 3), images: ["a.jpg", "b.png"]),
            ManifestEntry(id: nil, key: nil, fields: Product(name: "=HYPERLINK(\"x\")", description: "-5% off, @home", price: Money(exactly: "12.5")!,
                                                             currency: "USD", discountedPrice: 0, stock: 0), images: ["a.jpg"]),
        ]
        let url = space.directory.appendingPathComponent(name)
        let writer = try ManifestWriter(url: url)
        for entry in entries { try writer.write(entry) }
        #expect(!FileManager.default.fileExists(atPath: url.path), "not in place before finish()")
        try writer.finish()
        if name.hasSuffix(".csv") {
            let text = try String(contentsOf: url, encoding: .utf8)
            #expect(text.contains("'=HYPERLINK") && text.contains("'-5% off"), "formula cells are neutralised")
        }
        // The second row has neither key nor id: read by its name, as --key-by name asks.
        var byName = ValidationOptions()
        byName.keyByName = true
        let result = try space.check(url, options: byName)
        #expect(result.issues.isEmpty, "\(result.issues)")
        let back = result.drafts.map { ManifestEntry($0, relativeTo: space.directory) }
        #expect(back == entries)
    }

    @Test("a text longer than an Excel cell holds (a server's 40,000-character description): the workbook is written, that cell cut to 32,767 characters and the product named; CSV keeps it whole")
    func longerThanACell() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let long = String(repeating: "설명", count: 20_000)
        let entries = [
            ManifestEntry(id: 7, key: "LONG-1", fields: Product(name: "Long text tea", description: long, price: 1000, currency: "KRW", stock: 1), images: ["a.jpg"]),
            ManifestEntry(id: 8, key: "SHORT-1", fields: Product(name: "Short text tea", description: "short", price: 1000, currency: "KRW", stock: 1), images: ["a.jpg"]),
        ]
        let book = space.directory.appendingPathComponent("long.xlsx")
        let writer = try ManifestWriter(url: book)
        for entry in entries { try writer.write(entry) }
        try writer.finish()
        #expect(writer.cutInWorkbook == ["#7"])
        let reader = try ManifestReader(url: book)
        let first = try #require(try reader.next()), second = try #require(try reader.next())
        #expect(first.values[.description] == String(long.prefix(SpreadsheetWriter.cellCharacters)))
        #expect(second.values[.name] == "Short text tea" && second.values[.description] == "short")
        let csv = space.directory.appendingPathComponent("long.csv")
        let whole = try ManifestWriter(url: csv)
        for entry in entries { try whole.write(entry) }
        try whole.finish()
        let text = try String(contentsOf: csv, encoding: .utf8)
        #expect(whole.cutInWorkbook.isEmpty && text.contains(long))
    }
}

@Suite("CSV by Unicode scalars (what the fuzzer found in the library's writer)")
struct CSVLinesTests {
    @Test("a line feed or a quote followed by a combining mark is quoted and doubled; plain fields stay bare")
    func fields() {
        #expect(CSVLines.field("plain 녹차") == "plain 녹차")
        #expect(CSVLines.field("a\n\u{31D}b") == "\"a\n\u{31D}b\"")
        #expect(CSVLines.field("say \"\u{31D}hi\"") == "\"say \"\"\u{31D}hi\"\"\"")
        #expect(CSVLines.field("x,y") == "\"x,y\"")
        #expect(CSVLines.field("tab\tsep", delimiter: "\t") == "\"tab\tsep\"")
    }

    @Test("rows are separated, the last one is not ended")
    func rows() throws {
        let stream = OutputStream.toMemory()
        stream.open()
        let lines = CSVLines(stream, newline: "\r\n")
        try lines.write(row: ["a", "b\n\u{31D}"])
        try lines.write(row: ["c", ""])
        stream.close()
        let data = stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data ?? Data()
        #expect(String(decoding: data, as: UTF8.self) == "a,\"b\n\u{31D}\"\r\nc,")
    }

    @Test("formula marks by scalar and after leading spaces, taken off by restore after the reader's trim")
    func formulaMarks() {
        #expect(CSVCell.neutralise("=\u{31D}1") == "'=\u{31D}1")
        #expect(CSVCell.neutralise("\n'+g") == "\n''+g")
        #expect(CSVCell.restore(ManifestValidator.trimmed(CSVCell.neutralise("\n'+g"))) == "'+g")
        #expect(CSVCell.restore(CSVCell.neutralise("-5")) == "-5")
        #expect(CSVCell.neutralise("plain") == "plain")
    }
}
