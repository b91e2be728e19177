import Foundation
import ImagePrep
import OpenMarketAPI
import Sandbox
import Testing
import TestSupport

@Suite("Register: POST /api/products")
struct RegisterTests {
    @Test("curl -F params=...;type=application/json -F images=@a.jpg creates a product")
    func registerWithCurlForm() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let big = try Fixtures.jpeg(width: 1200, height: 900, quality: 50)
        try #require(big.count <= 307_200)
        let a = try files.write(big, named: "a.jpg")
        let b = try files.write(Fixtures.png(), named: "b.png")
        var request = Register(sandbox, name: "맥북 프로 14 M1", price: 1_800_000, images: [a, b])
        request.params["discounted_price"] = 50_000
        request.params["stock"] = 2
        request.params["currency"] = "krw"
        let result = try await request.send()
        #expect(result.status == 201, "\(result.text)")
        let detail = try result.decode(ProductDetail.self)
        #expect(detail.summary.name == "맥북 프로 14 M1")
        #expect(detail.summary.price == 1_800_000)
        #expect(detail.summary.discountedPrice == 50_000)
        #expect(detail.summary.bargainPrice == 1_750_000)
        #expect(detail.summary.currency == "KRW")
        #expect(detail.summary.stock == 2)
        #expect(detail.summary.vendorId == sandbox.demo.id)
        #expect(detail.vendors == VendorInfo(id: sandbox.demo.id, name: sandbox.demo.name))
        let images = try #require(detail.images)
        #expect(images.count == 2)
        #expect(detail.summary.thumbnail == images[0].thumbnailURL)

        // The original is served byte for byte at its url.
        let original = try await curl([images[0].url])
        #expect(original.status == 200)
        #expect(original.headers["content-type"] == "image/jpeg")
        #expect(Array(original.body) == big)

        // The JPEG thumbnail is a smaller JPEG made by TurboJPEG.
        let thumbnail = try await curl([images[0].thumbnailURL])
        #expect(thumbnail.status == 200)
        let header = try JPEGCodec().header(of: Array(thumbnail.body))
        #expect(max(header.width, header.height) == 360)
        #expect(header.width == 360 && header.height == 270)

        // A PNG serves as its own thumbnail.
        let pngThumbnail = try await curl([images[1].thumbnailURL])
        #expect(pngThumbnail.status == 200)
        #expect(Array(pngThumbnail.body) == Fixtures.png())
        #expect(pngThumbnail.headers["content-type"] == "image/png")

