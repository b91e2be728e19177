import Feeds
import Foundation
import Manifest
import Testing

/// The selling price a feed makes of one supplier row (`cells` by header), read from a real
/// CSV file through the feed: the price as text, and how it was made.
func priced(_ feedText: String, cost: String, cells: [String: String] = [:], currency: String? = nil) throws -> (price: String?, how: String?) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feed-price-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let extra = cells.keys.sorted()
    var header = ["상품코드", "상품명", "공급가"] + extra
    var row = ["A-1", "녹차 티백", "\"\(cost)\""] + extra.map { cells[$0]! }
    if let currency { header.append("통화"); row.append(currency) }
    let file = folder.appendingPathComponent("supplier.csv")
    try Data((header.joined(separator: ",") + "\n" + row.joined(separator: ",") + "\n").utf8).write(to: file)
    var options = ValidationOptions()
    options.checkImageFiles = false
    let columns = currency == nil ? "" : "currency = \"통화\"\n"
    options.mapping = FeedMapping(feed: try feed("[columns]\nkey = \"상품코드\"\nname = \"상품명\"\ncost = \"공급가\"\n" + columns + feedText))
    var result: (String?, String?) = (nil, nil)
    _ = try ManifestCheck.run(file, options: options, onFileIssue: { _ in }) { raw, _, _ in
        result = (raw.values[.price], raw.origin?.explanations[.price])
    }
    return result
}

@Suite("Prices from costs: Decimal from the cell to the request, rules in order")
struct PricePolicyTests {
    @Test("8,200 × 1.30 = 10,660 → 10,700 (up to 100), never 10,659.999")
    func markupRoundedUp() throws {
        let (price, how) = try priced("[prices]\nmarkup_percent = 30\nround_to = 100\nround = \"up\"\n", cost: "8,200")
        #expect(price == "10700")
        #expect(how == "cost 8,200, markup 30 %, up to 100")
    }

    @Test("a cost is said with its thousands grouped and its decimals as written", arguments: [
        ("7", "KRW", "cost 7"), ("999", "KRW", "cost 999"), ("1000", "KRW", "cost 1,000"), ("123456", "KRW", "cost 123,456"),
        ("1,234,567", "KRW", "cost 1,234,567"), ("12345678901", "KRW", "cost 12,345,678,901"), ("1234.5", "USD", "cost 1,234.5"),
        ("0.99", "USD", "cost 0.99"), ("1000000.05", "USD", "cost 1,000,000.05"),
    ])
    func costGrouped(cost: String, currency: String, said: String) throws {
        let (_, how) = try priced("[prices]\nmarkup_percent = 30\n", cost: cost, currency: currency)
        #expect(how == "\(said), markup 30 %")
    }

    @Test("rounding up, down and to the nearest multiple", arguments: [
        ("up", "10660", "10700"), ("down", "10660", "10600"), ("nearest", "10660", "10700"),
        ("nearest", "10649", "10600"), ("nearest", "10650", "10700"), ("up", "10600", "10600"),
    ])
    func rounding(_ mode: String, _ cost: String, _ expected: String) throws {
        let (price, _) = try priced("[prices]\nround_to = 100\nround = \"\(mode)\"\n", cost: cost)
        #expect(price == expected)
    }

    @Test("rounding to 500 and to 10 (not only powers of ten)")
    func oddSteps() throws {
        #expect(try priced("[prices]\nmarkup_percent = 30\nround_to = 500\nround = \"up\"\n", cost: "8200").price == "11000")
        #expect(try priced("[prices]\nmarkup_percent = 12.5\nround_to = 10\nround = \"down\"\n", cost: "7,777").price == "8740")
    }

    @Test("a fixed amount added after the markup; the cell's ₩, 원 and thousands separators")
    func added() throws {
        let (price, how) = try priced("[prices]\nmarkup_percent = 10\nadd = 500\nround_to = 100\n", cost: "₩12,000")
        #expect(price == "13700" && how == "cost 12,000, markup 10 %, + 500, to the nearest 100")
        #expect(try priced("[prices]\nmarkup_percent = 10\n", cost: "4,350원").price == "4785")
    }

    @Test("the minimum margin raises a price below it, rounded up")
    func minimumMargin() throws {
        let (price, how) = try priced("[prices]\nmarkup_percent = 5\nround_to = 100\nmin_margin_percent = 10\n", cost: "10,050")
        // 10,050 × 1.05 = 10,552.5 → 10,600; the floor 10,050 × 1.10 = 11,055 → 11,100.
        #expect(price == "11100")
        #expect(how == "cost 10,050, markup 5 %, to the nearest 100, raised to the 10 % minimum margin")
        #expect(try priced("[prices]\nmarkup_percent = 30\nmin_margin_percent = 10\n", cost: "10000").price == "13000")
    }

    @Test("rules in order: the first that matches replaces only the settings it names")
    func rulesInOrder() throws {
        let rules = """
            [prices]
            markup_percent = 30
            round_to = 100
            round = "up"
            [[prices.rules]]
            when = { "카테고리" = "가전" }
            markup_percent = 15
            [[prices.rules]]
            cost_below = 2000
            markup_percent = 0
            add = 800
            [[prices.rules]]
            when = { "카테고리" = ["식품", "음료"], "브랜드" = "오설록" }
            round = "down"
            """
        let appliance = try priced(rules, cost: "31,000", cells: ["카테고리": "가전", "브랜드": "x"])
        #expect(appliance.price == "35700" && appliance.how == "cost 31,000, markup 15 %, up to 100, rule 1 (카테고리 = 가전)")
        // Cheap and an appliance: rule 1 comes first.
        #expect(try priced(rules, cost: "1,500", cells: ["카테고리": "가전", "브랜드": "x"]).price == "1800")
        let cheap = try priced(rules, cost: "1,500", cells: ["카테고리": "주방", "브랜드": "x"])
        #expect(cheap.price == "2300" && cheap.how?.hasSuffix("rule 2 (cost < 2,000)") == true, "\(cheap)")
        // Both tests of rule 3 must match; its markup is the default's, its rounding its own.
        #expect(try priced(rules, cost: "8,250", cells: ["카테고리": "음료", "브랜드": "오설록"]).price == "10700")
        #expect(try priced(rules, cost: "8,250", cells: ["카테고리": "음료", "브랜드": "x"]).price == "10800")
    }

    @Test("dollars go to the cent without round_to; decimals stay exact")
    func cents() throws {
        #expect(try priced("[prices]\nmarkup_percent = 17\n", cost: "12.99", currency: "USD").price == "15.2")
        #expect(try priced("[prices]\nmarkup_percent = 10\n", cost: "0.30", currency: "USD").price == "0.33")
        #expect(try priced("[prices]\nmarkup_percent = 33.3\nround_to = 0.05\nround = \"up\"\n", cost: "3.00", currency: "USD").price == "4")
    }
}
