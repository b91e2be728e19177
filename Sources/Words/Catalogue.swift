import Foundation

/// openmarket's messages, one gettext catalogue per language, read once: `openmarket.pot`
/// holds each message's id (`msgctxt`, a `Phrase`'s key) and its English (`msgid`), and
/// `CODE.po` (`ko.po`) its translation (`msgstr`; `msgstr[N]` for a count's plural forms).
/// Blanks are numbered, `{1}`, `{2}`…, in the order the code gives the values; a translation
/// may use them in any order. Adding a language is adding its file: translators open it with
/// their own tools (Poedit, `msgfmt --check`). The files are in `Resources/messages`.
public struct Catalogue: Sendable {
    /// One message: its English and each language's words (a plural message: its forms).
    public struct Entry: Sendable, Equatable {
        public var id: String
        public var english: String
        /// The English for a count other than one, when the message says a count.
        public var englishPlural: String?
        /// By language code: the forms (one, or as many as the language's plural rule has).
        public var translations: [String: [String]] = [:]
        /// The translator's notes (`#.` lines).
        public var comments: [String] = []
    }

    public private(set) var entries: [String: Entry] = [:]
    /// The ids in the template's order.
    public private(set) var order: [String] = []
    /// The languages a file was read for, by code, with the rule that picks a plural form.
    public private(set) var pluralRules: [String: PluralRule] = [:]

    public struct Failure: Error, CustomStringConvertible {
        public var file: String
        public var line: Int
        public var reason: String
        public var description: String { "\(file):\(line): \(reason)" }
    }

    public init() {}

    /// The words of `language` for `id`: its translation, else the English; nil for no such id.
    /// `count` chooses a plural form where the message has them.
    public func text(_ id: String, _ language: String, count: Int? = nil) -> String? {
        guard let entry = entries[id] else { return nil }
        if language != "en", let forms = entry.translations[language], !forms.isEmpty {
            let index = count.map { pluralRules[language]?.form(for: $0) ?? 0 } ?? 0
            let form = forms[min(index, forms.count - 1)]
            if !form.isEmpty { return form }
        }
        if let count, count != 1, let plural = entry.englishPlural { return plural }
        return entry.english
    }

    /// Reads the template and every `CODE.po` beside it in `folder`. A message written twice,
    /// a translation of an id the template has not, or a line that is not gettext's is a
    /// failure naming the file and line: nothing is dropped without a word.
    public static func load(folder: URL) throws -> Catalogue {
        var catalogue = Catalogue()
        let template = folder.appendingPathComponent("openmarket.pot")
        try catalogue.read(template, language: nil)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for file in files.sorted() where file.hasSuffix(".po") {
            try catalogue.read(folder.appendingPathComponent(file), language: String(file.dropLast(3)))
        }
        return catalogue
    }

    /// The catalogues shipped with openmarket, and the folders `OPENMARKET_MESSAGES` names (a
    /// translator's file tried before it ships: `OPENMARKET_MESSAGES=~/po LANG=ja_JP.UTF-8`).
    public static let shipped: Catalogue = {
        guard let folder = Bundle.module.url(forResource: "messages", withExtension: nil) else {
            fatalError("openmarket's message catalogue is missing from its resources (Words/Resources/messages)")
        }
        do {
            var catalogue = try load(folder: folder)
            if let extra = ProcessInfo.processInfo.environment["OPENMARKET_MESSAGES"], !extra.isEmpty {
                for file in ((try? FileManager.default.contentsOfDirectory(atPath: extra)) ?? []).sorted() where file.hasSuffix(".po") {
                    try catalogue.read(URL(fileURLWithPath: extra).appendingPathComponent(file), language: String(file.dropLast(3)))
                }
            }
            return catalogue
        } catch {
            fatalError("openmarket's message catalogue cannot be read: \(error)")
        }
    }()

    /// The words of `language` for `id` when it has a translation of its own (nil: say the code's
    /// English): a rule's, a status's, a field's.
    public func translation(_ id: String, _ language: Language) -> String? {
        guard language != .en, let form = entries[id]?.translations[language.rawValue]?.first, !form.isEmpty else { return nil }
        return form
    }

