import Foundation
import Manifest
import OpenMarketContract
import Testing
import TestSupport

/// What validate says of sheets from elsewhere, before any shop is asked (import says the same:
/// both read through `ManifestValidator`).
@Suite("Sheets from elsewhere, validated")
struct ForeignSheetRuleTests {
    @Test("rows that would be one product: one name twice without a key, keys equal but for case or zeros")
    func collisions() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let names = try space.check(space.write("name,price,stock,images\nGreen tea,1000,1,a.jpg\nBlack tea,1000,1,a.jpg\nGreen tea,1200,1,a.jpg\n"))
        #expect(names.drafts.count == 2)
        #expect(names.issues.contains { $0.row == 4 && $0.rule == "name-duplicate" && $0.severity == .error && $0.message.contains("row 2") })
        // With keys, one name twice stays a warning (two products may share a name).
        let keyed = try space.check(space.write("key,name,price,stock,images\nA,Green tea,1000,1,a.jpg\nB,Green tea,1200,1,a.jpg\n"))
        #expect(keyed.drafts.count == 2 && keyed.issues.map(\.rule) == ["name-duplicate"] && keyed.issues[0].severity == .warning)
        let keys = try space.check(space.write("key,name,price,stock,images\n00120,Alpha,1000,1,a.jpg\n120,Bravo,1000,1,a.jpg\nab,Charlie,1000,1,a.jpg\nAB,Delta,1000,1,a.jpg\n"))
        #expect(keys.drafts.map(\.key) == ["00120", "ab"])
        #expect(keys.issues.filter { $0.rule == "key-duplicate" }.map(\.row) == [3, 5])
    }

    @Test("an empty stock cell: a new product needs a count, unless a default is given")
    func emptyStock() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let url = try space.write("key,name,price,stock,images\nW1,Scarf,1000,,a.jpg\n")
        let plain = try space.check(url)
        #expect(plain.drafts.first?.createProblems.map(\.rule) == ["stock-empty"])
        #expect(plain.issues.contains { $0.rule == "stock-empty" && $0.severity == .warning && $0.message.contains("--default-stock") })
        var options = ValidationOptions()
        options.defaultStock = 6
        let given = try space.check(url, options: options)
        #expect(given.drafts.first?.createProblems.isEmpty == true && given.drafts.first?.fields.stock == 6)
        #expect(given.drafts.first?.given.contains(.stock) == false, "an update keeps the shop's stock")
    }

    @Test("photos in one cell split by ; , | and line breaks; a comma in a URL's query or a file's name is not a separator")
    func photoLists() throws {
        #expect(ImageSource.references(inCell: "a.jpg, b.jpg") == ["a.jpg", "b.jpg"])
        #expect(ImageSource.references(inCell: "a.jpg | b.jpg|c.png") == ["a.jpg", "b.jpg", "c.png"])
        #expect(ImageSource.references(inCell: "a.jpg\r\nb.jpg") == ["a.jpg", "b.jpg"])
        #expect(ImageSource.references(inCell: "https://cdn.example/p.jpg?w=100,h=80, https://cdn.example/q.jpg")
                == ["https://cdn.example/p.jpg?w=100,h=80", "https://cdn.example/q.jpg"])
        #expect(ImageSource.references(inCell: "front, left.jpg") == ["front, left.jpg"])
        let space = try Workspace()
        defer { space.cleanup() }
        let result = try space.check(space.write("key,name,price,stock,images\nA,Tea,1000,1,\"a.jpg, b.png\"\nB,Tea 2,1000,1,\"a.jpg, missing.jpg\"\n"))
        #expect(result.drafts.first?.images.count == 2)
        #expect(result.issues.contains { $0.row == 3 && $0.rule == "image-missing" && $0.value == "missing.jpg" }, "\(result.issues)")
    }

    @Test("HTML descriptions become the text a buyer reads, with a note; --keep-html keeps them")
    func html() throws {
        #expect(HTMLText.plain("<p>Soft &amp; warm</p>\n<p>Wash <b>cold</b><br/>Dry flat</p>") == "Soft & warm\n\nWash cold\nDry flat")
        #expect(HTMLText.plain("<ul><li>Cotton</li><li>Made in Korea</li></ul><p>&#39;Hi&#x27; &lt;3</p>") == "• Cotton\n• Made in Korea\n\n'Hi' <3")
        #expect(HTMLText.plain("<style>p{color:red}</style><div>Tea</div>") == "Tea")
        #expect(!HTMLText.looksLikeHTML("Salt & pepper, 2 < 3 > 1"))
        #expect(HTMLText.looksLikeHTML("<p>x</p>") && HTMLText.looksLikeHTML("Tom &amp; Jerry"))
        let space = try Workspace()
        defer { space.cleanup() }
        let url = try space.write("key,name,price,stock,images,description\nA,Tea,1000,1,a.jpg,\"<p>Soft &amp; warm</p>\"\n")
        let result = try space.check(url)
        #expect(result.drafts.first?.fields.description == "Soft & warm")
        #expect(result.issues.map(\.rule) == ["description-html"] && result.issues[0].severity == .warning)
        var options = ValidationOptions()
        options.keepHTML = true
        #expect(try space.check(url, options: options).drafts.first?.fields.description == "<p>Soft &amp; warm</p>")
    }

    @Test("text garbled by a wrong encoding is a warning saying what it was meant to be")
    func garbled() throws {
        let meant = "녹차 라떼"
        // UTF-8 bytes read as Windows-1252, as Excel or a Windows tool does.
        let garbled = Array(meant.utf8).map { Self.cp1252($0) }.joined()
        #expect(garbled.hasPrefix("ë…¹ì°¨ ë"))
        #expect(GarbledText.meant(garbled) == meant)
        #expect(GarbledText.meant("Café crème") == nil && GarbledText.meant("녹차") == nil && GarbledText.meant("plain") == nil)
        let space = try Workspace()
        defer { space.cleanup() }
        let result = try space.check(space.write("key,name,price,stock,images\nA,\(garbled),1000,1,a.jpg\n"))
        #expect(result.drafts.count == 1)
        #expect(result.issues.contains { $0.rule == "text-garbled" && $0.column == "name" && $0.message.contains(meant) }, "\(result.issues)")
    }

    /// One byte as Windows-1252 reads it, as UTF-8 bytes.
    static func cp1252(_ byte: UInt8) -> String {
        let table: [UInt8: String] = [0x80: "€", 0x85: "…", 0x8C: "Œ", 0x96: "–", 0x9C: "œ", 0x82: "‚", 0x84: "„"]
        if let special = table[byte] { return special }
        return String(Character(Unicode.Scalar(byte)))
    }
}

