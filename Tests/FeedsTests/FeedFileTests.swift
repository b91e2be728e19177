import Feeds
import Foundation
import Manifest
import Testing

/// A feed file written to a temporary folder, and read.
func feed(_ text: String, named name: String = "acme") throws(FeedFileError) -> Feed {
    try FeedFile.parse(text, url: URL(fileURLWithPath: "/tmp/feeds/\(name).toml"))
}

/// The mistake a feed file's text makes.
func mistake(_ text: String) -> FeedFileError? {
    do {
        _ = try feed(text)
        return nil
    } catch {
        return error
    }
}

let baseColumns = """
    [columns]
    key = "상품코드"
    name = "상품명"
    cost = "공급가"
    stock = "재고수량"

    """

@Suite("Feed files: the keys of the contract, and mistakes named by line and key")
struct FeedFileTests {
    @Test("the committed template is the one `template --format feed` writes, and it reads")
    func template() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let committed = try String(contentsOf: root.appendingPathComponent("templates/feed.toml"), encoding: .utf8)
        #expect(committed == FeedTemplate.text, "run `openmarket template --format feed --out templates/feed.toml`")
        let parsed = try feed(FeedTemplate.text)
        #expect(parsed.columns.map(\.field) == [.key, .name, .description, .stock, .images])
        #expect(parsed.cost == .header("공급가") && parsed.constants == [.currency: "KRW"])
        #expect(parsed.prices?.rules.count == 2 && parsed.filter.skip.first?.values == ["샘플", "단종"])
        #expect(parsed.protected == [.description])
    }

    @Test("a column by number (#3), a map of words, constants")
    func columnsByNumber() throws {
        let parsed = try feed("""
            [columns]
            key = "#1"
            stock = "#3"
            [constants]
            currency = "USD"
            [maps.stock]
            "품절" = 0
            "many" = "100"
            """)
        #expect(parsed.columns.map(\.source) == [.position(0), .position(2)])
        #expect(parsed.maps[.stock]?.entries == ["품절": "0", "many": "100"])
    }

    @Test("an unknown key names the file, its line and the key", arguments: [
        ("[columns]\nkey = \"a\"\nprise = \"b\"\n", 3, "columns.prise", "unknown field"),
        (baseColumns + "[prices]\nmarkup_percent = 30\nrond = \"up\"\n", 8, "prices.rond", "unknown key"),
        (baseColumns + "[prices]\nmarkup_percent = 30\n\n[[prices.rules]]\nwhen = { \"a\" = \"b\" }\nmarkup = 5\n", 11, "prices.rules.markup", "unknown key in rule 1"),
        (baseColumns + "[prices]\nround = \"sideways\"\n", 7, "prices.round", "\"up\", \"down\" or \"nearest\""),
        (baseColumns + "[prices]\nmarkup_percent = \"lots\"\n", 7, "prices.markup_percent", "must be a number"),
        (baseColumns + "[prices]\n[protect]\nfields = [\"colour\"]\n", 8, "protect.fields", "not a product field"),
        (baseColumns + "[prices]\n[filter]\nkeep = { a = \"b\" }\n", 8, "filter.keep", "skip, only, active, ends, why and why_ko"),
        ("[columns]\nkey = \"a\"\n[source]\nurl = \"ftp://x/feed.csv\"\n", 4, "source.url", "http, https or sftp"),
        ("[columns]\nkey = \"a\"\n[checks]\nmax_drop_percent = 130\n", 4, "checks.max_drop_percent", "0 to 100"),
        ("[columns]\nkey = \"a\"\n[sync]\ndelete_missing = \"yes\"\n", 4, "sync.delete_missing", "true or false"),
        ("[columns]\nkey = \"a\"\n[notify]\nslack = \"x\"\n", 4, "notify.slack", "webhook, command"),
        ("[columns]\nkey = \"a\"\n[mail]\nto = \"x\"\n", 3, "[mail]", "unknown section"),
    ])
    func unknownKey(_ text: String, _ line: Int, _ key: String, _ message: String) throws {
        let error = try #require(mistake(text))
        #expect(error.file == "/tmp/feeds/acme.toml")
        #expect(error.line == line, "\(error)")
        #expect(error.key == key, "\(error)")
        #expect(error.message.contains(message), "\(error)")
        #expect(error.description.hasPrefix("/tmp/feeds/acme.toml, line \(line), \(key): "))
    }

    @Test("bad TOML names its line")
    func badTOML() throws {
        let error = try #require(mistake("[columns]\nkey = \"a\"\nname = \n"))
        #expect(error.line == 3 && error.message.contains("not valid TOML"), "\(error)")
    }

    @Test("a table header without a name or a '}' for an array's value is refused with its line (toml++ aborted the process on both); brackets in strings, comments and arrays are not headers")
    func namelessHeader() throws {
        for (text, line) in [("[.columns]\nkey = \"a\"\n", 1), ("[columns]\nkey = \"a\"\n\n[[ \u{FFFD}]]\n", 4), ("[ ]\n", 1), ("\u{FEFF}\t[\t\u{2}]\n", 1), ("[columns]\nkey = '''a'''''\n[[ \u{2}]]\n", 3)] {
            let error = try #require(mistake(text), "\(text)")
            #expect(error.line == line && error.message.contains("a table header needs a name"), "\(error)")
        }
        for (text, line) in [("[filter]\nskip = { \"x\" = [\"a\", }\n", 2), ("[protect]\nfields = [\"a\",\n# c\n}]\n", 4)] {
            let error = try #require(mistake(text), "\(text)")
            #expect(error.line == line && error.message.contains("a '}' where the array expects a value"), "\(error)")
        }
        let fine = """
        # [.not a header]
        [columns]
        key = "[.a]"   # [.b]
        name = '''
        [.c]
        '''
        [filter]
        skip = { "x" = [
          "[.d]",
        ] }
        """
        #expect(mistake(fine) == nil, "\(String(describing: mistake(fine)))")
    }

    @Test("a bare value other than a number or true/false is refused with its line (toml++ aborted on '1972-05-26T(7' and '4--0--'); digits in keys, numbers and quoted dates are fine")
    func datesAndTimes() throws {
        for (text, line) in [("[columns]\nkey = \"a\"\n[prices]\nadd = 1972-05-26T(7:30\n", 4), ("[columns]\nkey = \"a\"\n[constants]\nstock=07:32\n", 4)] {
            let error = try #require(mistake(text), "\(text)")
            #expect(error.line == line && error.message.contains("a date or a time"), "\(error)")
        }
        for (text, line) in [("[columns]\nkey = \"a\"\n[prices]\nadd = 4--0---\n", 4), ("[columns]\nkey = yes\n", 2), ("[protect]\nfields = [0x1F]\n", 2)] {
            let error = try #require(mistake(text), "\(text)")
            #expect(error.line == line && error.message.contains("is not a value a feed file takes"), "\(error)")
        }
        let fine = "[columns]\nkey = \"sku2024-01-01\"\nname = \"#2\"\ncost = \"c\"\nstock = \"s\"\n[prices]\nmarkup_percent = 2024\nadd = 1e-5\n[maps.stock]\n\"2024-05-01\" = 0\n"
        #expect(mistake(fine) == nil, "\(String(describing: mistake(fine)))")
    }

    @Test("what the parts say together: cost needs [prices], cost and price not both, an identity, a rule with a condition")
    func consistency() throws {
        #expect(mistake("[columns]\nkey = \"a\"\ncost = \"b\"\n")?.message.contains("a cost needs [prices]") == true)
        #expect(mistake("[columns]\nkey = \"a\"\ncost = \"b\"\nprice = \"c\"\n[prices]\n")?.message.contains("not both") == true)
        #expect(mistake("[columns]\nstock = \"a\"\n")?.message.contains("which product a row is") == true)
        #expect(mistake("[columns]\nkey = \"a\"\nprice = \"b\"\n[prices]\nmarkup_percent = 3\n")?.message.contains("map it in [columns]") == true)
        let rule = try #require(mistake(baseColumns + "[prices]\n[[prices.rules]]\nmarkup_percent = 5\n"))
        #expect(rule.message.contains("no condition") && rule.line == 7, "\(rule)")
        #expect(mistake("[columns]\nkey = \"a\"\n[constants]\nkey = \"x\"\n")?.key == "constants.key")
        #expect(mistake("[columns]\nkey = \"a\"\n[maps.stock]\n\"품절\" = 0\n")?.message.contains("does not map") == true)
    }

    @Test("feed run's sections: source (url or path), target, sync, checks, notify, keep_reports")
    func runSections() throws {
        let parsed = try feed("""
            keep_reports = 14
            [columns]
            key = "상품코드"
            [source]
            url = "sftp://shop:pa55word@supplier.example/out/feed.xlsx"
            key_file = "/keys/supplier"
            [target]
            profile = "shop"
            [sync]
            delete_missing = true
            max_deletes = 10
            [checks]
            min_rows = 3
            max_drop_percent = 30
            max_changed_percent = 50
            [notify]
            webhook = "https://hooks.example/T1"
            command = "mail -s openmarket ops@example"
            """)
        let run = parsed.run
        #expect(run.source == .url("sftp://shop:pa55word@supplier.example/out/feed.xlsx", keyFile: "/keys/supplier", knownHosts: nil))
        #expect(run.source?.display == "sftp://shop@supplier.example/out/feed.xlsx", "a password is never shown")
        #expect(run.profile == "shop" && run.deleteMissing && run.maxDeletes == 10 && run.keepReports == 14)
        #expect(run.checks == FeedChecks(minRows: 3, maxDropPercent: 30, maxChangedPercent: 50))
        #expect(run.notify == FeedNotify(webhook: "https://hooks.example/T1", command: "mail -s openmarket ops@example"))
        let dropped = try feed("[columns]\nkey = \"a\"\n[source]\npath = \"/srv/drop/feed.xlsx\"\n")
        #expect(dropped.run.source == .path("/srv/drop/feed.xlsx", settle: 5))
        #expect(mistake("[columns]\nkey = \"a\"\n[source]\npath = \"/x\"\nurl = \"https://x\"\n")?.message.contains("give one of") == true)
    }

    @Test("a feed is found by name in the feeds folder, or by path")
    func locate() {
        let folder = URL(fileURLWithPath: "/home/m/.config/openmarket/feeds")
        #expect(FeedFile.locate("acme", feedsFolder: folder).path == "/home/m/.config/openmarket/feeds/acme.toml")
        #expect(FeedFile.locate("./acme.toml", feedsFolder: folder).lastPathComponent == "acme.toml")
        #expect(FeedFile.locate("/srv/feeds/x.toml", feedsFolder: folder).path == "/srv/feeds/x.toml")
        let missing = #expect(throws: FeedFileError.self) { try FeedFile.load(URL(fileURLWithPath: "/nonexistent/acme.toml")) }
        #expect(missing?.message.contains("no such feed file") == true)
    }
}
