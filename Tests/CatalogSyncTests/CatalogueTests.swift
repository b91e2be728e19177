import Foundation
import Testing
import TestSupport
import Words

/// The message catalogue as translators get it: gettext files, one per language, read once.
@Suite("The message catalogue")
struct CatalogueTests {
    static let shippedFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Words/Resources/messages")

    static func blanks(_ text: String) -> Set<String> { Set(text.matches(of: /\{[0-9]+\}/).map { String($0.0) }) }

    @Test("every message of the template has its Korean, with the same numbered blanks; no message is written twice")
    func korean() throws {
        let catalogue = try Catalogue.load(folder: Self.shippedFolder)
        #expect(catalogue.order.count >= 450 && catalogue.languages == ["en", "ko"], "\(catalogue.order.count) \(catalogue.languages)")
        for id in catalogue.order {
            let entry = try #require(catalogue.entries[id])
            let korean = try #require(entry.translations["ko"]?.first, "\(id) has no Korean")
            #expect(!korean.isEmpty, "\(id): empty msgstr")
            // The values the code gives: the English's blanks, or those a `#. values:` note names
            // (a value only a translation uses, the Korean title of a platform).
            // A rule's English is made where it breaks (its id stands for it here): its terms are the code's.
            if id.hasPrefix("rule:") { continue }
            let given = entry.comments.first { $0.hasPrefix("values:") }.map(Self.blanks) ?? Self.blanks(entry.english)
            #expect(Self.blanks(entry.english).isSubset(of: given) && Self.blanks(korean).isSubset(of: given)
                    && (Self.blanks(korean) == Self.blanks(entry.english) || entry.comments.contains { $0.hasPrefix("values:") }),
                    "\(id): \(entry.english) / \(korean)")
            #expect(!entry.english.contains("{}") && !korean.contains("{}"), "\(id): blanks are numbered")
        }
        // Shipped: the same catalogue the program reads.
        #expect(WordTable.table.count == catalogue.order.count)
    }

    @Test("a pseudo-language is a file: dropped beside the template, every message comes out marked [!! … !!] with its values, plural forms chosen by count")
    func pseudoLanguage() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalogue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let template = try String(contentsOf: Self.shippedFolder.appendingPathComponent("openmarket.pot"), encoding: .utf8)
        try template.write(to: folder.appendingPathComponent("openmarket.pot"), atomically: true, encoding: .utf8)
        try PseudoLanguage.file(from: template).write(to: folder.appendingPathComponent("xx.po"), atomically: true, encoding: .utf8)
        let catalogue = try Catalogue.load(folder: folder)
        #expect(catalogue.languages == ["en", "xx"])
        for id in catalogue.order {
            let english = try #require(catalogue.text(id, "en"))
            let pseudo = try #require(catalogue.text(id, "xx"))
            #expect(pseudo == "[!! \(english) !!]", "\(id)")
        }
        // A count's plural forms, in English and in a language of one form.
        let plural = """
        msgctxt "t_count"
        msgid "{1} product"
        msgid_plural "{1} products"
        msgstr[0] "[!! {1} product(s) !!]"

        """
        let withPlural = template + "\n" + plural.replacingOccurrences(of: "msgstr[0] \"[!! {1} product(s) !!]\"", with: "msgstr[0] \"\"\nmsgstr[1] \"\"")
        try withPlural.write(to: folder.appendingPathComponent("openmarket.pot"), atomically: true, encoding: .utf8)
        try (PseudoLanguage.file(from: template).replacingOccurrences(of: "nplurals=2; plural=(n != 1);", with: "nplurals=1; plural=0;") + "\n" + plural)
            .write(to: folder.appendingPathComponent("xx.po"), atomically: true, encoding: .utf8)
        let counted = try Catalogue.load(folder: folder)
        #expect(counted.text("t_count", "en", count: 1) == "{1} product" && counted.text("t_count", "en", count: 3) == "{1} products")
        #expect(counted.text("t_count", "xx", count: 3) == "[!! {1} product(s) !!]")
    }

    @Test("a message written twice, a translation of an id the template lacks, a message without its id: refused naming the file and line")
    func refusals() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalogue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let header = "msgid \"\"\nmsgstr \"\"\n\"Plural-Forms: nplurals=1; plural=0;\\n\"\n\n"
        let cases: [(pot: String, po: String?, said: String)] = [
            (header + "msgctxt \"a\"\nmsgid \"A\"\nmsgstr \"\"\n\nmsgctxt \"a\"\nmsgid \"A again\"\nmsgstr \"\"\n", nil, "openmarket.pot:9: the message a is written twice"),
            (header + "msgctxt \"a\"\nmsgid \"A\"\nmsgstr \"\"\n", header + "msgctxt \"b\"\nmsgid \"B\"\nmsgstr \"ㅂ\"\n", "ko.po:5: b is not in openmarket.pot"),
            (header + "msgctxt \"a\"\nmsgid \"A\"\nmsgstr \"\"\n\nmsgid \"No id\"\nmsgstr \"\"\n", nil, "openmarket.pot:9: a message without its id"),
        ]
        for (pot, po, said) in cases {
            try pot.write(to: folder.appendingPathComponent("openmarket.pot"), atomically: true, encoding: .utf8)
            try? FileManager.default.removeItem(at: folder.appendingPathComponent("ko.po"))
            if let po { try po.write(to: folder.appendingPathComponent("ko.po"), atomically: true, encoding: .utf8) }
            #expect(throws: Catalogue.Failure.self) { _ = try Catalogue.load(folder: folder) }
            do { _ = try Catalogue.load(folder: folder) } catch { #expect("\(error)".hasPrefix(said), "\(error)") }
        }
    }

    @Test("gettext's own checker takes the shipped files (when msgfmt is installed)")
    func msgfmt() throws {
        let tool = ["/usr/bin/msgfmt", "/usr/local/bin/msgfmt"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let tool else { return }
        for file in ["openmarket.pot", "ko.po"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = ["--check", "-o", "/dev/null", Self.shippedFolder.appendingPathComponent(file).path]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "msgfmt --check \(file)")
        }
    }
}