@Suite("Keys Excel damaged, said by validate")
struct ExcelKeyTests {
    @Test("keys in scientific notation or made into dates are warned of; ordinary keys are not")
    func excelKeys() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let result = try space.check(space.write("key,name,price,stock,images\n1.23457E+11,Green tea,1000,1,a.jpg\n2024-01-02,Black tea,1000,1,a.jpg\nTEA-2024-01,Oolong tea,1000,1,a.jpg\n00120,White tea,1000,1,a.jpg\n"))
        #expect(result.issues.filter { $0.rule == "key-excel" }.map(\.row) == [2, 3], "\(result.issues)")
        #expect(result.drafts.count == 4, "no error: such a row may still update the product its key names")
        // Never a new product: the damage is what a new product would lack, and validate does not count such rows valid.
        // Never a new product of digits lost to scientific notation, nor of a date in the sheet's locale;
        // an ISO date may be a key as typed (export writes it so): a warning.
        let slashed = try space.check(space.write("key,name,price,stock,images\n8.80123E+12,Green tea,1000,1,a.jpg\n1/2/2024,Black tea,1000,1,a.jpg\n2024-01-02,Oolong tea,1000,1,a.jpg\n", named: "excel.csv"))
        #expect(slashed.drafts.filter { $0.createProblems.contains { $0.rule == "key-excel" } }.map(\.row) == [2, 3])
        #expect(slashed.issues.contains { $0.row == 4 && $0.rule == "key-excel" && $0.severity == .warning })
        #expect(slashed.summary.valid == 1 && slashed.summary.updateOnly == 2 && slashed.summary.newProductNeeds["key-excel"] == 2, "\(slashed.summary)")
    }
}

