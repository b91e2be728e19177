import Foundation
import Testing
import TestSupport
import Zip

/// What a merchant drops on the console's page is unpacked without touching what they have:
/// over real HTTP, into a real folder.
@Suite("The console's uploads keep what the merchant has", .serialized)
struct ConsoleUploadTests {
    /// The names in `folder`, walked (hidden work folders would show here too).
    static func tree(_ folder: URL) -> Set<String> {
        let walker = FileManager.default.enumerator(atPath: folder.path)
        var names = Set<String>()
        while let next = walker?.nextObject() as? String { names.insert(next) }
        return names
    }

    @Test("every sheet the reader reads is one the page takes: the upload field accepts .xlsm and .ods (the one list of extensions), an .ods dropped is kept and listed; a .pdf is refused")
    func everySheetFormat() async throws {
        let open = try await OpenConsole.start(rows: 1)
        let page = try await open.get("")
        let accept = try #require(page.text.firstMatch(of: /accept="([^"]+)"/).map { String($0.1) })
        #expect(Set(accept.split(separator: ",")) == [".csv", ".tsv", ".txt", ".xlsx", ".xlsm", ".ods", ".json", ".jsonl", ".ndjson", ".zip"], "\(accept)")
        let ods = try await open.upload("from-libreoffice.ods", Data("PK\u{3}\u{4} not really a workbook".utf8))
        #expect(ods.status == 200, "\(ods.status) \(ods.text)")
        #expect(try await open.get("").text.contains("from-libreoffice.ods"), "listed among the sheets")
        let pdf = try await open.upload("catalog.pdf", Data("%PDF-1.4".utf8))
        #expect(pdf.status == 400, "\(pdf.status) \(pdf.text)")
        await open.close()
    }

    @Test("a zip holding a file named like a folder, and a sheet named like the folder's own: both kept beside, nothing removed or replaced, the answer says where")
    func nothingReplaced() async throws {
        let open = try await OpenConsole.start(rows: 1)
        let folder = open.files.directory
        let images = folder.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        for n in 1...3 { try Data(try Fixtures.jpeg(width: 30, height: 20, seed: UInt64(n))).write(to: images.appendingPathComponent("\(n).jpg")) }
        let sheet = try Data(contentsOf: folder.appendingPathComponent("products.csv"))

        let zip = try OpenConsole.zip([("images", Data("a file, not the folder".utf8)),
                                       ("products.csv", Data("key,name,price,stock,images\nX,Other tea,1000,1,p.jpg\n".utf8))])
        let answer = try await open.upload("photos.zip", zip)
        #expect(answer.status == 200, "\(answer.text)")
        let said = try answer.json()
        let renamed = (said["renamed"] as? [[String: String]]) ?? []
        #expect(renamed.contains { $0["wanted"] == "images" && $0["kept"] == "images (2)" }, "\(answer.text)")
        #expect(renamed.contains { $0["wanted"] == "products.csv" && $0["kept"] == "products (2).csv" }, "\(answer.text)")
        #expect((said["notes"] as? [String])?.contains { $0.contains("products.csv was already in the folder") } == true, "\(answer.text)")
        // The folder and its photos, the sheet: as they were.
        #expect(try FileManager.default.contentsOfDirectory(atPath: images.path).sorted() == ["1.jpg", "2.jpg", "3.jpg"])
        #expect(try Data(contentsOf: folder.appendingPathComponent("products.csv")) == sheet)
        #expect(try String(contentsOf: folder.appendingPathComponent("images (2)"), encoding: .utf8) == "a file, not the folder")
        // The same zip again: the same bytes are there, nothing more is written.
        let again = try await open.upload("photos.zip", zip)
        let keptAgain = try again.json()["kept"] as? [String]
        #expect(again.status == 200 && keptAgain == [], "\(again.text)")
        // A sheet dropped on its own under a taken name: kept beside too.
        let dropped = try await open.upload("products.csv", Data("key,name,price,stock,images\nY,Third tea,1000,1,p.jpg\n".utf8))
        #expect(dropped.status == 200 && dropped.text.contains("products (3).csv"), "\(dropped.text)")
        #expect(try Data(contentsOf: folder.appendingPathComponent("products.csv")) == sheet)
        await open.close()
    }

