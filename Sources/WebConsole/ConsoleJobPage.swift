import Foundation

/// A job's page: its progress while it runs; after, its summary, its report and the next steps.
struct JobPage: ConsolePageModel {
    static let template = "job"
    var head: PageHead
    var id: String
    var progress: String
    var running: Bool
    var done: Int
    var total: Int
    var report = false
    /// How the job's sheet was read: its next steps read it so too.
    var reading = PageAnswers()
    var steps: [NextStep] = []
    /// Another platform's export that cannot say its currency or stock: asked after its plan.
    var ask: AskForm?
    /// The shop refused the profile's credentials: the form that enters them again (the profile's name).
    var credentials: String?

    var jobID: String? { id }

    /// A button a finished job offers, with what its form sends.
    enum NextStep {
        case accept(feed: String)
        /// Apply the sheet again with the price changes the guard held (`--force`), after the
        /// page showed how many and which.
        case acceptPrices(sheet: String, count: Int)
        case acceptFeedPrices(feed: String, count: Int)
        case restore(snapshot: String)
        case applyPlanned(sheet: String)
        case applyAgain(sheet: String)
        case planUndo(run: String)
        case undo(run: String)

        var name: String {
            switch self {
            case .accept: "accept"
            case .acceptPrices: "accept_prices"
            case .acceptFeedPrices: "accept_feed_prices"
            case .restore: "restore"
            case .applyPlanned: "apply_planned"
            case .applyAgain: "apply_again"
            case .planUndo: "plan_undo"
            case .undo: "undo"
            }
        }

        var value: String {
            switch self {
            case .accept(let value), .restore(let value), .applyPlanned(let value), .applyAgain(let value), .planUndo(let value),
                 .undo(let value), .acceptPrices(let value, _), .acceptFeedPrices(let value, _): value
            }
        }

        /// Rows the price guard held, for the button's count.
        var held: Int? {
            switch self {
            case .acceptPrices(_, let count), .acceptFeedPrices(_, let count): count
            default: nil
            }
        }
    }

    var values: [String: Any] {
        var shown: [String: Any] = ["id": id, "progress": progress, "running": running, "ended": !running,
                                    "done": done, "total": max(total, 1), "report": report, "carried": reading.hidden]
        for step in steps {
            shown[step.name] = step.value
            if let held = step.held { shown["price_guarded"] = held }
        }
        var values: [String: Any] = ["job": shown]
        if let ask { values["ask"] = ask.values }
        if let credentials { values["credentials"] = ["name": credentials] }
        return values
    }
}
