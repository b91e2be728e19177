import BulkImport
import Foundation
import Mustache

/// The console's pages: one layout, the CLI's words (`would-create`, `created`, `deleted`,
/// `unchanged`, `failed`), buttons that say what they do (Check, Plan, Apply, Undo). Every
/// value is escaped by the template; no secret is ever given to it.
enum ConsolePages {
    static let layout = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>openmarket console</title>
        <style>
        body { font: 15px/1.45 system-ui, "Noto Sans CJK KR", sans-serif; margin: 0 auto; max-width: 1100px; padding: 16px; color: #222; }
        header { display: flex; gap: 16px; align-items: baseline; flex-wrap: wrap; border-bottom: 1px solid #ddd; padding-bottom: 8px; }
        header a { color: #245; }
        table { border-collapse: collapse; width: 100%; margin: 12px 0; }
        th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #eee; vertical-align: top; }
        form { display: inline; }
        button { font: inherit; padding: 4px 12px; margin: 2px; border: 1px solid #888; border-radius: 4px; background: #f6f6f6; cursor: pointer; }
        .status { font-family: ui-monospace, monospace; }
        .failed, .error { color: #b00; } .created, .would-create { color: #060; } .deleted, .would-delete { color: #840; }
        .summary { font-weight: 600; margin: 12px 0; }
        @media (max-width: 600px) { td:nth-child(4), th:nth-child(4) { display: none; } }
        </style></head>
        <body>
        <header><strong>openmarket console</strong><span>{{shop}}</span><a href="/">Sheets</a><a href="/runs">Runs</a></header>
        {{#title}}<h2>{{title}}</h2>{{/title}}
        {{#summary}}<p class="summary">{{summary}}</p>{{/summary}}
        {{#message}}<p class="error">{{message}}</p>{{/message}}
        {{#has_sheets}}
        <table><tr><th>sheet</th><th></th></tr>
        {{#sheets}}<tr><td>{{name}}</td><td>
        <form method="post" action="/check"><input type="hidden" name="sheet" value="{{name}}"><button>Check</button></form>
        <form method="post" action="/plan"><input type="hidden" name="sheet" value="{{name}}"><button>Plan</button></form>
        <form method="post" action="/apply"><input type="hidden" name="sheet" value="{{name}}"><button>Apply</button></form>
        </td></tr>{{/sheets}}
        </table>
        {{/has_sheets}}
        {{#has_problems}}
        <table><tr><th>row</th><th>column</th><th>value</th><th>rule</th><th>what is wrong</th></tr>
        {{#problems}}<tr class="{{severity}}"><td>{{row}}</td><td>{{column}}</td><td>{{value}}</td><td>{{rule}}</td><td>{{message}}</td></tr>{{/problems}}
        </table>
        {{/has_problems}}
        {{#has_rows}}
        <table><tr><th>row</th><th>status</th><th>key</th><th>name</th><th>what</th></tr>
        {{#rows}}<tr><td>{{row}}</td><td class="status {{status}}">{{status}}</td><td>{{key}}</td><td>{{name}}</td><td>{{what}}</td></tr>{{/rows}}
        </table>
        {{/has_rows}}
        {{#has_runs}}
        <table><tr><th>started</th><th>kind</th><th>what</th><th>counts</th><th></th></tr>
        {{#runs}}<tr><td>{{started}}</td><td>{{kind}}</td><td>{{source}}</td><td>{{counts}}</td><td>
        {{#undoable}}<form method="post" action="/undo"><input type="hidden" name="run" value="{{folder}}"><button>Undo</button></form>{{/undoable}}
        </td></tr>{{/runs}}
        </table>
        {{/has_runs}}
        </body></html>
        """

    static let template: MustacheTemplate = {
        do { return try MustacheTemplate(string: layout) } catch { fatalError("the console's page template: \(error)") }
    }()

    /// The page with `values`; a list's table shows when the list has rows.
    static func render(_ values: [String: Any]) -> String {
        var values = values
        for name in ["sheets", "problems", "rows", "runs"] {
            values["has_" + name] = !((values[name] as? [Any])?.isEmpty ?? true)
        }
        return template.render(values)
    }

    /// A run's rows as the page lists them.
    static func rows(_ report: RunReport, limit: Int = 500) -> [[String: Any]] {
        report.shownRows(limit: limit).map { outcome in
            ["row": outcome.row > 0 ? String(outcome.row) : "", "status": outcome.status.rawValue, "key": outcome.key,
             "name": outcome.name, "what": [outcome.changes, outcome.note, outcome.error].compactMap { $0 }.joined(separator: "; ")]
        }
    }
}
