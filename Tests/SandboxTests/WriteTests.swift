import Foundation
import OpenMarketAPI
import Sandbox
import Testing
import TestSupport

@Suite("Writing: auth, edit, delete")
struct WriteTests {
    /// A sandbox with one product of the demo vendor (two images).
    func withProduct(_ body: (TestSandbox, ProductDetail) async throws -> Void) async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let a = try files.write(Fixtures.jpeg(width: 500, height: 400, seed: 1), named: "a.jpg")
        let b = try files.write(Fixtures.jpeg(width: 400, height: 500, seed: 2), named: "b.jpg")
        let created = try await Register(sandbox, name: "Original name", price: 10_000, images: [a, b]).send()
        try #require(created.status == 201, "\(created.text)")
        try await body(sandbox, try created.decode(ProductDetail.self))
        await sandbox.stop()
    }

    func patch(_ sandbox: TestSandbox, _ id: Int, _ body: [String: Any], identifier: String) async throws -> CurlResult {
        try await curl(["-X", "PATCH", "-H", "identifier: \(identifier)", "-H", "Content-Type: application/json",
                  "-d", try jsonBody(body), "\(sandbox.url)/api/products/\(id)"])
    }

    @Test("register: no identifier or an unknown one is 401, a wrong secret 403")
    func registerAuth() async throws {
        let sandbox = try await TestSandbox.start()
        let files = try Scratch()
        defer { files.cleanup() }
        let image = try files.write(Fixtures.jpeg(width: 32, height: 32), named: "a.jpg")
        let noHeader = try await curl(["-F", "params={};type=application/json", "-F", "images=@\(image)", "\(sandbox.url)/api/products"])
        #expect(noHeader.status == 401)
        #expect(try noHeader.errorMessage().contains("identifier"))
        let unknown = try await Register(sandbox, images: [image]).send(identifier: "00000000-0000-0000-0000-000000000000")
        #expect(unknown.status == 401)
        var wrong = Register(sandbox, images: [image])
        wrong.params["secret"] = "not-the-secret"
        let forbidden = try await wrong.send()
        #expect(forbidden.status == 403)
        #expect(try forbidden.errorMessage().contains("secret"))
        // The other vendor's identifier with the demo vendor's secret is refused too.
        let crossed = try await Register(sandbox, images: [image]).send(identifier: sandbox.other.identifier)
        #expect(crossed.status == 403)
        #expect(try await curl(["\(sandbox.url)/api/products"]).decode(ProductPage.self).totalCount == 0)
        await sandbox.stop()
    }

    @Test("edit changes the given fields, keeps the others, and can choose the thumbnail")
    func edit() async throws {
        try await withProduct { sandbox, product in
            let result = try await patch(sandbox, product.id, [
                "secret": sandbox.demo.secret, "name": "New name", "price": 9000, "discounted_price": 1000,
                "stock": 7, "currency": "usd", "description": "edited", "thumbnail_id": product.images![1].id,
            ], identifier: sandbox.demo.identifier)
            #expect(result.status == 200, "\(result.text)")
            let edited = try result.decode(ProductDetail.self)
            #expect(edited.summary.name == "New name")
            #expect(edited.summary.price == 9000 && edited.summary.discountedPrice == 1000 && edited.summary.bargainPrice == 8000)
            #expect(edited.summary.stock == 7 && edited.summary.currency == "USD" && edited.summary.description == "edited")
            #expect(edited.summary.thumbnail == product.images![1].thumbnailURL)
            #expect(edited.summary.createdAt == product.summary.createdAt)
            #expect(edited.summary.issuedAt >= product.summary.issuedAt)
            #expect(edited.images == product.images)

            let partial = try await patch(sandbox, product.id, ["secret": sandbox.demo.secret, "stock": 0],
                                    identifier: sandbox.demo.identifier).decode(ProductDetail.self)
            #expect(partial.summary.name == "New name" && partial.summary.stock == 0)

            let listed = try await curl(["\(sandbox.url)/api/products"]).decode(ProductPage.self)
            #expect(listed.pages.first?.name == "New name")
        }
    }

    @Test("edit applies the same rules to the merged product")
    func editRules() async throws {
        try await withProduct { sandbox, product in
            let cases: [([String: Any], Int, String)] = [
                (["discounted_price": 20_000], 400, "discounted_price"),
                (["price": 5], 400, "discounted_price") ,
                (["name": "x"], 400, "name"),
                (["currency": "EUR"], 400, "currency"),
                (["thumbnail_id": 99_999], 400, "thumbnail_id"),
                (["images": []], 400, "images"),
                (["stock": "many"], 400, "stock"),
            ]
            // Make the discount non-zero first so that lowering the price breaks the rule.
            _ = try await patch(sandbox, product.id, ["secret": sandbox.demo.secret, "discounted_price": 100],
                          identifier: sandbox.demo.identifier)
            for (change, status, field) in cases {
                var body = change
                body["secret"] = sandbox.demo.secret
                let result = try await patch(sandbox, product.id, body, identifier: sandbox.demo.identifier)
                #expect(result.status == status, "\(change): \(result.text)")
                #expect(try result.errorMessage().contains(field), "\(change)")
            }
            let malformed = try await curl(["-X", "PATCH", "-H", "identifier: \(sandbox.demo.identifier)", "-d", "{not json",
                                      "\(sandbox.url)/api/products/\(product.id)"])
            #expect(malformed.status == 400)
            let unchanged = try await curl(["\(sandbox.url)/api/products/\(product.id)"]).decode(ProductDetail.self)
            #expect(unchanged.summary.name == "Original name" && unchanged.summary.price == 10_000)
        }
    }

    @Test("only the owner may edit, ask for the delete key, or delete")
    func ownership() async throws {
        try await withProduct { sandbox, product in
            let other = sandbox.other
            let edit = try await patch(sandbox, product.id, ["secret": other.secret, "name": "Stolen"], identifier: other.identifier)
            #expect(edit.status == 403)
            #expect(try edit.errorMessage().contains("another vendor"))
            let key = try await curl(["-X", "POST", "-H", "identifier: \(other.identifier)", "-d", try jsonBody(["secret": other.secret]),
                                "\(sandbox.url)/api/products/\(product.id)/archived"])
            #expect(key.status == 403)
            let delete = try await curl(["-X", "DELETE", "-H", "identifier: \(other.identifier)",
                                   "\(sandbox.url)/api/products/\(product.id)/anything"])
            #expect(delete.status == 403)
            let wrongSecret = try await patch(sandbox, product.id, ["secret": "nope", "name": "Stolen"], identifier: sandbox.demo.identifier)
            #expect(wrongSecret.status == 403)
            let noIdentifier = try await curl(["-X", "PATCH", "-d", try jsonBody(["secret": sandbox.demo.secret]),
                                         "\(sandbox.url)/api/products/\(product.id)"])
            #expect(noIdentifier.status == 401)
            let unknown = try await patch(sandbox, 999, ["secret": sandbox.demo.secret, "name": "Ghost"], identifier: sandbox.demo.identifier)
            #expect(unknown.status == 404)
            let still = try await curl(["\(sandbox.url)/api/products/\(product.id)"]).decode(ProductDetail.self)
            #expect(still.summary.name == "Original name")
        }
    }

    @Test("delete: ask for the key, a wrong key is 404, the right one removes product and files")
    func delete() async throws {
        try await withProduct { sandbox, product in
            let demo = sandbox.demo
            let wrongSecret = try await curl(["-X", "POST", "-H", "identifier: \(demo.identifier)", "-d", try jsonBody(["secret": "x"]),
                                        "\(sandbox.url)/api/products/\(product.id)/archived"])
            #expect(wrongSecret.status == 403)
            let keyResult = try await curl(["-X", "POST", "-H", "identifier: \(demo.identifier)", "-d", try jsonBody(["secret": demo.secret]),
                                      "\(sandbox.url)/api/products/\(product.id)/archived"])
            #expect(keyResult.status == 200)
            let key = keyResult.text
            #expect(!key.isEmpty && !key.contains("{"))

            let wrongKey = try await curl(["-X", "DELETE", "-H", "identifier: \(demo.identifier)",
                                     "\(sandbox.url)/api/products/\(product.id)/not-the-key"])
            #expect(wrongKey.status == 404)
            #expect(try await curl(["\(sandbox.url)/api/products/\(product.id)"]).status == 200)

            let deleted = try await curl(["-X", "DELETE", "-H", "identifier: \(demo.identifier)",
                                    "\(sandbox.url)/api/products/\(product.id)/\(key)"])
            #expect(deleted.status == 200)
            #expect(try deleted.decode(ProductDetail.self).id == product.id)
            #expect(try await curl(["\(sandbox.url)/api/products/\(product.id)"]).status == 404)
            #expect(try await curl([product.images![0].url]).status == 404)
            #expect(try await curl([product.images![0].thumbnailURL]).status == 404)
            let files = try FileManager.default.contentsOfDirectory(atPath: sandbox.directory.appendingPathComponent("images").path)
            #expect(files.isEmpty)
            // Ids are never reused.
            let image = try Scratch()
            defer { image.cleanup() }
            let next = try await Register(sandbox, images: [try image.write(Fixtures.jpeg(width: 16, height: 16), named: "n.jpg")])
                .send().decode(ProductDetail.self)
            #expect(next.id > product.id)
        }
    }
}
