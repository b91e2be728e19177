import Foundation
import Manifest
import Testing
import TestSupport
import Zip

/// The one zip reader (`ZipParts`, under workbooks and the console's uploads), the merchant's
/// zip on it (`MerchantZip`), raw deflate and inflate, and the writer the tests and the fuzzer
/// make zips with: each against Python's zipfile and zlib, which wrote and read them first.
@Suite("Zips: one reader, against Python's zipfile and zlib")
struct ZipTests {
    /// Runs a Python script with `arguments`; its output.
    static func python(_ script: String, _ arguments: [String]) throws -> String {
        let result = try runToolOutput("/usr/bin/env", ["python3", "-c", script] + arguments)
        guard result.status == 0 else { throw TestFailure("python3 failed: \(result.output)") }
        return result.output
    }

    @Test("a zip Python's zipfile writes (deflated, a Korean name with the UTF-8 flag, a folder, a Unix link, a zip64 entry): every part in order, its name, kind and bytes")
    func readsPythonsZip() throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let zip = files.directory.appendingPathComponent("made.zip")
        _ = try Self.python("""
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("photos/녹차.jpg", bytes(range(256)) * 40)
                z.writestr("sheet.csv", "key,name\\nK1,녹차\\n")
                z.writestr(zipfile.ZipInfo("empty/"), b"")
                link = zipfile.ZipInfo("link.jpg"); link.create_system = 3; link.external_attr = 0o120777 << 16
                z.writestr(link, "/etc/passwd")
                with z.open("big.bin", "w", force_zip64=True) as big: big.write(b"zip64" * 1000)
            """, [zip.path])
        let archive = try ZipParts(url: zip)
        #expect(archive.parts.map(\.name) == ["photos/녹차.jpg", "sheet.csv", "empty/", "link.jpg", "big.bin"])
        let photo = try #require(archive["photos/녹차.jpg"])
        #expect(photo.isUTF8 && photo.method == 8 && !photo.isDirectory && !photo.isSymlink)
        #expect(try archive.data(photo) == Data((0..<40).flatMap { _ in (0..<256).map(UInt8.init) }))
        #expect(try archive.data(photo).count == photo.size && CRC32.of(try archive.data(photo)) == photo.checksum)
        #expect(String(decoding: try archive.data(try #require(archive["sheet.csv"])), as: UTF8.self) == "key,name\nK1,녹차\n")
        #expect(try #require(archive["empty/"]).isDirectory)
        #expect(try #require(archive["link.jpg"]).isSymlink)
        #expect(try archive.data(try #require(archive["big.bin"])) == Data(String(repeating: "zip64", count: 1000).utf8))

