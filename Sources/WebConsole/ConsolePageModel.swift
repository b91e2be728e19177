import Feeds
import Foundation
import Manifest
import OpenMarketContract

/// What every page shows above its own part: its title, a line that sums up, what went wrong.
struct PageHead {
    var title: String
    var summary: String?
    var message: String?

    init(_ title: String, summary: String? = nil, message: String? = nil) {
        self.title = title
        self.summary = summary
        self.message = message
    }
}

/// One console page, typed: each page is its own model with only the parts it has, rendered by
/// its own template under `Resources/pages` inside the one layout (`layout.mustache`). Only
/// `values` turns a model into its template's names.
protocol ConsolePageModel {
    /// Its template's name (`Resources/pages/NAME.mustache`).
    static var template: String { get }
    var head: PageHead { get set }
    /// The template's names for the page's own part.
    var values: [String: Any] { get }
    /// The job this page is of: the layout names the job that writes on every other page.
    var jobID: String? { get }
}

extension ConsolePageModel {
    var jobID: String? { nil }
    var title: String { head.title }
    var message: String? { head.message }
}

/// A page that is its head alone: an error, a refusal, an empty sheet, a busy console.
struct MessagePage: ConsolePageModel {
    static let template = "message"
    var head: PageHead
    var values: [String: Any] { [:] }

    init(_ title: String, summary: String? = nil, message: String? = nil) { head = PageHead(title, summary: summary, message: message) }
}

/// The sheets folder: its sheets, each with Check, Plan and Apply, and the upload box.
struct SheetsPage: ConsolePageModel {
    static let template = "sheets"
    var head: PageHead
    var sheets: [String]
    /// What the upload box takes: every sheet openmarket reads, and a zip of photos.
    static let accept = (ManifestFormat.extensions.map { "." + $0.name } + [".zip"]).joined(separator: ",")

    var values: [String: Any] { ["sheets": sheets.map { ["name": $0] }, "upload_accept": Self.accept] }
}

/// A profile's page: a shop that cannot be opened or refused its credentials, with the form that
/// enters them again (`credentials`: the profile's name) where the console can save them.
struct ProfilePage: ConsolePageModel {
    static let template = "profile"
    var head: PageHead
    var credentials: String?

    var values: [String: Any] { credentials.map { ["credentials": ["name": $0]] } ?? [:] }
}

/// A check's way on: plan the sheet, read as the check read it.
struct PlanNext {
    var sheet: String
    var reading: PageAnswers
}

/// The form that asks what an export cannot say (its currency, a stock), then plans the sheet
/// with it: on a check and on a plan's or an apply's page.
struct AskForm {
    var sheet: String
    /// How the sheet was read ("a Shopify product export: read with the Shopify map").
    var said: String
    var reading: PageAnswers

    var values: [String: Any] {
        ["sheet": sheet, "said": said, "stock": reading.defaultStock.map(String.init) ?? "",
         "carried": reading.hidden.filter { !["currency", "default_stock"].contains($0["name"] ?? "") },
         "currencies": ProductRules.sandboxCurrencies.map { ["code": $0, "chosen": $0 == (reading.currency ?? "")] }]
    }
}

/// A check of a sheet: what it says of the rows, each problem, and the ways on (read its
/// columns another way, choose its encoding, answer what it cannot say, plan it).
struct CheckPage: ConsolePageModel {
    static let template = "check"
    var head: PageHead
    /// A checked sheet: checked again with another map, or with the rows not on sale.
    var readAs: PlanNext?
    /// A sheet whose text encoding cannot be told: checked again in the one chosen.
    var chooseEncoding: PlanNext?
    /// The sheet's plan, where rows can go on.
    var planNext: PlanNext?
    var ask: AskForm?
    var problems: [Problem] = []

    init(_ head: PageHead) { self.head = head }

    /// A row of a check: a rule a cell breaks.
    struct Problem {
        var row: Int?
        var column: String
        var value: String
        var rule: String
        var message: String
        var severity: String
    }

    var values: [String: Any] {
        var values: [String: Any] = [:]
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
        // Asked first: the plan goes on once the form is answered.
        if let ask { values["ask"] = ask.values } else if let planNext { values["plan_next"] = ["sheet": planNext.sheet, "carried": planNext.reading.hidden] }
        values["problems"] = problems.map { problem -> [String: Any] in
            ["row": problem.row.map(String.init) ?? "", "column": problem.column, "value": problem.value, "rule": problem.rule,
             "message": problem.message, "severity": problem.severity]
        }
        return values
    }
}

/// The runs of the account, as `openmarket runs` lists them, each with its report and its Undo.
struct RunsPage: ConsolePageModel {
    static let template = "runs"
    var head: PageHead
    var runs: [Run]

    struct Run {
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

    var values: [String: Any] {
        ["runs": runs.map { run -> [String: Any] in
            ["started": run.started, "kind": run.kind, "source": run.source, "counts": run.counts, "folder": run.folder,
             "undoable": run.undoable, "report": run.reportTag != nil, "tag": run.reportTag ?? ""]
        }]
    }
}

/// The feeds folder: each feed, its schedule, each shop's last run of it, Run now and Accept.
struct FeedsPage: ConsolePageModel {
    static let template = "feeds"
    var head: PageHead
    var feeds: [Feed]

    struct Feed {
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

    var values: [String: Any] {
        ["feeds": feeds.map { feed -> [String: Any] in
            var item: [String: Any] = ["name": feed.name, "source": feed.source, "schedule": feed.schedule, "held": feed.held,
                                       "shops": feed.shops.map { ["shop": $0.shop, "outcome": $0.outcome, "label": $0.label, "message": $0.message, "when": $0.when] }]
            if let mistake = feed.mistake { item["mistake"] = mistake }
            return item
        }]
    }
}

/// The backup folder's snapshots, newest first, with a diff of two and a restore's plan of each.
struct BackupsPage: ConsolePageModel {
    static let template = "backups"
    var head: PageHead
    var snapshots: [Snapshot]

    struct Snapshot {
        var id: String
        var time: String
        var products: Int
        var newProducts: Int
        var added: String
    }

    var values: [String: Any] {
        ["snapshots": snapshots.map { ["id": $0.id, "time": $0.time, "products": $0.products, "new": $0.newProducts, "added": $0.added] as [String: Any] },
         // The diff form's default: what the last snapshot changed.
         "diff_from": snapshots.dropFirst().first?.id ?? "", "diff_to": snapshots.first?.id ?? ""]
    }
}

/// No backup folder yet: the form that picks one, with one suggested.
struct BackupFolderPage: ConsolePageModel {
    static let template = "backup-folder"
    var head: PageHead
    var suggested: String

    var values: [String: Any] { ["suggested": suggested] }
}

/// What changed between two snapshots, line by line.
struct BackupDiffPage: ConsolePageModel {
    static let template = "backup-diff"
    var head: PageHead
    var diff: String

    var values: [String: Any] { ["diff": diff] }
}
