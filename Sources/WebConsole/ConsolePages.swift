import CatalogSync
import Foundation
import Mustache

/// The console's pages: one layout, the CLI's words for what happened to a row (`would-create`,
/// `created`, `deleted`, `unchanged`, `failed`), buttons that say what they do (Check, Plan,
/// Apply, Undo), in English or Korean (`ConsoleWords`). Every value is escaped by the template;
/// no secret is ever given to it.
enum ConsolePages {
    /// The layout of every page: a template file (`Resources/console.html.mustache`).
    static let layout: String = resource("console.html", "mustache")

    /// A file of the console's resources, read once; a missing one is a broken build.
    static func resource(_ name: String, _ type: String) -> String {
        guard let url = Bundle.module.url(forResource: name, withExtension: type), let text = try? String(contentsOf: url, encoding: .utf8) else {
            fatalError("the console's \(name).\(type) is not among its resources")
        }
        return text
    }

    /// A page of its own, for an answer given before the console knows whose page it is
    /// (`Resources/plain.html.mustache`); every value escaped.
    static let plain: MustacheTemplate = {
        do { return try MustacheTemplate(string: resource("plain.html", "mustache")) } catch { fatalError("the console's plain page: \(error)") }
    }()

    static let template: MustacheTemplate = {
        do { return try MustacheTemplate(string: layout) } catch { fatalError("the console's page template: \(error)") }
    }()

    /// The page with `values` in `language`; a list's table shows when the list has rows.
    /// `root`: the secret path the console's pages live under on a shared loopback address.
    static func render(_ values: [String: Any], language: ConsoleWords.Language, root: String = "") -> String {
        var values = values
        values["root"] = root
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
    static let text: String = ConsolePages.resource("console", "js")
}
