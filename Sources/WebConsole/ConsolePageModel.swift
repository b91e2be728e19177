import Feeds
import Foundation
import Manifest
import OpenMarketContract

/// What one console page shows, typed: the route that owns a page fills the parts it has (a
/// list that is nil is not on the page; an empty one says there is nothing). Only `values`
/// turns it into the template's names, in one place.
struct ConsolePageModel {
    var title = ""
    var summary: String?
    var message: String?
    var job: JobView?
    /// The sheets folder's upload box.
    var upload = false
    /// What the upload box takes: every sheet openmarket reads, and a zip of photos.
    static let accept = (ManifestFormat.extensions.map { "." + $0.name } + [".zip"]).joined(separator: ",")
    var sheets: [String]?
    var problems: [ProblemView]?
    var feeds: [FeedView]?
    var runs: [RunView]?
    var backups: BackupsView?
    /// No backup folder yet: the form that picks one, with this suggested.
    var chooseRepository: String?
    var diff: String?
    /// Another platform's export: the currency and stock it cannot say, asked with a form.
    var ask: AskView?
    /// A check's way on: the sheet's plan.
    var planNext: PlanNext?
    /// A sheet whose text encoding cannot be told: checked again in the one chosen.
    var chooseEncoding: PlanNext?
    /// A checked sheet: checked again with another map, or with the rows not on sale.
    var readAs: PlanNext?
    /// A profile whose identifier and secret the shop refused: the form that enters them again.
    var credentials: String?

    init(title: String = "", summary: String? = nil, message: String? = nil) {
        self.title = title
        self.summary = summary
        self.message = message
    }

    /// The form that asks what an export cannot say, then plans the sheet with it.
    struct AskView {
        var sheet: String
        /// How the sheet was read ("a Shopify product export: read with the Shopify map").
        var said: String
        var reading: PageAnswers
    }

    /// A row of a check: a rule a cell breaks.
    struct ProblemView {
        var row: Int?
        var column: String
        var value: String
        var rule: String
        var message: String
        var severity: String
    }

    struct FeedView {
        var name: String
        var source: String
        var schedule: String
        /// This shop's last run of it was held by a check: Accept is offered.
        var held: Bool
        /// Each shop's last run: the outcome (its CSS class) and its words, what it said, when.
        var shops: [(shop: String, outcome: String, label: String, message: String, when: String)]
        /// What `feed test` would say of a feed file with a mistake.
        var mistake: String?
    }

    struct RunView {
        var started: String
        var kind: String
        var source: String
        var counts: String
        /// What the Undo form sends: the run's folder, or `run:NAME` for a sharded run.
        var folder: String
        var undoable: Bool
        /// The run's report, by its tag under `/runs/` (nil: not on this machine).
        var reportTag: String?
    }

    struct SnapshotView {
        var id: String
        var time: String
        var products: Int
        var newProducts: Int
        var added: String
    }

    struct BackupsView {
        var snapshots: [SnapshotView]
        var diffFrom: String
        var diffTo: String
    }

    /// A job's page: its progress while it runs; after, its report and the next steps.
    struct JobView {
        var id: String
        var progress: String
        var running: Bool
        var done: Int
        var total: Int
        var report = false
        /// How the job's sheet was read: its next steps read it so too.
        var reading = PageAnswers()
        var steps: [NextStep] = []
    }

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

    /// The template's names for this page.
    var values: [String: Any] {
        var values: [String: Any] = ["title": title, "upload": upload, "upload_accept": Self.accept]
        if let summary { values["summary"] = summary }
        if let message { values["message"] = message }
        if let diff { values["diff"] = diff }
        if let credentials { values["credentials"] = ["name": credentials] }
        if let chooseEncoding {
            values["choose_encoding"] = ["sheet": chooseEncoding.sheet, "carried": chooseEncoding.reading.hidden.filter { $0["name"] != "encoding" },
                                         "encodings": TextEncoding.allCases.map { ["name": $0.rawValue, "chosen": $0 == chooseEncoding.reading.encoding] }]
        }
        if let readAs {
            let reading = readAs.reading
            values["read_as"] = [
                "sheet": readAs.sheet, "inactive": reading.includeInactive,
                "carried": reading.hidden.filter { !["map", "include_inactive"].contains($0["name"] ?? "") },
                // The header's own choice, our columns only (words), then each shipped map by its name.
                "maps": [["value": "auto", "auto": true, "chosen": reading.map == nil]]
                    + PageAnswers.maps.map { name -> [String: Any] in
                        ["value": name, "none": name == "none", "label": name == "none" ? "" : ShippedMaps.displayName(name),
                         "chosen": reading.map == name]
                    },
            ] as [String: Any]
        }
        if let planNext, ask == nil { values["plan_next"] = ["sheet": planNext.sheet, "carried": planNext.reading.hidden] }
        if let job {
            var shown: [String: Any] = ["id": job.id, "progress": job.progress, "running": job.running, "ended": !job.running,
                                        "done": job.done, "total": max(job.total, 1), "report": job.report]
            for step in job.steps {
                shown[step.name] = step.value
                if let held = step.held { shown["price_guarded"] = held }
            }
            shown["carried"] = job.reading.hidden
            values["job"] = shown
        }
        if let ask {
            values["ask"] = ["sheet": ask.sheet, "said": ask.said, "stock": ask.reading.defaultStock.map(String.init) ?? "",
                             "carried": ask.reading.hidden.filter { !["currency", "default_stock"].contains($0["name"] ?? "") },
                             "currencies": ProductRules.sandboxCurrencies.map { ["code": $0, "chosen": $0 == (ask.reading.currency ?? "")] }]
        }
        if let sheets {
            values["sheets"] = sheets.map { ["name": $0] }
            values["no_sheets"] = sheets.isEmpty
        }
        if let problems {
            values["problems"] = problems.map { problem -> [String: Any] in
                ["row": problem.row.map(String.init) ?? "", "column": problem.column, "value": problem.value, "rule": problem.rule,
                 "message": problem.message, "severity": problem.severity]
            }
        }
        if let feeds {
            values["feeds"] = feeds.map { feed -> [String: Any] in
                var item: [String: Any] = ["name": feed.name, "source": feed.source, "schedule": feed.schedule, "held": feed.held,
                                           "shops": feed.shops.map { ["shop": $0.shop, "outcome": $0.outcome, "label": $0.label, "message": $0.message, "when": $0.when] }]
                if let mistake = feed.mistake { item["mistake"] = mistake }
                return item
            }
            values["no_feeds"] = feeds.isEmpty
            values["feeds_page"] = true
        }
        if let runs {
            values["runs"] = runs.map { run -> [String: Any] in
                ["started": run.started, "kind": run.kind, "source": run.source, "counts": run.counts, "folder": run.folder,
                 "undoable": run.undoable, "report": run.reportTag != nil, "tag": run.reportTag ?? ""]
            }
            values["no_runs"] = runs.isEmpty
        }
        if let chooseRepository { values["choose_repository"] = chooseRepository }
        if let backups {
            values["repository"] = true
            values["snapshots"] = backups.snapshots.map { snapshot -> [String: Any] in
                ["id": snapshot.id, "time": snapshot.time, "products": snapshot.products, "new": snapshot.newProducts, "added": snapshot.added]
            }
            values["diff_from"] = backups.diffFrom
            values["diff_to"] = backups.diffTo
        }
        return values
    }
}

/// A check's way on: plan the sheet, read as the check read it.
struct PlanNext {
    var sheet: String
    var reading: PageAnswers
}
