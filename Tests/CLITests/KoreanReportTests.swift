import Foundation
import Testing
import TestSupport
import Zip

/// The run's report in the merchant's language: report.html and report.xlsx in Korean by
/// `--lang ko` or the locale; report.csv and report.json as scripts read them.
@Suite("reports in Korean", .serialized)
struct KoreanReportTests {
    /// Every text of a workbook: its sheets' names and cells (shared strings or inline).
    static func workbookText(_ url: URL) throws -> String {
        let archive = try ZipParts(url: url)
        return try archive.parts.filter { $0.name.hasSuffix(".xml") }.map { String(decoding: try archive.data($0), as: UTF8.self) }.joined()
    }

    /// A sheet of 5 where K2's price is not a number and K4's photo is missing.
    static func brokenSheet(_ files: Scratch) throws -> URL {
        let manifest = try writeManifest(files, rows: 5)
        let text = try String(contentsOf: manifest, encoding: .utf8)
            .replacingOccurrences(of: "K2,Item number 2,1002,", with: "K2,Item number 2,abc,")
            .replacingOccurrences(of: "K4,Item number 4,1004,KRW,0,4,p.jpg", with: "K4,Item number 4,1004,KRW,0,4,gone.jpg")
        try Data(text.utf8).write(to: manifest)
        return manifest
    }

    @Test("import --lang ko: report.html says it all in Korean (titles, counts with the CLI's word, sections, columns, each broken rule by name with its value); report.xlsx's sheets and headers too, and its sheet to fix imports back; report.csv stays English")
    func importInKorean() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try Self.brokenSheet(files)
        let run = try await CLIProcess.run(importArguments(manifest, sandbox, ["--lang", "ko"]))
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let folder = files.directory.appendingPathComponent("report")
        let html = try String(contentsOf: folder.appendingPathComponent("report.html"), encoding: .utf8)
        for korean in ["<html lang=\"ko\">", "products.csv 가져오기", "방식 동기화 (sync)", "5행", "실패한 행 (2)", "생성됨 (created)", "실패 (failed)",
                       "가격 (price): 숫자가 아닙니다", "(abc) [price-format]", "이미지 (images): 사진 파일이 없습니다", "[image-missing]",
                       "data-label=\"이유\"", "<th>상품코드</th>", "가격 1001 KRW, 재고 1",
                       "사진 1 (p.jpg): 48×36 픽셀뿐이라 구매자에게 흐리게 보입니다"] {
            #expect(html.contains(korean), "report.html lacks \(korean)")
        }
        for english in ["Failed rows", "Import of", " rows ·", ">Created", ">Reason<", ">Key<", "must be", "no such file", "fix these", "products/s",
                        "price 1001", "stock 1", "buyers see it blurred"] {
            #expect(!html.contains(english), "report.html still says \(english)")
        }

        let workbook = folder.appendingPathComponent("report.xlsx")
        let cells = try Self.workbookText(workbook)
        for korean in ["고쳐서 가져오기", "모든 행", "상품코드", "상품명", "가격", "재고", "이미지", "오류", "상태", "생성됨 (created)", "실패 (failed)",
                       "숫자가 아닙니다", "사진 파일이 없습니다", "픽셀뿐이라", "가격 1001 KRW, 재고 1"] {
            #expect(cells.contains(korean), "report.xlsx lacks \(korean)")
        }
        #expect(!cells.contains("Fix and import") && !cells.contains("All rows") && !cells.contains(">errors<") && !cells.contains("price 1001"))
        // The sheet to fix, read as import reads it: Korean headers, no unknown column, two rows.
        let check = try await CLIProcess.run(["validate", workbook.path, "--images", files.directory.path])
        #expect(check.stdout.contains("report.xlsx: 2 rows,") && !check.stdout.contains("column-unknown"), "\(check.stdout)\(check.stderr)")
        // The photo put in place: the fixed row is made, the other still fails.
        try FileManager.default.copyItem(at: files.directory.appendingPathComponent("p.jpg"), to: files.directory.appendingPathComponent("gone.jpg"))
        let again = try await CLIProcess.run(importArguments(workbook, sandbox, ["--lang", "ko", "--report", files.directory.appendingPathComponent("again").path]))
        #expect(again.stdout.contains("2행: 생성됨 1 (created), 실패 1 (failed)"), "--lang ko speaks Korean on the terminal too: \(again.stdout)\(again.stderr)")
        let names = Set(try await allProducts(sandbox).map(\.name))
        #expect(names == ["Item number 1", "Item number 3", "Item number 4", "Item number 5"], "\(names)")

        // Scripts read report.csv and report.json as before.
        let csv = try String(contentsOf: folder.appendingPathComponent("report.csv"), encoding: .utf8)
        #expect(csv.hasPrefix("row,key,name,status,") && csv.contains(",K2,Item number 2,failed,") && !csv.contains("실패"))
        let json = try String(contentsOf: folder.appendingPathComponent("report.json"), encoding: .utf8)
        #expect(json.contains("\"rule\":\"price-format\"") && !json.contains("숫자가"), "report.json names each broken rule")
        await sandbox.stop()
    }

    @Test("the locale chooses: LANG=ko_KR.UTF-8 writes a Korean report, --lang en an English one; LANG=C English; a language openmarket does not speak is refused, naming the choices")
    func localeChooses() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let manifest = try writeManifest(files, rows: 2)
        func report(_ extra: [String], _ environment: [String: String], _ name: String) async throws -> String {
            let folder = files.directory.appendingPathComponent(name)
            let run = try await CLIProcess.run(importArguments(manifest, sandbox, ["--dry-run", "--report", folder.path] + extra), environment: environment)
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            return try String(contentsOf: folder.appendingPathComponent("report.html"), encoding: .utf8)
        }
        let korean = try await report([], ["LANG": "ko_KR.UTF-8"], "ko")
        #expect(korean.contains("<html lang=\"ko\">") && korean.contains("미리보기 (쇼핑몰에 아무것도 쓰지 않았습니다)") && korean.contains("생성 예정 (would-create)"))
        let english = try await report(["--lang", "en"], ["LANG": "ko_KR.UTF-8"], "en")
        #expect(english.contains("<html lang=\"en\">") && english.contains("the plan (dry run: nothing was written)") && !english.contains("미리보기"))
        let plain = try await report([], ["LANG": "C.UTF-8", "LC_MESSAGES": "ko_KR.UTF-8"], "messages")
        #expect(plain.contains("<html lang=\"ko\">"), "LC_MESSAGES is the messages' locale")
        let bad = try await CLIProcess.run(importArguments(manifest, sandbox, ["--lang", "fr"]))
        #expect(bad.status != 0 && bad.stderr.contains("--lang") && bad.stderr.contains("en") && bad.stderr.contains("ko"), "\(bad.stderr)")
        #expect(try await allProducts(sandbox).isEmpty)
        await sandbox.stop()
    }
}