    /// The words of `language` for every id that starts with `prefix` (`rule:`), by the rest of
    /// the id: a translation only (nil-free: ids the language has no words for are left out).
    public func section(_ prefix: String, _ language: String) -> [String: String] {
        var words: [String: String] = [:]
        for id in order where id.hasPrefix(prefix) {
            guard let form = entries[id]?.translations[language]?.first, !form.isEmpty else { continue }
            words[String(id.dropFirst(prefix.count))] = form
        }
        return words
    }

    /// The languages there are words for: English and each file's.
    public var languages: [String] { ["en"] + pluralRules.keys.sorted() }

    mutating func read(_ url: URL, language: String?) throws {
        let file = url.lastPathComponent
        guard let data = FileManager.default.contents(atPath: url.path), let text = String(data: data, encoding: .utf8) else {
            throw Failure(file: file, line: 0, reason: "cannot be read as UTF-8 text")
        }
        var seen = Set<String>()
        for message in try POFile.messages(text, file: file) {
            if message.id.isEmpty {
                guard message.english.isEmpty else {
                    throw Failure(file: file, line: message.line, reason: "a message without its id (msgctxt): \(message.english.prefix(40))")
                }
                if let language { pluralRules[language] = PluralRule(header: message.forms.first ?? "") }
                continue
            }
            guard seen.insert(message.id).inserted else {
                throw Failure(file: file, line: message.line, reason: "the message \(message.id) is written twice")
            }
            if let language {
                guard entries[message.id] != nil else {
                    throw Failure(file: file, line: message.line, reason: "\(message.id) is not in openmarket.pot (an old id? the template names every message)")
                }
                entries[message.id]?.translations[language] = message.forms
            } else {
                entries[message.id] = Entry(id: message.id, english: message.english, englishPlural: message.plural, comments: message.comments)
                order.append(message.id)
            }
        }
    }
}

/// Which plural form a count takes, from a catalogue's `Plural-Forms` header: the rules of the
/// languages openmarket ships, and English's `n != 1` for any other.
public struct PluralRule: Sendable {
    let forms: Int
    let oneIsOther: Bool

    init(header: String) {
        let line = header.split(separator: "\n").first { $0.hasPrefix("Plural-Forms:") }.map(String.init) ?? ""
        let count = line.range(of: "nplurals=").map { Int(line[$0.upperBound...].prefix { $0.isNumber }) ?? 2 } ?? 2
        forms = max(1, count)
        oneIsOther = forms == 1
    }

    func form(for count: Int) -> Int { oneIsOther ? 0 : (count == 1 ? 0 : 1) }
}

/// The messages of a `.po` or `.pot` file, as gettext writes them (a subset: comments, msgctxt,
/// msgid, msgid_plural, msgstr, msgstr[N], strings over several lines). Read as bytes: every
/// command reads the catalogue once at start, and a reading by characters cost 25 ms of it.
enum POFile {
    struct Message {
        var line: Int
        var id = ""
        var english = ""
        var plural: String?
        var forms: [String] = []
        var comments: [String] = []
    }

    private enum Field { case context, id, plural, form }

    static func messages(_ text: String, file: String) throws -> [Message] {
        var reader = Reader(file: file)
        for (number, line) in lines(Array(text.utf8)) {
            guard let head = line.first else { continue }
            if head == UInt8(ascii: "#") {
                reader.comment(line)
            } else if head == UInt8(ascii: "\"") {
                try reader.continued(line, number: number)
            } else {
                try reader.keyword(line, number: number)
            }
        }
        reader.finish()
        return reader.messages
    }

