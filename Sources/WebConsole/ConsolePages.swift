import CatalogSync
import Foundation
import Words
import Mustache

/// The console's pages: one layout, the CLI's words for what happened to a row (`would-create`,
/// `created`, `deleted`, `unchanged`, `failed`), buttons that say what they do (Check, Plan,
/// Apply, Undo), in English or Korean (`ConsoleWords`). Every value is escaped by the template;
/// no secret is ever given to it.
enum ConsolePages {
    /// Every page's template, by name: the layout (`layout`), a template per page that fills
    /// its `page` block, and the parts two pages share (`ask`, `carried`); files under
    /// `Resources/pages`.
    static let sources: [String: String] = {
        guard let folder = Bundle.module.url(forResource: "pages", withExtension: nil),
              let files = try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil) else {
            fatalError("the console's pages are not among its resources")
        }
        var sources: [String: String] = [:]
        for file in files where file.pathExtension == "mustache" {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { fatalError("the console's \(file.lastPathComponent) cannot be read") }
            sources[file.deletingPathExtension().lastPathComponent] = text
        }
        return sources
    }()

    /// The templates, parsed once; one that does not parse is a broken build.
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in sources {
            do { try library.register(text, named: name) } catch { fatalError("the console's page \(name): \(error)") }
        }
        return library
    }()

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

    /// The page `template` with its head and `values` in `language`; a list's table shows when
    /// the list has rows. `root`: the secret path the console's pages live under on a shared
    /// loopback address.
    static func render(_ template: String, head: PageHead, _ values: [String: Any], language: ConsoleWords.Language, root: String = "") -> String {
        var values = values
        values["title"] = head.title
        if let summary = head.summary { values["summary"] = summary }
        if let message = head.message { values["message"] = message }
        values["root"] = root
        for name in ["sheets", "problems", "runs", "feeds", "snapshots", "profiles"] {
            values["has_" + name] = !((values[name] as? [Any])?.isEmpty ?? true)
        }
        values["w"] = ConsoleWords.words(language)
        values["lang"] = language.rawValue
        // Every language the catalogue speaks, each by its own name.
        values["languages"] = ConsoleWords.Language.allCases.enumerated().map { index, each in
            ["code": each.rawValue, "name": WordTable.text("language_name", each), "first": index == 0] as [String: Any]
        }
        guard let page = library.render(values, withTemplate: template) else { fatalError("the console has no page \(template)") }
        return page
    }
}

/// The console's one script, served as a file (`/console.js`): the pages carry no inline script,
/// so that their Content-Security-Policy allows scripts from the console itself only. It acts
/// on what a page has: the profile menu, a running job's progress, the drop zone.
enum ConsoleScript {
    static let text: String = ConsolePages.resource("console", "js")
}
