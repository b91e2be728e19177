import Foundation
import Testing
import TestSupport

/// The terminal in the merchant's language: under a Korean locale (or `--lang ko`) validate,
/// import, undo, export and feed run say their summary, every row's problem and the ways on in
/// Korean, the rule names and status words beside as scripts match them; `--lang en` (or any
/// other locale) English as before.
@Suite("The terminal speaks the merchant's language", .serialized)
struct TerminalLanguageTests {
    static let korean = ["LANG": "ko_KR.UTF-8"]

    @Test("validate: LANG=ko_KR.UTF-8 says each row's problem and the summary in Korean with the rule's name; --lang en says them in English")
    func validate() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        _ = try files.write(Fixtures.jpeg(width: 48, height: 36), named: "p.jpg")
        let sheet = URL(fileURLWithPath: try files.write(Array("key,name,price,stock,images\nA1,Green tea,12000,3,p.jpg\nA2,x,abc,1,p.jpg\n".utf8), named: "p.csv"))
        let ko = try await CLIProcess.run(["validate", sheet.path], environment: Self.korean)
        #expect(ko.status == 1, "\(ko.stdout)\(ko.stderr)")
        #expect(ko.stdout.contains("3행:") && ko.stdout.contains("오류 가격 (price) 'abc': 숫자가 아닙니다") && ko.stdout.contains("[price-format]"),
                "\(ko.stdout)")
        #expect(ko.stdout.contains("상품명은 3~100자여야 합니다") && ko.stdout.contains("[name-length]"), "\(ko.stdout)")
        #expect(ko.stdout.contains("p.csv: 2행, 문제없음 1, 오류 1, 경고 0"), "\(ko.stdout)")
        #expect(!ko.stdout.contains("with errors") && !ko.stdout.contains("row 3"), "no English left: \(ko.stdout)")
        let en = try await CLIProcess.run(["validate", sheet.path, "--lang", "en"], environment: Self.korean)
        #expect(en.stdout.contains("row 3:") && en.stdout.contains("error price 'abc'") && en.stdout.contains("[price-format]"), "\(en.stdout)")
        #expect(en.stdout.contains("p.csv: 2 rows, 1 valid, 1 with errors, 0 with warnings") && !en.stdout.contains("행"), "\(en.stdout)")
        // A sheet that is not there, named in the reader's language.
        let missing = files.directory.appendingPathComponent("없는.csv").path
        let gone = try await CLIProcess.run(["validate", missing], environment: Self.korean)
        #expect(gone.status == 2 && gone.stderr.contains("없는.csv: 그런 파일이 없습니다"), "\(gone.stderr)")
        let goneEn = try await CLIProcess.run(["validate", missing, "--lang", "en"], environment: Self.korean)
        #expect(goneEn.status == 2 && goneEn.stderr.contains("없는.csv: no such file"), "\(goneEn.stderr)")
    }

    @Test("validate of a Cafe24 row not on sale: the terminal's way on (--include-inactive) in Korean and in English, never the page's box to tick")
    func offSaleWayOn() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        _ = try files.write(Fixtures.jpeg(width: 48, height: 36), named: "p.jpg")
        let text = "상품코드,자체 상품코드,판매상태,상품명,소비자가,판매가,이미지등록(상세),재고수량\n"
            + "P0000001,TEA-1,Y,유기농 녹차,12000,10000,p.jpg,3\nP0000002,TEA-2,N,루이보스 차,8000,8000,p.jpg,2\n"
        let sheet = try files.write(Array(text.utf8), named: "cafe24.csv")
        let ko = try await CLIProcess.run(["validate", sheet], environment: Self.korean)
        #expect(ko.status == 0 && ko.stdout.contains("[row-off-sale]"), "\(ko.stdout)\(ko.stderr)")
        #expect(ko.stdout.contains("--include-inactive를 주면 판매 중인 상품으로 읽습니다") && !ko.stdout.contains("판매하지 않는 행도 포함"), "\(ko.stdout)")
        let en = try await CLIProcess.run(["validate", sheet, "--lang", "en"], environment: Self.korean)
        #expect(en.stdout.contains("--include-inactive reads it as on sale") && !en.stdout.contains("include rows not on sale"), "\(en.stdout)")
    }

    @Test("import, undo and export against the sandbox: in Korean under LANG=ko_KR.UTF-8 (counts with their status words, the report, the undo line), in English with --lang en")
    func importUndoExport() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let sheet = try writeManifest(files, rows: 6)
        let shop = sandbox.demoAccount
        let report = files.directory.appendingPathComponent("report")
        let made = try await CLIProcess.run(["import", sheet.path, "--report", report.path] + shop, environment: Self.korean)
        #expect(made.status == 0, "\(made.stdout)\(made.stderr)")
        #expect(made.stdout.contains("6행: 생성됨 6 (created) · ") && made.stdout.contains("초 (초당 상품"), "\(made.stdout)")
        #expect(made.stdout.contains("보고서: \(report.path)/report.html") && made.stdout.contains("이 실행을 되돌리려면: openmarket undo"), "\(made.stdout)")
        #expect(!made.stdout.contains(" rows: ") && !made.stdout.contains("Report:"), "no English left: \(made.stdout)")

        let again = try await CLIProcess.run(["import", sheet.path, "--dry-run", "--lang", "en"] + shop, environment: Self.korean)
        #expect(again.stdout.contains("6 rows: 6 unchanged in ") && again.stdout.contains("dry run, nothing was written"), "\(again.stdout)")

        let undone = try await CLIProcess.run(["undo", report.path] + shop, environment: Self.korean)
        #expect(undone.status == 0 && undone.stdout.contains("삭제됨 6 (deleted)"), "\(undone.stdout)\(undone.stderr)")
        // The undo's report says why its products are deleted: the run taken back made them (no sheet lost their keys).
        let undoReport = try String(contentsOf: report.appendingPathComponent("undo/report.html"), encoding: .utf8)
        #expect(undoReport.contains("되돌리는 실행이 만든 상품") && !undoReport.contains("파일에 더 이상 없는 상품코드"), "\(undoReport.prefix(3000))")
        let enUndo = try await CLIProcess.run(["undo", report.path, "--dry-run", "--lang", "en"] + shop, environment: Self.korean)
        #expect(!enUndo.stdout.contains("행"), "\(enUndo.stdout)\(enUndo.stderr)")

        _ = try await CLIProcess.run(["import", sheet.path] + shop)
        let out = files.directory.appendingPathComponent("export")
        let exported = try await CLIProcess.run(["export", "--out", out.path, "--images", "none"] + shop, environment: Self.korean)
        #expect(exported.status == 0 && exported.stdout.contains("상품 6개를 ") && exported.stdout.contains("내보냈습니다"), "\(exported.stdout)\(exported.stderr)")
        let enExport = try await CLIProcess.run(["export", "--out", files.directory.appendingPathComponent("export-en").path, "--images", "none", "--lang", "en"] + shop,
                                                environment: Self.korean)
        #expect(enExport.stdout.contains("Exported 6 products to "), "\(enExport.stdout)\(enExport.stderr)")
        // The way on when a command cannot go on: in Korean, and in English with --lang en.
        let twice = try await CLIProcess.run(["export", "--out", out.path, "--images", "none"] + shop, environment: Self.korean)
        #expect(twice.status == 2 && twice.stderr.contains("에 이미 내보낸 파일이 있습니다 (products.csv): 다른 --out을 고르거나"), "\(twice.stderr)")
        let twiceEn = try await CLIProcess.run(["export", "--out", out.path, "--images", "none", "--lang", "en"] + shop, environment: Self.korean)
        #expect(twiceEn.status == 2 && twiceEn.stderr.contains("already holds an export (products.csv): choose another --out"), "\(twiceEn.stderr)")
        await sandbox.stop()
    }

    @Test("A command that cannot start says why and the way on in the reader's language: migrate without a target, a sandbox's unknown --api")
    func refusals() async throws {
        let migrate = try await CLIProcess.run(["migrate", "--from", "http://127.0.0.1:9"], environment: Self.korean)
        #expect(migrate.status == 2 && migrate.stderr.contains("migrate에는 두 서버가 모두 필요합니다: --from과 --to"), "\(migrate.stderr)")
        let migrateEn = try await CLIProcess.run(["migrate", "--from", "http://127.0.0.1:9", "--lang", "en"], environment: Self.korean)
        #expect(migrateEn.stderr.contains("migrate needs both servers: --from and --to"), "\(migrateEn.stderr)")
        let files = try Scratch()
        defer { files.cleanup() }
        let api = try await CLIProcess.run(["sandbox", "--api", "2030", "--port", "0", "--data", files.directory.path], environment: Self.korean)
        #expect(api.status == 2 && api.stderr.contains("--api는 ") && api.stderr.contains("(받은 값: '2030')"), "\(api.stderr)")
    }

    @Test("feed run: its outcome, counts and report said in Korean under LANG=ko_KR.UTF-8, in English with --lang en")
    func feedRun() async throws {
        let machine = try await FeedMachine.open()
        try machine.writeFeed()
        machine.supplier.serve(machine.sheet(rows: 3))
        let ko = try await CLIProcess.run(["feed", "run", "acme"] + machine.shop, environment: machine.environment.merging(Self.korean) { $1 })
        #expect(ko.status == 0 && ko.stdout.contains("acme: 완료 (done): 3행: 생성됨 3 (created)") && ko.stdout.contains("  보고서: "),
                "\(ko.stdout)\(ko.stderr)")
        machine.supplier.serve(machine.sheet(rows: 4))
        let en = try await CLIProcess.run(["feed", "run", "acme", "--lang", "en"] + machine.shop, environment: machine.environment.merging(Self.korean) { $1 })
        #expect(en.stdout.contains("acme: done: 4 rows: 1 created, 3 unchanged") && en.stdout.contains("  report: "), "\(en.stdout)\(en.stderr)")
        await machine.close()
    }

    @Test("a third language is a file: a pseudo-language's .po in OPENMARKET_MESSAGES and LANG=xx_XX.UTF-8 make validate's summary and every line of doctor come out marked [!! … !!]")
    func languageIsAFile() async throws {
        let files = try Scratch()
        defer { files.cleanup() }
        let pseudo = try PseudoLanguage.install(in: files.directory)
        let sheet = try writeManifest(files, rows: 2)
        let validate = try await CLIProcess.run(["validate", sheet.path], environment: pseudo)
        let summary = validate.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(validate.status == 0 && summary.hasPrefix("[!! ") && summary.hasSuffix(" !!]"), "\(validate.stdout)")
        let doctor = try await CLIProcess.run(["doctor", "--server", "http://127.0.0.1:9"], environment: pseudo)
        let lines = doctor.stdout.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        #expect(lines.count > 4 && lines.allSatisfy { $0.hasPrefix("[!! ") } && PseudoLanguage.unmarked(doctor.stdout, data: []).isEmpty, "\(doctor.stdout)")
    }
}