    @Test("a zip whose headers declare 1,000 bytes for an entry that inflates to 20 MB: refused at once, nothing left behind")
    func lyingSizes() async throws {
        let open = try await OpenConsole.start(rows: 1)
        let before = Self.tree(open.files.directory)
        var zip = try OpenConsole.zip([("photos/big.jpg", Data(count: 20 << 20)), ("photos/small.jpg", Data("ok".utf8))])
        #expect(zip.count < 100_000, "\(zip.count) bytes")
        Self.declare(&zip, uncompressedSize: 1000, ofFirstEntry: true)
        let answer = try await open.upload("photos.zip", zip)
        #expect(answer.status == 400 && answer.text.contains("unpacks to more than the 1000 bytes its header says"), "\(answer.text)")
        // Nothing kept, no work folder left, and far less than 50 MB ever written (the file is gone).
        #expect(Self.tree(open.files.directory).subtracting(before).filter { !$0.hasPrefix(".to-send") }.isEmpty,
                "\(Self.tree(open.files.directory).subtracting(before))")
        await open.close()
    }

    @Test("Korean names in a zip made on Korean Windows (CP949, no UTF-8 flag) land as 사진/녹차.jpg; the answer says how they were read")
    func cp949Names() async throws {
        let open = try await OpenConsole.start(rows: 1)
        let photo = Data(try Fixtures.jpeg(width: 30, height: 20, seed: 5))
        // 사진/녹차.jpg in CP949.
        let name: [UInt8] = [0xBB, 0xE7, 0xC1, 0xF8, 0x2F, 0xB3, 0xEC, 0xC2, 0xF7, 0x2E, 0x6A, 0x70, 0x67]
        let zip = try Self.storedZip([(name, photo)])
        let answer = try await open.upload("사진.zip", zip)
        #expect(answer.status == 200, "\(answer.text)")
        let kept = open.files.directory.appendingPathComponent("사진").appendingPathComponent("녹차.jpg")
        #expect(try Data(contentsOf: kept) == photo, "\(Self.tree(open.files.directory))")
        let decoded = (try answer.json()["decoded"] as? [[String: String]]) ?? []
        #expect(decoded == [["name": "사진/녹차.jpg", "encoding": "cp949"]], "\(answer.text)")
        await open.close()
    }

    @Test("a name Info-ZIP wrote in another code page with its Unicode Path field (Shift_JIS 写真.jpg) lands under its Unicode name and the answer says so; a stale field (its CRC of other bytes) is not believed")
    func infoZipUnicodePath() async throws {
        let open = try await OpenConsole.start(rows: 1)
        let photo = Data(try Fixtures.jpeg(width: 30, height: 20, seed: 7))
        let shiftJIS: [UInt8] = [0x8E, 0xCA, 0x90, 0x5E, 0x2E, 0x6A, 0x70, 0x67]   // 写真.jpg
        let zip = try Self.storedZip([(shiftJIS, photo)], unicodeNames: [("写真.jpg", crcOf: nil)])
        let answer = try await open.upload("photos.zip", zip)
        #expect(answer.status == 200, "\(answer.text)")
        #expect(try Data(contentsOf: open.files.directory.appendingPathComponent("写真.jpg")) == photo, "\(Self.tree(open.files.directory))")
        let decoded = (try answer.json()["decoded"] as? [[String: String]]) ?? []
        #expect(decoded == [["name": "写真.jpg", "encoding": "unicode-path"]], "\(answer.text)")
        #expect(answer.text.contains("Unicode path field"), "the page's note says how: \(answer.text)")
        // A field whose CRC is of other bytes (the entry renamed since): the name's own bytes are read instead (not CP949 either: CP437).
        let stale = try Self.storedZip([(shiftJIS, photo)], unicodeNames: [("写真.jpg", crcOf: [0x41])])
        let second = try await open.upload("again.zip", stale)
        let read = (try second.json()["decoded"] as? [[String: String]]) ?? []
        #expect(read.first?["encoding"] == "cp437" && read.first?["name"] != "写真.jpg", "\(second.text)")
        await open.close()
    }

    @Test("a feed file added from the Feeds page (no hidden folder to find): kept when it reads as a feed and listed; one with a mistake said and not kept; a sheet is not a feed; a taken name kept beside")
    func feedFromThePage() async throws {
        let open = try await OpenConsole.start(rows: 1)
        let feeds = open.files.directory.appendingPathComponent("feeds")
        let page = try await open.get("feeds")
        #expect(page.text.contains("id=\"feed-files\"") && page.text.contains("add a feed file"), "\(page.text.suffix(1200))")
        let good = Data(Fixtures.feedText(source: "https://supplier.example/feed.csv").utf8)
        let added = try await open.upload("acme.toml", good, to: "feeds/upload")
        #expect(added.status == 200 && (try? Data(contentsOf: feeds.appendingPathComponent("acme.toml"))) == good, "\(added.text)")
        #expect(try await open.get("feeds").text.contains("acme"), "listed")
        let broken = try await open.upload("broken.toml", Data("[columns]\nkey = \n".utf8), to: "feeds/upload")
        #expect(broken.status == 400 && broken.text.contains("broken.toml is not kept: the feed file has a mistake"), "\(broken.text)")
        #expect(!FileManager.default.fileExists(atPath: feeds.appendingPathComponent("broken.toml").path))
        let sheet = try await open.upload("products.csv", Data("key,name\n".utf8), to: "feeds/upload")
        #expect(sheet.status == 400 && sheet.text.contains("a feed is a .toml file"), "\(sheet.text)")
        let other = Data(Fixtures.feedText(source: "https://supplier.example/other.csv").utf8)
        let beside = try await open.upload("acme.toml", other, to: "feeds/upload")
        #expect(beside.status == 200 && (try? Data(contentsOf: feeds.appendingPathComponent("acme.toml"))) == good
                && (try? Data(contentsOf: feeds.appendingPathComponent("acme (2).toml"))) == other, "\(beside.text)")
        #expect(Self.tree(feeds).allSatisfy { !$0.hasPrefix(".") }, "no work file left: \(Self.tree(feeds))")
        await open.close()
    }

    /// Rewrites the uncompressed size the zip's headers give its first entry (local and central).
    static func declare(_ zip: inout Data, uncompressedSize: UInt32, ofFirstEntry: Bool) {
        func put(_ value: UInt32, at offset: Int) {
            for byte in 0..<4 { zip[zip.startIndex + offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(byte))) }
        }
        let bytes = [UInt8](zip)
        // The local header of the first entry is at 0; its uncompressed size at 22.
        put(uncompressedSize, at: 22)
        // The first central directory header (PK\u{1}\u{2}); its uncompressed size at 24.
        if let central = (0..<(bytes.count - 4)).first(where: { bytes[$0] == 0x50 && bytes[$0 + 1] == 0x4B && bytes[$0 + 2] == 0x01 && bytes[$0 + 3] == 0x02 }) {
            put(uncompressedSize, at: central + 24)
        }
    }

    /// A zip of stored entries with names given as bytes, no UTF-8 flag: as Windows' own zip writes them.
    /// `unicodeNames`: Info-ZIP's Unicode Path field for each entry (nil: none), with the CRC-32
    /// of `crcOf` (default: the entry's own name bytes; another's makes the field stale).
    static func storedZip(_ entries: [([UInt8], Data)], unicodeNames: [(String, crcOf: [UInt8]?)?] = []) throws -> Data {
        var writer = ZipWriter()
        for (index, (name, data)) in entries.enumerated() {
            let field = index < unicodeNames.count ? unicodeNames[index].map { ZipWriter.unicodePathField($0.0, crcOf: $0.crcOf ?? name) } : nil
            try writer.add(nameBytes: name, data, extra: field ?? [])
        }
        return writer.data
    }
}
