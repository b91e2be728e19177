import Foundation
import Testing
import TestSupport

/// The page leads on only where there is something to do: a good sheet's check to its plan, a
/// plan to its apply when it would write, and a run to its undo once it has ended.
@Suite("The console's next steps", .serialized)
struct ConsoleNextStepTests {
    @Test("a check leads to the plan when rows can go; a sheet whose every row fails leads nowhere; a plan offers Apply only when it would write")
    func checkPlanApply() async throws {
        let open = try await OpenConsole.start(rows: 3)
        let good = try await open.post("check", "sheet=products.csv")
        #expect(good.text.contains("id=\"plan-next\"") && good.text.contains("action=\"/plan\""), "\(good.text.suffix(1500))")
        let plan = try await open.run("plan", "sheet=products.csv")
        #expect(plan.text.contains("id=\"apply\""), "a plan that would create offers Apply: \(plan.text.suffix(1500))")
        // No other step: a held feed's Accept belongs to a feed's page only.
        #expect(!plan.text.contains("id=\"accept\"") && !plan.text.contains("id=\"undo\""), "\(plan.text.suffix(1500))")

        try Data("key,name,price,stock,images\nB1,x,abc,1,p.jpg\nB2,y,-5,1,p.jpg\n".utf8)
            .write(to: open.files.directory.appendingPathComponent("broken.csv"))
        let broken = try await open.post("check", "sheet=broken.csv")
        #expect(!broken.text.contains("id=\"plan-next\""), "every row fails: no plan offered: \(broken.text.suffix(1500))")
        let failing = try await open.run("plan", "sheet=broken.csv")
        #expect(failing.text.contains("id=\"summary\"") && !failing.text.contains("id=\"apply\""), "nothing to apply: \(failing.text.suffix(1500))")

        // Applied: the same sheet's plan has nothing left to write, so no Apply.
        _ = try await open.run("apply", "sheet=products.csv")
        let again = try await open.run("plan", "sheet=products.csv")
        #expect(!again.text.contains("id=\"apply\""), "\(again.text.suffix(1500))")
        await open.close()
    }

    @Test("a run still being applied is listed as running, with no Undo, and the banner names it in 한국어; once it ends its Undo is offered")
    func noUndoWhileRunning() async throws {
        // The sandbox answers 3 writes and holds the rest until the pages are looked at.
        var open = try await OpenConsole.start(rows: 40, holdWritesAfter: 3)
        let job = try await open.start("apply", "sheet=products.csv")
        var runs = ""
        for _ in 0..<100 {
            runs = try await open.get("runs").text
            if runs.contains("running now") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(runs.contains("running now") && !runs.contains("action=\"/undo-plan\""), "\(runs.suffix(2000))")
        open.language = "ko"
        let korean = try await open.get("runs").text
        #expect(korean.contains("<p class=\"banner\">적용 · products.csv · 실행 중"), "the banner's kind in 한국어: \(korean.suffix(2000))")
        open.language = nil
        open.release()
        _ = try await open.ended(job)
        let after = try await open.get("runs").text
        #expect(!after.contains("running now") && after.contains("action=\"/undo-plan\""), "\(after.suffix(2000))")
        await open.close()
    }
}