    /// Each line with its number, spaces and a CR trimmed off both ends (slices of `bytes`).
    private static func lines(_ bytes: [UInt8]) -> [(Int, ArraySlice<UInt8>)] {
        var lines: [(Int, ArraySlice<UInt8>)] = []
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            var first = start, last = end
            while first < last, bytes[first] == 0x20 || bytes[first] == 0x09 { first += 1 }
            while last > first, bytes[last - 1] == 0x20 || bytes[last - 1] == 0x09 || bytes[last - 1] == 0x0D { last -= 1 }
            lines.append((lines.count + 1, bytes[first..<last]))
            start = end + 1
        }
        return lines
    }

    /// The messages so far, the one being read, and which of its strings a continued line extends.
    private struct Reader {
        let file: String
        var messages: [Message] = []
        var current: Message?
        var comments: [String] = []
        var field: Field?

        init(file: String) { self.file = file }

        mutating func finish() {
            if let done = current { messages.append(done) }
            current = nil
            field = nil
        }

        /// A translator's note (`#.`); other comments are passed over.
        mutating func comment(_ line: ArraySlice<UInt8>) {
            guard line.count >= 2, line[line.startIndex + 1] == UInt8(ascii: ".") else { return }
            var note = line.dropFirst(2)
            while note.first == 0x20 { note = note.dropFirst() }
            comments.append(String(decoding: note, as: UTF8.self))
        }

        /// A string on a line of its own: the rest of the keyword's before it.
        mutating func continued(_ line: ArraySlice<UInt8>, number: Int) throws {
            guard let field, current != nil else {
                throw Catalogue.Failure(file: file, line: number, reason: "a string that continues nothing")
            }
            let more = try unquote(line, file: file, line: number)
            switch field {
            case .context: current!.id += more
            case .id: current!.english += more
            case .plural: current!.plural = (current!.plural ?? "") + more
            case .form: current!.forms[current!.forms.count - 1] += more
            }
        }

        /// `msgctxt`, `msgid`, `msgid_plural` or `msgstr[N]` and its string.
        mutating func keyword(_ line: ArraySlice<UInt8>, number: Int) throws {
            guard let space = line.firstIndex(of: 0x20) else {
                throw Catalogue.Failure(file: file, line: number, reason: "not a gettext line: \(String(decoding: line.prefix(40), as: UTF8.self))")
            }
            let keyword = String(decoding: line[..<space], as: UTF8.self)
            var rest = line[(space + 1)...]
            while let blank = rest.first, blank == 0x20 || blank == 0x09 { rest = rest.dropFirst() }
            let value = try unquote(rest, file: file, line: number)
            switch keyword {
            case "msgctxt":
                begin(Message(line: number, id: value, comments: comments))
                field = .context
            case "msgid":
                // A message without an id of its own: the header (msgid "").
                if current == nil || field == .form { begin(Message(line: number, comments: comments)) }
                current!.english = value
                field = .id
            case "msgid_plural":
                guard current != nil else { throw Catalogue.Failure(file: file, line: number, reason: "msgid_plural before msgid") }
                current!.plural = value
                field = .plural
            default:
                guard keyword.hasPrefix("msgstr"), current != nil else {
                    throw Catalogue.Failure(file: file, line: number, reason: "not a gettext keyword: \(keyword)")
                }
                current!.forms.append(value)
                field = .form
            }
        }

        private mutating func begin(_ message: Message) {
            finish()
            current = message
            comments = []
        }
    }

    /// A C string as gettext writes it: `"…"`, with `\"`, `\\`, `\n` and `\t`.
    fileprivate static func unquote(_ text: ArraySlice<UInt8>, file: String, line: Int) throws -> String {
        guard text.count >= 2, text.first == UInt8(ascii: "\""), text.last == UInt8(ascii: "\"") else {
            throw Catalogue.Failure(file: file, line: line, reason: "a string must be in double quotes")
        }
        let inner = text.dropFirst().dropLast()
        guard inner.contains(UInt8(ascii: "\\")) else { return String(decoding: inner, as: UTF8.self) }
        var result: [UInt8] = []
        result.reserveCapacity(inner.count)
        var escaped = false
        for byte in inner {
            if escaped {
                switch byte {
                case UInt8(ascii: "n"): result.append(0x0A)
                case UInt8(ascii: "t"): result.append(0x09)
                case UInt8(ascii: "r"): result.append(0x0D)
                default: result.append(byte)
                }
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else {
                result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
