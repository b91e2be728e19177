import CatalogSync
import Foundation
import Mustache

/// The console's pages: one layout, the CLI's words for what happened to a row (`would-create`,
/// `created`, `deleted`, `unchanged`, `failed`), buttons that say what they do (Check, Plan,
/// Apply, Undo), in English or Korean (`ConsoleWords`). Every value is escaped by the template;
/// no secret is ever given to it.
enum ConsolePages {
    static let layout = """
        <!doctype html>
        <html lang="{{lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>openmarket console</title>
        <style>
        body { font: 15px/1.45 system-ui, "Noto Sans CJK KR", sans-serif; margin: 0 auto; max-width: 1100px; padding: 16px; color: #222;
               word-break: keep-all; overflow-wrap: break-word; }
        header { display: flex; gap: 16px; align-items: baseline; flex-wrap: wrap; border-bottom: 1px solid #ddd; padding-bottom: 8px; }
        header a { color: #245; } header .language { margin-left: auto; font-size: 13px; }
        table { border-collapse: collapse; width: 100%; margin: 12px 0; }
        th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #eee; vertical-align: top; }
        td.value, #diff, .address { overflow-wrap: anywhere; word-break: normal; }
        form { display: inline; }
        button { font: inherit; padding: 4px 12px; margin: 2px; border: 1px solid #888; border-radius: 4px; background: #f6f6f6; cursor: pointer; }
        button.go { background: #15324a; color: #fff; border-color: #15324a; }
        .status, #progress { font-family: ui-monospace, monospace; }
        .failed, .error, .held, .unreachable { color: #b00; } .not-sent, .muted { color: #666; } .created, .would-create { color: #060; } .deleted, .would-delete { color: #840; }
        .summary { font-weight: 600; margin: 12px 0; }
        .banner { background: #eef4f8; padding: 8px 12px; border-radius: 4px; }
        .links a { margin-right: 16px; }
        .drop { border: 2px dashed #aab; border-radius: 6px; padding: 14px; margin: 12px 0; color: #445; }
        .drop.over { background: #eef4f8; }
        pre { background: #f6f6f6; padding: 8px 12px; border-radius: 4px; overflow-x: auto; }
        progress { width: 100%; max-width: 480px; height: 14px; }
        iframe { width: 100%; height: 75vh; border: 1px solid #ddd; border-radius: 4px; margin-top: 12px; }
        input, select { max-width: 100%; box-sizing: border-box; }
        /* A phone: a table's rows become stacked cards, each cell named by its column. */
        @media (max-width: 600px) {
          .wide { display: none; } iframe { height: 80vh; } button { padding: 8px 12px; }
          table, tbody, tr, td { display: block; width: auto; }
          tr:first-child { display: none; }
          tr { border-bottom: 1px solid #ddd; padding: 6px 0; }
          td { border: 0; padding: 1px 0; }
          td[data-label]::before { content: attr(data-label) " · "; color: #666; font-size: 13px; }
          header { gap: 10px; }
        }
        </style><script src="/console.js" defer></script></head>
        <body>
        <header><strong>openmarket console</strong>{{^profiles}}<span>{{shop}}</span>{{/profiles}}
        {{#has_profiles}}<form method="get" action="/shop"><select name="name" id="profile">{{#profiles}}<option value="{{name}}"{{#chosen}} selected{{/chosen}}>{{label}}</option>{{/profiles}}</select><noscript><button>OK</button></noscript></form>{{/has_profiles}}<a href="/">{{w.sheets}}</a><a href="/runs">{{w.runs}}</a><a href="/feeds">{{w.feeds}}</a><a href="/backups">{{w.backups}}</a>
        <a href="/export">{{w.export}}</a>
        <span class="language"><a href="/language/en">English</a> · <a href="/language/ko">한국어</a></span></header>
        {{#writing}}<p class="banner">{{kind}} · {{subject}} · {{w.running}}: <a href="/jobs/{{id}}">{{w.open}}</a></p>{{/writing}}
        {{#title}}<h2>{{title}}</h2>{{/title}}
        {{#summary}}<p class="summary" id="summary">{{summary}}</p>{{/summary}}
        {{#message}}<p class="error" id="message">{{message}}</p>{{/message}}
        {{#job}}
        <p id="progress">{{progress}}</p>
        {{#running}}
        <progress id="bar" max="{{total}}" value="{{done}}" data-events="/jobs/{{id}}/events"></progress>
        <form method="post" action="/jobs/{{id}}/stop"><button id="stop">{{w.stop}}</button></form>
        <noscript><meta http-equiv="refresh" content="2"></noscript>
        {{/running}}
        {{#ended}}
        <p class="links">{{#report}}<a href="/jobs/{{id}}/report.html" target="_blank">{{w.report}}</a>
        <a href="/jobs/{{id}}/report.xlsx">{{w.workbook}}</a> <a href="/jobs/{{id}}/report.csv">{{w.csv}}</a>{{/report}}</p>
        {{#accept_prices}}<form method="post" action="/apply"><input type="hidden" name="sheet" value="{{accept_prices}}">{{#carried}}<input type="hidden" name="{{name}}" value="{{value}}">{{/carried}}<input type="hidden" name="force" value="1"><button class="go" id="accept-prices">{{w.accept_prices}} ({{price_guarded}})</button></form>{{/accept_prices}}
        {{#accept_feed_prices}}<form method="post" action="/feeds/run"><input type="hidden" name="feed" value="{{accept_feed_prices}}"><input type="hidden" name="force" value="1"><button class="go" id="accept-feed-prices">{{w.accept_prices}} ({{price_guarded}})</button></form>{{/accept_feed_prices}}
        {{#accept}}<form method="post" action="/feeds/run"><input type="hidden" name="feed" value="{{accept}}"><input type="hidden" name="accept" value="1"><button class="go" id="accept">{{w.accept}}</button></form>{{/accept}}
        {{#restore}}<form method="post" action="/backups/restore"><input type="hidden" name="snapshot" value="{{restore}}"><button class="go" id="restore">{{w.restore}}</button></form>{{/restore}}
        {{#apply_planned}}<form method="post" action="/apply"><input type="hidden" name="sheet" value="{{apply_planned}}">{{#carried}}<input type="hidden" name="{{name}}" value="{{value}}">{{/carried}}<button class="go" id="apply">{{w.apply}}</button></form>{{/apply_planned}}
        {{#apply_again}}<form method="post" action="/apply"><input type="hidden" name="sheet" value="{{apply_again}}">{{#carried}}<input type="hidden" name="{{name}}" value="{{value}}">{{/carried}}<button class="go" id="apply-again">{{w.apply_again}}</button></form>{{/apply_again}}
        {{#plan_undo}}<form method="post" action="/undo-plan"><input type="hidden" name="run" value="{{plan_undo}}"><button id="plan-undo">{{w.plan_undo}}</button></form>{{/plan_undo}}
        {{#undo}}<form method="post" action="/undo"><input type="hidden" name="run" value="{{undo}}"><button class="go" id="undo">{{w.undo}}</button></form>{{/undo}}
        {{#report}}<iframe src="/jobs/{{id}}/report.html" title="report"></iframe>{{/report}}
        {{/ended}}
        {{/job}}
        {{#upload}}
        <div id="drop" class="drop">{{w.drop}} <input type="file" id="files" multiple accept="{{accept}}"></div>
        <p id="upload-status" data-show="{{w.upload_show}}"></p>
        {{/upload}}
        {{#no_sheets}}<p>{{w.no_sheets}}</p>{{/no_sheets}}
        {{#has_sheets}}
        <table><tr><th>{{w.sheet}}</th><th></th></tr>
        {{#sheets}}<tr><td class="value">{{name}}</td><td>
        <form method="post" action="/check"><input type="hidden" name="sheet" value="{{name}}"><button>{{w.check}}</button></form>
        <form method="post" action="/plan"><input type="hidden" name="sheet" value="{{name}}"><button>{{w.plan}}</button></form>
        <form method="post" action="/apply"><input type="hidden" name="sheet" value="{{name}}"><button class="go">{{w.apply}}</button></form>
        </td></tr>{{/sheets}}
        </table>
        {{/has_sheets}}
        {{#ask}}<form method="post" action="/plan" id="ask" class="ask"><p>{{said}}. {{w.ask_lead}}</p><input type="hidden" name="sheet" value="{{sheet}}">
        <label>{{w.ask_currency}} <select name="currency" id="ask-currency" required><option value="">—</option>{{#currencies}}<option{{#chosen}} selected{{/chosen}}>{{code}}</option>{{/currencies}}</select></label>
        <label>{{w.ask_stock}} <input type="number" name="default_stock" id="ask-stock" min="0" value="{{stock}}" required></label>
        <button class="go" id="ask-plan">{{w.ask_plan}}</button></form>{{/ask}}
        {{#plan_next}}<form method="post" action="/plan"><input type="hidden" name="sheet" value="{{sheet}}">{{#carried}}<input type="hidden" name="{{name}}" value="{{value}}">{{/carried}}<button class="go" id="plan-next">{{w.plan}}</button></form>{{/plan_next}}
        {{#has_problems}}
        <table id="problems"><tr><th>{{w.row}}</th><th>{{w.column}}</th><th>{{w.value}}</th><th class="wide">{{w.rule}}</th><th>{{w.wrong}}</th></tr>
        {{#problems}}<tr class="{{severity}}"><td data-label="{{w.row}}">{{row}}</td><td data-label="{{w.column}}">{{column}}</td><td class="value" data-label="{{w.value}}">{{value}}</td><td class="wide">{{rule}}</td><td data-label="{{w.wrong}}">{{message}}</td></tr>{{/problems}}
        </table>
        {{/has_problems}}
        {{#no_feeds}}<p>{{w.no_feeds}}</p>{{/no_feeds}}
        {{#has_feeds}}
        <table id="feeds"><tr><th>{{w.feed}}</th><th class="wide">{{w.source}}</th><th class="wide">{{w.schedule}}</th><th>{{w.last_runs}}</th><th></th></tr>
        {{#feeds}}<tr><td data-label="{{w.feed}}">{{name}}</td><td class="wide address">{{source}}</td><td class="wide">{{schedule}}</td>
        <td data-label="{{w.last_runs}}">{{^shops}}{{^mistake}}<span class="muted">{{w.outcome_never}}</span>{{/mistake}}{{/shops}}{{#shops}}<div><span class="status {{outcome}}">{{label}}</span> {{when}} · {{shop}}: {{message}}</div>{{/shops}}{{#mistake}}<span class="error">{{mistake}}</span>{{/mistake}}</td>
        <td>{{^mistake}}<form method="post" action="/feeds/run"><input type="hidden" name="feed" value="{{name}}"><button class="go">{{w.run_now}}</button></form>
        {{#held}}<form method="post" action="/feeds/run"><input type="hidden" name="feed" value="{{name}}"><input type="hidden" name="accept" value="1"><button>{{w.accept}}</button></form>{{/held}}{{/mistake}}</td></tr>{{/feeds}}
        </table>
        {{/has_feeds}}
        {{#diff}}<pre id="diff">{{diff}}</pre>{{/diff}}
        {{#choose_repository}}<form method="post" action="/backups/repository" id="choose-repository"><label>{{w.backup_folder}} <input name="folder" value="{{choose_repository}}" size="40" style="width: 100%; max-width: 32em"></label> <button class="go" id="use-folder">{{w.use_folder}}</button></form>{{/choose_repository}}
        {{#repository}}
        <form method="post" action="/backups/snapshot"><button class="go" id="snapshot">{{w.snapshot_now}}</button></form>
        {{^has_snapshots}}<p id="no-snapshots">{{w.no_snapshots}}</p>{{/has_snapshots}}
        {{#has_snapshots}}
        <form method="get" action="/backups/diff">{{w.diff}}: <input name="from" value="{{diff_from}}" size="14"> → <input name="to" value="{{diff_to}}" size="14"> <button>{{w.diff}}</button></form>
        <table id="snapshots"><tr><th>{{w.snapshot}}</th><th>{{w.started}}</th><th>{{w.products}}</th><th class="wide">{{w.new_products}}</th><th class="wide">{{w.added}}</th><th></th></tr>
        {{#snapshots}}<tr><td class="status" data-label="{{w.snapshot}}">{{id}}</td><td data-label="{{w.started}}">{{time}}</td><td data-label="{{w.products}}">{{products}}</td><td class="wide">{{new}}</td><td class="wide">{{added}}</td>
        <td><form method="post" action="/backups/restore-plan"><input type="hidden" name="snapshot" value="{{id}}"><button>{{w.plan_restore}}</button></form></td></tr>{{/snapshots}}
        </table>
        {{/has_snapshots}}
        {{/repository}}
        {{#no_runs}}<p>{{w.no_runs}}</p>{{/no_runs}}
        {{#has_runs}}
        <table id="runs"><tr><th>{{w.started}}</th><th class="wide">{{w.kind}}</th><th>{{w.what}}</th><th>{{w.counts}}</th><th></th></tr>
        {{#runs}}<tr><td data-label="{{w.started}}">{{started}}</td><td class="wide">{{kind}}</td><td class="value" data-label="{{w.what}}">{{source}}</td><td data-label="{{w.counts}}">{{counts}}</td><td>
        {{#report}}<a href="/runs/{{tag}}/report.html" target="_blank">{{w.report_short}}</a>{{/report}}
        {{#undoable}}<form method="post" action="/undo-plan"><input type="hidden" name="run" value="{{folder}}"><button>{{w.undo}}</button></form>{{/undoable}}
        </td></tr>{{/runs}}
        </table>
        {{/has_runs}}
        </body></html>
        """

