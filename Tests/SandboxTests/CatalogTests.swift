import Foundation
import OpenMarketAPI
import Sandbox
import Testing
import TestSupport

@Suite("Reading: health, paged list, search, detail")
struct CatalogTests {
    @Test("GET /healthChecker answers OK as text")
    func health() async throws {
        let sandbox = try await TestSandbox.start()
        let result = try await curl(["\(sandbox.url)/healthChecker"])
        #expect(result.status == 200)
        #expect(result.text == "OK")
        #expect(result.headers["content-type"]?.hasPrefix("text/plain") == true)
        await sandbox.stop()
    }

    @Test("an empty catalog is one empty page")
    func emptyCatalog() async throws {
        let sandbox = try await TestSandbox.start()
        let page = try await curl(["\(sandbox.url)/api/products"]).decode(ProductPage.self)
        #expect(page == ProductPage(pageNo: 1, itemsPerPage: 20, totalCount: 0, offset: 0, limit: 20,
                                    lastPage: 1, hasNext: false, hasPrev: false, pages: []))
        await sandbox.stop()
    }

    @Test("pages are newest first, with correct edges, and search_value matches part of the name")
    func paging() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let image = try files.write(Fixtures.jpeg(width: 32, height: 32), named: "a.jpg")
        let names = ["Green Tea", "녹차 라떼", "MacBook Pro", "Black tea", "green apple"]
        var ids: [Int] = []
        for name in names {
            ids.append(try await Register(sandbox, name: name, images: [image]).send().decode(ProductDetail.self).id)
        }
        let first = try await curl(["\(sandbox.url)/api/products?page_no=1&items_per_page=2"]).decode(ProductPage.self)
        #expect(first.pages.map(\.id) == [ids[4], ids[3]])
        #expect(first.totalCount == 5 && first.lastPage == 3 && first.hasNext && !first.hasPrev)
        #expect(first.offset == 0 && first.limit == 2 && first.itemsPerPage == 2)

        let last = try await curl(["\(sandbox.url)/api/products?page_no=3&items_per_page=2"]).decode(ProductPage.self)
        #expect(last.pages.map(\.id) == [ids[0]])
        #expect(!last.hasNext && last.hasPrev && last.offset == 4)

        let beyond = try await curl(["\(sandbox.url)/api/products?page_no=4&items_per_page=2"]).decode(ProductPage.self)
        #expect(beyond.pages.isEmpty && !beyond.hasNext && beyond.totalCount == 5)

        let tea = try await curl(["\(sandbox.url)/api/products?search_value=TEA"]).decode(ProductPage.self)
        #expect(tea.pages.map(\.name) == ["Black tea", "Green Tea"])
        #expect(tea.totalCount == 2)
        let korean = try await curl(["-G", "--data-urlencode", "search_value=녹차", "\(sandbox.url)/api/products"])
            .decode(ProductPage.self)
        #expect(korean.pages.map(\.name) == ["녹차 라떼"])
        let nothing = try await curl(["\(sandbox.url)/api/products?search_value=zzz"]).decode(ProductPage.self)
        #expect(nothing.pages.isEmpty && nothing.totalCount == 0 && nothing.lastPage == 1)
        await sandbox.stop()
    }

    @Test("bad paging parameters are a 400 that names them", arguments: [
        "page_no=0", "page_no=abc", "items_per_page=0", "items_per_page=501", "items_per_page=-3",
    ])
    func badPaging(_ query: String) async throws {
        let sandbox = try await TestSandbox.start()
        let result = try await curl(["\(sandbox.url)/api/products?\(query)"])
        #expect(result.status == 400)
        #expect(try result.errorMessage().contains(String(query.split(separator: "=")[0])))
        await sandbox.stop()
    }

    @Test("items_per_page up to the cap of 500 is accepted")
    func pageSizeCap() async throws {
        let sandbox = try await TestSandbox.start()
        let page = try await curl(["\(sandbox.url)/api/products?items_per_page=500"]).decode(ProductPage.self)
        #expect(page.itemsPerPage == 500)
        await sandbox.stop()
    }

    @Test("an unknown id or route is a JSON 404")
    func notFound() async throws {
        let sandbox = try await TestSandbox.start()
        for path in ["/api/products/999", "/api/products/abc", "/nowhere", "/images/1.jpg", "/images/..%2Fsandbox.sqlite"] {
            let result = try await curl(["\(sandbox.url)\(path)"])
            #expect(result.status == 404, "\(path)")
            _ = try result.errorMessage()
        }
        await sandbox.stop()
    }
}
