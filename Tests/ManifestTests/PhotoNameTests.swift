import Foundation
import Manifest
import Support
import Testing
import TestSupport

/// File names as merchants' folders spell them: Korean names decomposed by a Mac (NFD)
/// against a sheet's composed ones (NFC) and back, and a Windows sheet's letter case.
@Suite("Photo file names as a Mac or Windows wrote them")
struct PhotoNameTests {
    static let composed = "녹차 사진.jpg"
    static var decomposed: String { composed.decomposedStringWithCanonicalMapping }

    /// The bytes of the names in `folder`, as the disk holds them.
    static func namesOnDisk(_ folder: URL) throws -> [[UInt8]] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).map { Array($0.utf8) }
    }

    func copyPhoto(_ space: Workspace, to relative: String) throws {
        let target = space.directory.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: space.directory.appendingPathComponent("a.jpg"), to: target)
    }

    @Test("a photo saved on a Mac (NFD) is found from a sheet typed in Excel (NFC), and the reverse")
    func unicodeForms() throws {
        for (onDisk, inSheet) in [(Self.decomposed, Self.composed), (Self.composed, Self.decomposed)] {
            let space = try Workspace()
            defer { space.cleanup() }
            try copyPhoto(space, to: "photos/\(onDisk)")
            let names = try Self.namesOnDisk(space.directory.appendingPathComponent("photos"))
            #expect(names == [Array(onDisk.utf8)], "the disk keeps the form it was given")
            #expect(Array(onDisk.utf8) != Array(inSheet.utf8))
            let result = try space.check(space.write("key,name,price,stock,images\nT1,Green tea,4500,1,photos/\(inSheet)\n"))
            #expect(result.issues.isEmpty, "\(result.issues)")
            let source = try #require(result.drafts.first?.images.first)
            guard case .file(let url) = source else { Issue.record("not a file: \(source)"); continue }
            #expect(FileManager.default.fileExists(atPath: url.path), "the URL names the file as the disk spells it")
            #expect(Array(url.lastPathComponent.utf8) == Array(onDisk.utf8))
            #expect(Array(source.display.utf8).suffix(Array(Self.composed.utf8).count) == ArraySlice(Array(Self.composed.utf8)),
                    "reports write the name in NFC")
        }
    }

    @Test("a folder named after the key, decomposed by a Mac; and a decomposed folder in a path")
    func decomposedFolders() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let key = "녹차-1"
        try copyPhoto(space, to: "\(key.decomposedStringWithCanonicalMapping)/1.jpg")
        try copyPhoto(space, to: "\("사진".decomposedStringWithCanonicalMapping)/\(Self.decomposed)")
        let noImagesColumn = try space.check(space.write("key,name,price,stock\n\(key),Green tea,4500,1\n"))
        #expect(noImagesColumn.issues.isEmpty, "\(noImagesColumn.issues)")
        #expect(noImagesColumn.drafts.first?.images.count == 1)
        let inPath = try space.check(space.write("key,name,price,stock,images\nT2,Black tea,4500,1,사진/\(Self.composed)\n", named: "b.csv"))
        #expect(inPath.issues.isEmpty, "\(inPath.issues)")
        #expect(inPath.drafts.count == 1)
    }

    @Test("a Windows sheet's letter case: one file matches (used, with a warning); several (an error listing them)")
    func letterCase() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        try copyPhoto(space, to: "IMG_0001.JPG")
        try copyPhoto(space, to: "Dup.jpg")
        try copyPhoto(space, to: "DUP.jpg")
        try copyPhoto(space, to: "Photos/Front.jpg")
        let csv = """
            key,name,price,images
            T1,Green tea,4500,img_0001.jpg
            T2,Black tea,4500,dup.jpg
            T3,White tea,4500,photos/front.JPG
            T4,Red tea,4500,Dup.jpg
            T5,Blue tea,4500,nothing.jpg

            """
        let result = try space.check(space.write(csv))
        let byRow = Dictionary(grouping: result.issues, by: \.row)
        let first = try #require(byRow[2]?.first)
        #expect(first.severity == .warning && first.rule == "image-name-case" && first.column == "images")
        #expect(first.message.contains("IMG_0001.JPG"), "\(first.message)")
        let ambiguous = try #require(byRow[3]?.first)
        #expect(ambiguous.severity == .error && ambiguous.rule == "image-name-ambiguous")
        #expect(ambiguous.message.contains("DUP.jpg, Dup.jpg"), "\(ambiguous.message)")
        #expect(byRow[4]?.map(\.rule) == ["image-name-case"], "a folder's case too")
        #expect(byRow[5] == nil, "the exact name wins over its case twin")
        #expect(byRow[6]?.map(\.rule) == ["image-missing"])
        #expect(result.drafts.map(\.key) == ["T1", "T3", "T4"])
        guard case .file(let url)? = result.drafts.first?.images.first else { Issue.record("no file"); return }
        #expect(url.lastPathComponent == "IMG_0001.JPG")
    }

    @Test("HEIC and WebP files pass the check by content; a renamed text file does not")
    func formatsByContent() throws {
        let space = try Workspace()
        defer { space.cleanup() }
        let heic: [UInt8] = [0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0, 0, 0, 0, 0]
        let webp: [UInt8] = Array("RIFF".utf8) + [8, 0, 0, 0] + Array("WEBPVP8 ".utf8)
        _ = try space.files.write(heic, named: "IMG_0002.HEIC")
        _ = try space.files.write(webp, named: "web.webp")
        _ = try space.files.write(Array("hello".utf8), named: "note.jpg")
        let result = try space.check(space.write("key,name,price,stock,images\nT1,Tea,4500,1,IMG_0002.HEIC;web.webp\nT2,Tea two,4500,1,note.jpg\n"))
        #expect(result.drafts.map(\.key) == ["T1"])
        #expect(result.issues.map(\.rule) == ["image-format"])
        #expect(result.issues.first?.message.contains("HEIC") == true)
    }
}