    static let template: MustacheTemplate = {
        do { return try MustacheTemplate(string: layout) } catch { fatalError("the console's page template: \(error)") }
    }()

    /// The page with `values` in `language`; a list's table shows when the list has rows.
    static func render(_ values: [String: Any], language: ConsoleWords.Language) -> String {
        var values = values
        for name in ["sheets", "problems", "runs", "feeds", "snapshots", "profiles"] {
            values["has_" + name] = !((values[name] as? [Any])?.isEmpty ?? true)
        }
        values["w"] = ConsoleWords.words(language)
        values["lang"] = language.rawValue
        return template.render(values)
    }
}

/// The console's one script, served as a file (`/console.js`): the pages carry no inline script,
/// so that their Content-Security-Policy allows scripts from the console itself only. It acts
/// on what a page has: the profile menu, a running job's progress, the drop zone.
enum ConsoleScript {
    static let text = """
    "use strict";
    const profile = document.getElementById("profile");
    if (profile) profile.addEventListener("change", () => profile.form.submit());

    const bar = document.getElementById("bar");
    if (bar && bar.dataset.events) {
      const events = new EventSource(bar.dataset.events);
      events.onmessage = (event) => {
        const progress = JSON.parse(event.data);
        document.getElementById("progress").textContent = progress.line;
        bar.max = Math.max(progress.total, 1); bar.value = progress.done;
        if (progress.ended) { events.close(); location.reload(); }
      };
    }

    async function upload(files) {
      const status = document.getElementById("upload-status");
      const notes = [];
      for (const file of files) {
        status.className = ""; status.textContent = "… " + file.name;
        const answer = await fetch("/upload?name=" + encodeURIComponent(file.name), { method: "POST", body: file });
        const said = await answer.json();
        if (!answer.ok) { status.className = "error"; status.textContent = said.error; return; }
        notes.push(...(said.notes || []));
      }
      if (notes.length === 0) { location.reload(); return; }
      status.textContent = "";
      for (const note of notes) { const line = document.createElement("div"); line.textContent = note; status.appendChild(line); }
      const again = document.createElement("a"); again.href = ""; again.textContent = status.dataset.show; status.appendChild(again);
    }
    const drop = document.getElementById("drop");
    if (drop) {
      document.getElementById("files").addEventListener("change", (event) => upload(event.target.files));
      drop.addEventListener("dragover", (event) => { event.preventDefault(); drop.classList.add("over"); });
      drop.addEventListener("dragleave", () => drop.classList.remove("over"));
      drop.addEventListener("drop", (event) => { event.preventDefault(); drop.classList.remove("over"); upload(event.dataTransfer.files); });
    }
    """
}