@Suite("What a sheet leaves open, never guessed")
struct UnstatedValueTests {
    @Test("no stock column: a new product needs one (--default-stock fills it as it fills an empty cell); an update keeps the shop's")
    func stockColumnMissing() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let url = try space.write("key,name,price,images\nT-1,Green tea,1000,a.jpg\n")
        let plain = try space.check(url)
        let draft = try #require(plain.drafts.first)
        #expect(draft.createProblems.map(\.rule) == ["stock-missing"] && !draft.given.contains(.stock), "\(draft.createProblems)")
        #expect(draft.createProblems[0].message.contains("the sheet has no stock column") && draft.createProblems[0].message.contains("--default-stock N"))
        #expect(plain.summary.valid == 0 && plain.summary.updateOnly == 1)
        var options = ValidationOptions()
        options.defaultStock = 10
        let filled = try space.check(url, options: options)
        #expect(filled.drafts.first?.fields.stock == 10 && filled.drafts.first?.createProblems.isEmpty == true)
        #expect(filled.drafts.first?.given.contains(.stock) == false, "an update keeps the shop's stock")
        #expect(filled.summary.valid == 1)
    }

    @Test("whole won amounts written with two decimals are whole; a real fraction is still refused")
    func wholeAmountsWithDecimals() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let result = try space.check(space.write("key,name,price,currency,discounted_price,stock,images\nA,Green tea,12900.00,KRW,100.00,1,a.jpg\nB,Black tea,\"12,900.00\",KRW,0,1,a.jpg\nC,Oolong tea,12900.50,KRW,0,1,a.jpg\n"))
        #expect(result.drafts.map(\.key) == ["A", "B"], "\(result.issues)")
        #expect(result.drafts.map(\.fields.price) == [12900, 12900] && result.drafts.first?.fields.discountedPrice == 100)
        #expect(result.issues.contains { $0.row == 4 && $0.rule == "price-fraction" })
    }

    @Test("a price with no discount beside it is what the buyer pays: the discount is planned with it (0)")
    func priceCarriesDiscount() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let result = try space.check(space.write("key,price\nA,12900\n"))
        let draft = try #require(result.drafts.first)
        #expect(draft.given.isSuperset(of: [.price, .discountedPrice]) && draft.fields.discountedPrice == 0)
        let stockOnly = try space.check(space.write("key,stock\nA,3\n", named: "stock.csv"))
        #expect(stockOnly.drafts.first?.given.contains(.discountedPrice) == false, "no price, no discount")
    }

    @Test("a description that reads as [clear] is written so that it comes back as that text, in every format")
    func clearMarkerAsText() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        for name in ["out.csv", "out.jsonl", "out.json", "out.xlsx"] {
            let url = space.directory.appendingPathComponent(name)
            let writer = try ManifestWriter(url: url)
            for (index, text) in ["[clear]", "'[clear]", "  [clear] ", "plain"].enumerated() {
                try writer.write(ManifestEntry(id: nil, key: "K\(index)", fields: Product(name: "Tea \(index)", description: text, price: 1000, currency: "KRW", stock: 1),
                                               images: ["a.jpg"]))
            }
            try writer.finish()
            var options = ValidationOptions()
            options.checkImageFiles = false
            let result = try space.check(url, options: options)
            #expect(result.drafts.map(\.fields.description) == ["[clear]", "'[clear]", "[clear]", "plain"], "\(name)")
            #expect(result.drafts.allSatisfy { $0.given.contains(.description) }, "\(name)")
        }
        // Typed by a merchant, the marker still empties the description.
        let typed = try space.check(space.write("key,description\nA,[clear]\n", named: "typed.csv"))
        #expect(typed.drafts.first?.fields.description == "" && typed.drafts.first?.given.contains(.description) == true)
    }
}

@Suite("Garbled text as it arrives")
struct GarbledArrivalTests {
    @Test("the issue's text as shown, with the byte Windows-1252 has no character for dropped, is found too")
    func droppedByte() {
        let meant = GarbledText.meant("ë…¹ì°¨ ë¼ë–¼")
        #expect(meant?.hasPrefix("녹차 ") == true && meant?.hasSuffix("떼") == true, "\(String(describing: meant))")
        #expect(GarbledText.meant("Ça a été") == nil && GarbledText.meant("Ã la carte") == nil)
    }
}

@Suite("Hostile cells for the new splitters")
struct HostileCellTests {
    @Test("a cell of many commas, or of many '<' and one '>', is read in one pass (each was a square of the cell's length)")
    func linear() {
        let commas = String(repeating: "a,", count: 300_000) + "b.jpg"
        #expect(ImageSource.references(inCell: commas) == [commas])
        let brackets = String(repeating: "<", count: 300_000) + ">"
        #expect(HTMLText.looksLikeHTML(brackets) == false)
        #expect(HTMLText.plain("<p>" + String(repeating: "<", count: 300_000) + "</p>").count == 300_000)
    }
}
