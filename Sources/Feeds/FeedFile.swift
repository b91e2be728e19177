import Foundation
import Words
import Manifest
import Support
import TOMLKit

/// A mistake in a feed file: the file, the line and the key, and what to write instead.
public struct FeedFileError: SaysPhrase, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var key: String?
    /// The mistake in the catalogue's words, without where it is.
    public var said: Phrase

    public init(file: String, line: Int? = nil, key: String? = nil, said: Phrase) {
        self.file = file
        self.line = line
        self.key = key
        self.said = said
    }

    /// The mistake in English.
    public var message: String { said.text(.en) }

    /// The mistake with where it is: the file as given, the line, the key.
    public var phrase: Phrase { placed(file) }

    /// The mistake with where it is, the file named as `file` (the console names it alone, not
    /// the folder it is kept in).
    public func placed(_ file: String) -> Phrase {
        switch (line, key) {
        case let (line?, key?): Phrase("feed_mistake_line_key", [file, String(line), key], parts: [said])
        case let (line?, nil): Phrase("feed_mistake", [file, String(line)], parts: [said])
        case let (nil, key?): Phrase("feed_mistake_key", [file, key], parts: [said])
        case (nil, nil): Phrase("feed_mistake_file", [file], parts: [said])
        }
    }

    public var description: String { phrase.text(.en) }
}

/// Reads a feed file (TOML; the keys are those of the README's "Supplier feeds" and
/// `templates/feed.toml`). Every mistake names the file, the line and the key; the first
/// one found stops the reading.
public enum FeedFile {
    /// The feed file a `--feed` value names: a path (with a `/` or ending in `.toml`), or a
    /// name in `$XDG_CONFIG_HOME/openmarket/feeds/`.
    public static func locate(_ value: String, feedsFolder: URL = UserFolders.config.appendingPathComponent("feeds")) -> URL {
        if value.contains("/") || value.hasSuffix(".toml") || FileManager.default.fileExists(atPath: value) {
            return URL(fileURLWithPath: value)
        }
        return feedsFolder.appendingPathComponent(value + ".toml")
    }

    private static var defaultFeeds: URL { UserFolders.config.appendingPathComponent("feeds") }

    public static func load(_ url: URL) throws(FeedFileError) -> Feed {
        let file = url.path
        if !FileManager.default.fileExists(atPath: file), !url.path.contains("/") || url.deletingLastPathComponent().path == defaultFeeds.path,
           let text = ShippedMaps.text(url.deletingPathExtension().lastPathComponent) {
            // `--feed shopify`, `feed test shopify FILE`: a shipped map, unless a feed of that name is kept.
            return try parse(text, url: url)
        }
        guard FileManager.default.fileExists(atPath: file) else {
            throw FeedFileError(file: file, said: Phrase("fm_no_such_feed", UserFolders.config.appendingPathComponent("feeds").path))
        }
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw FeedFileError(file: file, said: Phrase("fm_not_utf8"))
        }
        return try parse(text, url: url)
    }

    public static func parse(_ text: String, url: URL) throws(FeedFileError) -> Feed {
        if let problem = TOMLPreCheck.problem(in: text) {
            throw FeedFileError(file: url.path, line: problem.line, said: problem.phrase)
        }
        let table: TOMLTable
        // The parser's own words are not said: its line, and where to look, are.
        do { table = try TOMLTable(string: text) } catch {
            throw FeedFileError(file: url.path, line: (error as? TOMLParseError)?.source.begin.line, said: Phrase("feed_not_toml"))
        }
        var reader = FeedTableReader(file: url.path, lines: TOMLLines(text))
        return try reader.feed(table, url: url)
    }
}

/// Finds the line of a key in a TOML text: the first `key =` under the table `[path]`
/// (the `n`th `[[path]]` for an array of tables). TOMLKit gives lines for syntax errors
/// only, and a person fixing a feed file needs the line of any key.
struct TOMLLines {
    private var lines: [(table: String, item: Int, text: String)] = []

    init(_ text: String) {
        var table = ""
        var counts: [String: Int] = [:]
        var item = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                let isArray = line.hasPrefix("[[")
                let inner = line.drop(while: { $0 == "[" }).prefix(while: { $0 != "]" })
                table = Self.plainPath(String(inner))
                if isArray { counts[table, default: 0] += 1; item = counts[table]! } else { item = 0 }
            }
            lines.append((table, item, line))
        }
    }

    /// `prices . "rules"` → `prices.rules`.
    static func plainPath(_ path: String) -> String {
        path.split(separator: ".").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'")) }
            .joined(separator: ".")
    }

    /// The 1-based line of `key` in table `table` (item `item` of an array of tables), or of
    /// the table's header, or nil.
    func line(of key: String?, in table: String, item: Int = 0) -> Int? {
        var header: Int?
        for (index, line) in lines.enumerated() where line.table == table && line.item == item {
            if header == nil { header = index + 1 }
            guard let key else { break }
            for written in [key, "\"\(key)\"", "'\(key)'"] where line.text.hasPrefix(written) {
                let rest = line.text.dropFirst(written.count).drop(while: { $0 == " " || $0 == "\t" })
                if rest.first == "=" { return index + 1 }
            }
            if line.text.contains("\"\(key)\"") || line.text.contains("\(key) =") { return index + 1 }
        }
        return header
    }
}