        // The merchant's zip on it: the link refused by name, before anything is read.
        do {
            _ = try MerchantZip(url: zip, name: "made.zip")
            Issue.record("a zip holding a link was taken")
        } catch {
            #expect(error.phrase.key == "upload_link" && error.description.contains("link.jpg"), "\(error)")
        }
    }

    @Test("a zip made here is one Python's zipfile tests clean and reads back: stored and deflated, a UTF-8 name flagged, a CP437 name not, a Unicode Path field")
    func writerReadByPython() throws {
        let files = try Scratch()
        defer { files.cleanup() }
        var writer = ZipWriter()
        try writer.add("사진/녹차.jpg", Data(repeating: 7, count: 100_000))
        try writer.add("sheet.csv", Data("key,name\n".utf8), method: .stored)
        try writer.add(nameBytes: [0x43, 0x41, 0x46, 0x82, 0x2E, 0x6A, 0x70, 0x67], Data("café".utf8), extra: ZipWriter.unicodePathField("CAFé.jpg", crcOf: [0x43, 0x41, 0x46, 0x82, 0x2E, 0x6A, 0x70, 0x67]))
        let zip = files.directory.appendingPathComponent("here.zip")
        try writer.data.write(to: zip)
        let listed = try Self.python("""
            import sys, zipfile, zlib
            with zipfile.ZipFile(sys.argv[1]) as z:
                assert z.testzip() is None
                for info in z.infolist():
                    print(info.filename, info.compress_type, info.file_size, zlib.crc32(z.read(info)))
            """, [zip.path])
        #expect(listed.split(separator: "\n").map(String.init) == [
            "사진/녹차.jpg 8 100000 \(CRC32.of(Data(repeating: 7, count: 100_000)))",
            "sheet.csv 0 9 \(CRC32.of(Data("key,name\n".utf8)))",
            // Python reads a name without the flag as CP437 (it reads no Unicode Path field).
            "CAFé.jpg 0 5 \(CRC32.of(Data("café".utf8)))",
        ], "\(listed)")
        // Here, the Unicode Path field is read, and believed only for the bytes it was made for.
        let merchant = try MerchantZip(url: zip, name: "here.zip")
        #expect(merchant.files.map(\.path) == ["사진/녹차.jpg", "sheet.csv", "CAFé.jpg"])
        #expect(merchant.files.map(\.encoding) == [nil, nil, MerchantZip.unicodePath])
        var stale = ZipWriter()
        try stale.add(nameBytes: [0x43, 0x41, 0x46, 0x82], Data(), extra: ZipWriter.unicodePathField("other", crcOf: [0x41]))
        let read = try MerchantZip(data: stale.data, name: "stale.zip")
        #expect(read.files.map(\.path) == ["CAFé"] && read.files.map(\.encoding) == ["cp437"])
    }

    @Test("raw deflate is the stream zlib inflates (wbits -15), and back; CRC-32 and CP437 agree with Python's")
    func deflateCRCAndCodePage() throws {
        let text = Data((0..<20_000).map { "{\"key\":\"K\($0)\",\"name\":\"녹차 \($0)\"}\n" }.joined().utf8)
        let packed = try RawDeflate.compress(text)
        #expect(packed.count < text.count / 4, "\(packed.count) of \(text.count)")
        #expect(try RawInflate.inflate(packed) == text)
        let files = try Scratch()
        defer { files.cleanup() }
        let path = files.directory.appendingPathComponent("packed.bin")
        try packed.write(to: path)
        let checked = try Self.python("""
            import sys, zlib
            data = zlib.decompress(open(sys.argv[1], "rb").read(), -15)
            print(len(data), zlib.crc32(data))
            print(bytes(range(256)).decode("cp437"))
            """, [path.path])
        let lines = checked.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "\(text.count) \(CRC32.of(text))")
        #expect(CRC32.of(Array("123456789".utf8)) == 0xCBF4_3926)
        // Python prints bytes 0–255 decoded; the control characters (among them \n) make lines of their own.
        #expect(lines.dropFirst().dropLast().joined(separator: "\n") == CP437.text((0...255).map(UInt8.init)))
        #expect(try RawDeflate.compress(Data()).isEmpty == false && RawInflate.inflate(try RawDeflate.compress(Data())).isEmpty)
    }

    @Test("a damaged zip is said, never waited on: cut off, a part past the end, bytes that inflate past their header or miss their CRC, a name that climbs out; the Mac's own files left out")
    func damagedAndHostile() throws {
        var writer = ZipWriter()
        try writer.add("photos/a.jpg", Data(repeating: 1, count: 50_000))
        try writer.add("__MACOSX/photos/._a.jpg", Data("mac".utf8))
        try writer.add("photos/.DS_Store", Data("mac".utf8))
        let good = writer.data
        let merchant = try MerchantZip(data: good, name: "good.zip")
        #expect(merchant.files.map(\.path) == ["photos/a.jpg"])
        var written: UInt64 = 0
        var bytes = 0
        try merchant.read(try #require(merchant.files.first), written: &written) { bytes += $0.count }
        #expect(bytes == 50_000 && written == 50_000)

        // Cut off: no directory to read.
        #expect(throws: ZipParts.Damaged.self) { try ZipParts(data: good.prefix(good.count / 2)) }
        // A part whose packed size runs past the end of the file.
        var past = good
        past.replaceSubrange(past.firstRange(of: Data([0x50, 0x4B, 0x01, 0x02]))!.lowerBound + 20..<(past.firstRange(of: Data([0x50, 0x4B, 0x01, 0x02]))!.lowerBound + 24),
                             with: Data([0xFF, 0xFF, 0xFF, 0x0F]))
        let archive = try ZipParts(data: past)
        #expect(throws: ZipParts.Damaged.self) { try archive.data(archive.parts[0]) }
        // Each refusal names its rule.
        func refusal(_ body: () throws -> Void) -> String? {
            do { try body() } catch let refused as MerchantZip.Refused { return refused.phrase.key } catch { return "\(error)" }
            return nil
        }
        var small = good
        let central = small.firstRange(of: Data([0x50, 0x4B, 0x01, 0x02]))!.lowerBound
        small.replaceSubrange((central + 24)..<(central + 28), with: Data([0x10, 0, 0, 0]))
        let lying = try MerchantZip(data: small, name: "lies.zip")
        var none: UInt64 = 0
        #expect(refusal { try lying.read(lying.files[0], written: &none) { _ in } } == "upload_entry_lies")
        var flipped = good
        flipped[flipped.startIndex + 14] ^= 0xFF   // the CRC-32 in the local header is not read; the directory's is
        flipped[central + 16] ^= 0xFF
        let wrong = try MerchantZip(data: flipped, name: "crc.zip")
        #expect(refusal { try wrong.read(wrong.files[0], written: &none) { _ in } } == "upload_entry_damaged")
        for name in ["../outside.jpg", "/etc/passwd", "photos//a.jpg", "photos\\..\\..\\x.jpg"] {
            var climbing = ZipWriter()
            try climbing.add(name, Data("x".utf8))
            #expect(refusal { _ = try MerchantZip(data: climbing.data, name: "climb.zip") } == "upload_outside", "\(name)")
        }
        #expect(refusal { _ = try MerchantZip(data: Data("PK\u{3}\u{4} no zip".utf8), name: "no.zip") } == "upload_not_zip")
        let limited = MerchantZip.Limits(entries: 10, unpackedBytes: 10_000)
        #expect(refusal { _ = try MerchantZip(data: good, name: "big.zip", limits: limited) } == "upload_unpacked_too_large")
    }
}