        // The detail endpoint answers the same thing.
        let fetched = try await curl(["\(sandbox.url)/api/products/\(detail.id)"]).decode(ProductDetail.self)
        #expect(fetched == detail)
        await sandbox.stop()
    }

    @Test("the wire format uses the contract's keys: snake_case products, URLs under the address used")
    func wireKeys() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let image = try files.write(Fixtures.jpeg(width: 64, height: 64), named: "a.jpg")
        let created = try await Register(sandbox, images: [image]).send()
        let object = try created.json()
        for key in ["id", "vendor_id", "vendorName", "name", "description", "thumbnail", "currency", "price",
                    "bargain_price", "discounted_price", "stock", "created_at", "issued_at", "images", "vendors"] {
            #expect(object[key] != nil, "missing key \(key)")
        }
        let created_at = try #require(object["created_at"] as? String)
        #expect(OpenMarketTimestamp.parse(created_at) != nil)
        let imageObject = try #require((object["images"] as? [[String: Any]])?.first)
        #expect(Set(imageObject.keys) == ["id", "url", "thumbnail_url", "issued_at"])

        // URLs name the address the client used (the Host header) ...
        let id = try #require(object["id"] as? Int)
        let viaOtherName = try await curl(["-H", "Host: shop.example:8443", "\(sandbox.url)/api/products/\(id)"])
        let detail = try viaOtherName.decode(ProductDetail.self)
        #expect(detail.images?.first?.url.hasPrefix("http://shop.example:8443/images/") == true)
        // ... unless that header is not a plausible host name.
        let hostile = try await curl(["-H", "Host: evil/<script>", "\(sandbox.url)/api/products/\(id)"])
        let safe = try hostile.decode(ProductDetail.self)
        #expect(safe.summary.thumbnail.hasPrefix("http://127.0.0.1:") == true)
        await sandbox.stop()
    }

    struct BadParams: CustomTestStringConvertible, Sendable {
        var label: String
        var change: @Sendable (inout [String: Any]) -> Void
        var field: String
        var testDescription: String { label }
    }

    static let badParams: [BadParams] = [
        .init(label: "name of 2 characters", change: { $0["name"] = "ab" }, field: "name"),
        .init(label: "name of 2 Korean characters", change: { $0["name"] = "가나" }, field: "name"),
        .init(label: "name of 101 characters", change: { $0["name"] = String(repeating: "x", count: 101) }, field: "name"),
        .init(label: "name of spaces around 2 characters", change: { $0["name"] = "   ab   " }, field: "name"),
        .init(label: "description of 1,001 characters", change: { $0["description"] = String(repeating: "설", count: 1001) }, field: "description"),
        .init(label: "negative price", change: { $0["price"] = -1 }, field: "price"),
        .init(label: "price as text", change: { $0["price"] = "12000" }, field: "price"),
        .init(label: "discount over price", change: { $0["price"] = 1000; $0["discounted_price"] = 1001 }, field: "discounted_price"),
        .init(label: "negative discount", change: { $0["discounted_price"] = -5 }, field: "discounted_price"),
        .init(label: "unknown currency", change: { $0["currency"] = "EUR" }, field: "currency"),
        .init(label: "negative stock", change: { $0["stock"] = -1 }, field: "stock"),
        .init(label: "fractional stock", change: { $0["stock"] = 1.5 }, field: "stock"),
        .init(label: "missing name", change: { $0.removeValue(forKey: "name") }, field: "name"),
        .init(label: "missing price", change: { $0.removeValue(forKey: "price") }, field: "price"),
        .init(label: "misspelt field", change: { $0["discountedPrice"] = 100 }, field: "discountedPrice"),
        .init(label: "missing secret", change: { $0.removeValue(forKey: "secret") }, field: "secret"),
    ]

    @Test("each rule's failure is a 400 that names the field", arguments: badParams)
    func ruleFailures(_ bad: BadParams) async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        var request = Register(sandbox, images: [try files.write(Fixtures.jpeg(width: 32, height: 32), named: "a.jpg")])
        bad.change(&request.params)
        let result = try await request.send()
        #expect(result.status == 400, "\(result.text)")
        let message = try result.errorMessage()
        #expect(message.contains(bad.field), "message should name \(bad.field): \(message)")
        let list = try await curl(["\(sandbox.url)/api/products"]).decode(ProductPage.self)
        #expect(list.totalCount == 0)
        await sandbox.stop()
    }

    @Test("names are counted in characters as a person sees them")
    func characterCounting() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let image = try files.write(Fixtures.jpeg(width: 32, height: 32), named: "a.jpg")
        // 3 graphemes (each 👍🏽 is 2 scalars), 3 Hangul syllables, 100 Hangul syllables.
        for name in ["👍🏽👍🏽👍🏽", "가나다", String(repeating: "한", count: 100), "  abc  "] {
            let result = try await Register(sandbox, name: name, images: [image]).send()
            #expect(result.status == 201, "\(name): \(result.text)")
            if name == "  abc  " { #expect(try result.decode(ProductDetail.self).summary.name == "abc") }
        }
        await sandbox.stop()
    }

    @Test("image rules: count, size limit, content not file name")
    func imageRules() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let small = try files.write(Fixtures.jpeg(width: 32, height: 32), named: "a.jpg")

        let none = try await Register(sandbox, images: []).send()
        #expect(none.status == 400)
        #expect(try none.errorMessage().contains("images"))

        let six = try await Register(sandbox, images: Array(repeating: small, count: 6)).send()
        #expect(six.status == 400)
        #expect(try six.errorMessage().contains("at most 5"))

        let five = try await Register(sandbox, images: Array(repeating: small, count: 5)).send()
        #expect(five.status == 201)
        #expect(try five.decode(ProductDetail.self).images?.count == 5)

        let over = try files.write(Fixtures.jpeg(exactly: 307_201), named: "over.jpg")
        let tooLarge = try await Register(sandbox, images: [over]).send()
        #expect(tooLarge.status == 413)
        let message = try tooLarge.errorMessage()
        #expect(message.contains("over.jpg") && message.contains("307201") && message.contains("307200"), "\(message)")

        let atLimit = try files.write(Fixtures.jpeg(exactly: 307_200), named: "limit.jpg")
        #expect(try await Register(sandbox, images: [atLimit]).send().status == 201)

        let pngNamedJPEG = try files.write(Fixtures.png(), named: "photo.jpg")
        let png = try await Register(sandbox, images: [pngNamedJPEG]).send()
        #expect(png.status == 201, "\(png.text)")
        #expect(try png.decode(ProductDetail.self).images?.first?.url.hasSuffix(".png") == true)

        let textNamedJPEG = try files.write(Array("this is not a photo\n".utf8), named: "notes.jpg")
        let text = try await Register(sandbox, images: [small, textNamedJPEG]).send()
        #expect(text.status == 400)
        #expect(try text.errorMessage().contains("images[2] 'notes.jpg'"))

        let page = try await curl(["\(sandbox.url)/api/products"]).decode(ProductPage.self)
        #expect(page.totalCount == 3)
        await sandbox.stop()
    }

    @Test("params must be a JSON part with Content-Type application/json")
    func paramsPart() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let image = try files.write(Fixtures.jpeg(width: 32, height: 32), named: "a.jpg")
        var plain = Register(sandbox, images: [image])
        plain.paramsType = "text/plain"
        let wrongType = try await plain.send()
        #expect(wrongType.status == 400)
        #expect(try wrongType.errorMessage().contains("application/json"))

        let malformed = try await Register(sandbox, images: [image]).send(rawParams: "{\"name\": ")
        #expect(malformed.status == 400)
        #expect(try malformed.errorMessage().contains("not valid JSON"))

        let array = try await Register(sandbox, images: [image]).send(rawParams: "[1,2]")
        #expect(array.status == 400)

        let notMultipart = try await curl(["-H", "identifier: \(sandbox.demo.identifier)", "-H", "Content-Type: application/json",
                                     "-d", "{}", "\(sandbox.url)/api/products"])
        #expect(notMultipart.status == 400)
        #expect(try notMultipart.errorMessage().contains("multipart/form-data"))

        let unknownPart = try await curl(["-H", "identifier: \(sandbox.demo.identifier)", "-F", "photo=@\(image)",
                                    "\(sandbox.url)/api/products"])
        #expect(unknownPart.status == 400)
        #expect(try unknownPart.errorMessage().contains("photo"))
        await sandbox.stop()
    }
}
