import Foundation
import Support
import Testing

@Suite("Finding files by the names people write")
struct FileLookupTests {
    static let composed = "녹차 사진.jpg"
    static var decomposed: String { composed.decomposedStringWithCanonicalMapping }

    /// A folder holding empty files at `paths`.
    static func folder(_ paths: [String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lookup-\(UUID().uuidString)")
        for path in paths {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: file.path, contents: Data()))
        }
        return root
    }

    @Test("Unicode forms per component, both ways; the disk's spelling is returned")
    func unicodeForms() throws {
        let root = try Self.folder(["x/\(Self.decomposed)", "\("사진".decomposedStringWithCanonicalMapping)/a.jpg"])
        defer { try? FileManager.default.removeItem(at: root) }
        let lookup = FileLookup()
        guard case .found(let url, nil) = lookup.locate("x/\(Self.composed)", under: root) else { Issue.record("not found"); return }
        #expect(Array(url.lastPathComponent.utf8) == Array(Self.decomposed.utf8))
        guard case .found(_, nil) = lookup.locate("사진/a.jpg", under: root) else { Issue.record("folder not found"); return }
        #expect(lookup.locate("y/a.jpg", under: root) == .missing(folder: root.path))
        #expect(lookup.locate("x/nothing.jpg", under: root) == .missing(folder: root.appendingPathComponent("x").path))
        #expect(FileLookup.nfc(Self.decomposed).utf8.elementsEqual(Self.composed.utf8))
        #expect(FileLookup.nfc("plain.jpg") == "plain.jpg")
    }

    @Test("letter case: one match with a note, several an ambiguity, the exact name first")
    func letterCase() throws {
        let root = try Self.folder(["IMG_0001.JPG", "Dup.jpg", "DUP.jpg", "Photos/Front.jpg"])
        defer { try? FileManager.default.removeItem(at: root) }
        let lookup = FileLookup()
        guard case .found(let url, let note?) = lookup.locate("img_0001.jpg", under: root) else { Issue.record("no note"); return }
        #expect(url.lastPathComponent == "IMG_0001.JPG" && note.contains("IMG_0001.JPG"))
        #expect(lookup.locate("dup.jpg", under: root) == .ambiguous(component: "dup.jpg", candidates: ["DUP.jpg", "Dup.jpg"]))
        #expect(lookup.locate("Dup.jpg", under: root) == .found(root.appendingPathComponent("Dup.jpg"), note: nil))
        guard case .found(let nested, _?) = lookup.locate("photos/front.JPG", under: root) else { Issue.record("nested"); return }
        #expect(nested.path.hasSuffix("Photos/Front.jpg"))
    }

    @Test("a folder's listing is read once: a file added later is found only by its exact name")
    func listingKept() throws {
        let root = try Self.folder(["A.jpg"])
        defer { try? FileManager.default.removeItem(at: root) }
        let lookup = FileLookup()
        guard case .found = lookup.locate("a.jpg", under: root) else { Issue.record("a.jpg"); return }
        #expect(FileManager.default.createFile(atPath: root.appendingPathComponent("B.jpg").path, contents: Data()))
        #expect(lookup.locate("b.jpg", under: root) == .missing(folder: root.path), "the kept listing has no B.jpg")
        #expect(lookup.locate("B.jpg", under: root) == .found(root.appendingPathComponent("B.jpg"), note: nil))
        #expect(FileLookup().locate("b.jpg", under: root) != .missing(folder: root.path), "a new lookup reads the folder again")
    }
}
