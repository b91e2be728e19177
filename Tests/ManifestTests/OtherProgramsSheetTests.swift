import Foundation
import Manifest
import OpenMarketContract
import Testing
import TestSupport

/// Workbooks as LibreOffice writes them (`Tests/Fixtures/sheets/`, made by LibreOffice Calc
/// itself): `.ods`, and a workbook whose first sheet is instructions.
@Suite("Sheets as other programs write them")
struct OtherProgramsSheetTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/sheets")

    /// The fixture copied beside a photo `p.jpg`, checked as validate checks it.
    func check(_ name: String, sheet: String? = nil) throws -> (drafts: [ProductDraft], issues: [RowIssue], summary: ValidationSummary) {
        let space = try Workspace()
        defer { space.cleanup() }
        _ = try space.files.write(Fixtures.jpeg(width: 320, height: 240), named: "p.jpg")
        let url = space.directory.appendingPathComponent(name)
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(name), to: url)
        var options = ValidationOptions()
        options.sheet = SheetChoice(sheet: sheet)
        return try space.check(url, options: options)
    }

    @Test("LibreOffice's .ods and .xlsx: the products sheet found after the instructions, keys with their zeros, numbers as shown, paragraphs kept",
          arguments: ["instructions-first.ods", "instructions-first-libreoffice.xlsx"])
    func instructionsFirst(_ name: String) throws {
        let result = try check(name)
        #expect(result.drafts.map(\.key) == ["00120", "00121", "00122"], "\(result.issues)")
        #expect(result.drafts.map(\.row) == [2, 3, 4])
        #expect(result.drafts.map(\.fields.price) == [4500, Money(exactly: "24.5")!, 68000])
        #expect(result.drafts.map(\.fields.stock) == [10, 3, 0])
        #expect(result.drafts.first?.fields.name == "녹차 라떼 (Green tea latte)")
        #expect(result.drafts.first?.fields.description == "Jeju green tea,  350 ml.\nServe cold.")
        let chosen = try #require(result.issues.first { $0.rule == "sheet-chosen" }, "\(result.issues)")
        #expect(chosen.message.contains("read sheet 'Products'") && chosen.message.contains("'안내 Instructions'"))
        #expect(result.issues.filter { $0.severity == .error }.isEmpty, "\(result.issues)")
    }

    @Test("a sheet named that has no header says so; a workbook with no header anywhere lists its sheets and names --sheet")
    func noHeader() throws {
        #expect { try check("instructions-first.ods", sheet: "안내 Instructions") } throws: { error in
            "\(error)".contains("no header row") && "\(error)".contains("--header-row")
        }
        let named = try check("instructions-first.ods", sheet: "Products")
        #expect(named.drafts.count == 3 && !named.issues.contains { $0.rule == "sheet-chosen" })
    }
}
