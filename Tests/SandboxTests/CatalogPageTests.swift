import Foundation
import OpenMarketAPI
import Sandbox
import Testing
import TestSupport

@Suite("The sandbox's catalog pages")
struct CatalogPageTests {
    /// The `<li class="item" id="pN">` ids of a page, in order.
    func itemIDs(_ html: String) -> [Int] {
        html.components(separatedBy: "<li class=\"item\" id=\"p").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
    }

    func page(_ sandbox: TestSandbox, _ path: String) async throws -> CurlResult {
        try await curl(["\(sandbox.url)\(path)"])
    }

    @Test("an empty catalog says how to fill it")
    func empty() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let result = try await page(sandbox, "/")
        #expect(result.status == 200 && result.headers["content-type"] == "text/html; charset=utf-8")
        #expect(result.text.contains("No products yet") && result.text.contains("<meta charset=\"utf-8\">"))
        #expect(itemIDs(result.text).isEmpty && !result.text.contains("rel=\"next\""))
    }

    @Test("newest first, 20 a page, next/previous links, the fragment for endless scrolling")
    func paging() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let ids = try await seed(sandbox, sandbox.demo, count: 45)
        let newestFirst = Array(ids.reversed())

        let first = try await page(sandbox, "/")
        #expect(itemIDs(first.text) == Array(newestFirst[0..<20]))
        #expect(first.text.contains("href=\"/?view=grid&amp;page=2\" rel=\"next\""), "\(first.text.suffix(3000))")
        #expect(!first.text.contains("rel=\"prev\"") && first.text.contains("45 products") && first.text.contains("page 1 of 3"))
        #expect(first.text.contains("<body class=\"view-grid\">"))

        let last = try await page(sandbox, "/?view=grid&page=3")
        #expect(itemIDs(last.text) == Array(newestFirst[40..<45]))
        #expect(last.text.contains("href=\"/?view=grid&amp;page=2\" rel=\"prev\"") && !last.text.contains("rel=\"next\""))

        // What the script fetches as the user scrolls: the items alone, and where to go next.
        let fragment = try await page(sandbox, "/?view=grid&page=2&fragment=1")
        #expect(itemIDs(fragment.text) == Array(newestFirst[20..<40]))
        #expect(!fragment.text.contains("<html") && fragment.headers["x-next-page"] == "/?view=grid&page=3")
        let end = try await page(sandbox, "/?page=3&fragment=1")
        #expect(end.headers["x-next-page"] == nil && itemIDs(end.text).count == 5)

        // A page past the end is empty, not an error; nonsense page numbers read as page 1.
        #expect(itemIDs(try await page(sandbox, "/?page=9").text).isEmpty)
        #expect(itemIDs(try await page(sandbox, "/?page=-4").text) == Array(newestFirst[0..<20]))

        // List view: same items, another layout; the toggle keeps page and position.
        let list = try await page(sandbox, "/?view=list&page=2")
        #expect(list.text.contains("<body class=\"view-list\">") && itemIDs(list.text) == Array(newestFirst[20..<40]))
        #expect(list.text.contains("href=\"/?view=grid&amp;page=2#p\(newestFirst[20])\" data-view=\"grid\""))
    }

    @Test("product text is escaped; Korean is served as UTF-8; discounts and sold out as the apps show them")
    func escapingAndPrices() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let files = try Scratch()
        defer { files.cleanup() }
        let image = try files.write(Fixtures.jpeg(width: 32, height: 24), named: "a.jpg")
        var hostile = Register(sandbox, name: "<script>alert(1)</script>", price: 10000, images: [image])
        hostile.params["description"] = "<img src=x onerror=alert(2)> & \"quotes\""
        hostile.params["discounted_price"] = 1000
        let hostileID = try await hostile.send().decode(ProductDetail.self).id
        var korean = Register(sandbox, name: "보성 녹차 라떼", price: 12.5, images: [image, image])
        korean.params["currency"] = "USD"
        korean.params["stock"] = 0
        let koreanID = try await korean.send().decode(ProductDetail.self).id

        let html = try await page(sandbox, "/").text
        #expect(!html.contains("<script>alert(1)") && html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("<del class=\"original\">₩10,000</del> <span class=\"bargain\">₩9,000</span> <span class=\"off\">10% off</span>"))
        #expect(html.contains("보성 녹차 라떼") && html.contains("$12.50"))
        let soldOut = html.components(separatedBy: "id=\"p\(koreanID)\"")[1].components(separatedBy: "</li>")[0]
        #expect(soldOut.contains("품절") && soldOut.contains("sold-out"))
        let inStock = html.components(separatedBy: "id=\"p\(hostileID)\"")[1].components(separatedBy: "</li>")[0]
        #expect(inStock.contains("잔여수량 1") && !inStock.contains("품절"))

        let detail = try await page(sandbox, "/products/\(hostileID)").text
        #expect(!detail.contains("<img src=x") && detail.contains("&lt;img src=x onerror=alert(2)&gt; &amp; &quot;quotes&quot;"))
        #expect(!detail.contains("<title><script>") && detail.contains("<title>&lt;script&gt;"))
    }

    @Test("search keeps its words in every link; the detail page shows every original photo")
    func searchAndDetail() async throws {
        let sandbox = try await TestSandbox.start()
        defer { Task { await sandbox.stop() } }
        let files = try Scratch()
        defer { files.cleanup() }
        let photos = try (1...3).map { try files.write(Fixtures.jpeg(width: 40, height: 30, seed: UInt64($0)), named: "\($0).jpg") }
        var ids: [Int] = []
        for name in ["Green Tea", "녹차 라떼", "Black tea", "Oolong + milk"] {
            ids.append(try await Register(sandbox, name: name, images: photos).send().decode(ProductDetail.self).id)
        }
        let tea = try await page(sandbox, "/?search=tea&view=list").text
        #expect(itemIDs(tea) == [ids[2], ids[0]] && tea.contains("2 products matching “tea”"))
        #expect(tea.contains("value=\"tea\"") && tea.contains("href=\"/?view=grid&amp;search=tea#p\(ids[2])\""))
        let korean = try await page(sandbox, "/?search=%EB%85%B9%EC%B0%A8").text
        #expect(itemIDs(korean) == [ids[1]])
        let plus = try await page(sandbox, "/?search=Oolong%20%2B").text
        #expect(itemIDs(plus) == [ids[3]])
        #expect(try await page(sandbox, "/?search=nothing-like-this").text.contains("Nothing matches"))

        let result = try await page(sandbox, "/products/\(ids[1])")
        #expect(result.status == 200)
        let api = try await curl(["\(sandbox.url)/api/products/\(ids[1])"]).decode(ProductDetail.self)
        for image in api.images ?? [] {
            let path = URL(string: image.url)!.path
            #expect(result.text.contains("<img src=\"\(path)\""))
            #expect(try await curl(["\(sandbox.url)\(path)"]).status == 200)
        }
        #expect(result.text.contains("1 / 3") && result.text.contains("3 / 3") && result.text.contains("demo-shop"))
        #expect(result.text.contains("A product made by a test"))

        let missing = try await page(sandbox, "/products/999999")
        #expect(missing.status == 404 && missing.text.contains("There is no product 999999"))
        #expect(try await page(sandbox, "/products/%3Cb%3E").text.contains("There is no product &lt;b&gt;"))
    }
}
