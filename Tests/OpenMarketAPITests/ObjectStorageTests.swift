import Foundation
import OpenMarketAPI
import Synchronization
import Testing
import TestSupport

/// The S3 client against an S3 server on 127.0.0.1 (moto) that checks every signature.
@Suite("S3-compatible storage", .serialized)
struct ObjectStorageTests {
    static func account(_ s3: TestS3, secret: String? = nil) throws -> S3Account {
        try S3Account.fromEnvironment(s3.environment.merging(secret.map { ["AWS_SECRET_ACCESS_KEY": $0] } ?? [:]) { $1 })
    }

    @Test("addresses: s3://bucket/prefix, and what is not one")
    func addresses() {
        let location = S3Location("s3://shop-photos/agency/cache/")
        #expect(location?.bucket == "shop-photos" && location?.prefix == "agency/cache" && location?.key("images/k") == "agency/cache/images/k")
        #expect(S3Location("s3://shop-photos")?.prefix == "")
        #expect(S3Location("s3://shop-photos")?.description == "s3://shop-photos")
        #expect(S3Location("https://shop-photos/x") == nil && S3Location("s3://UPPER/x") == nil && S3Location("s3://ab") == nil)
    }

    @Test("get, put if absent (a second writer is told, not failed), names with spaces and signs (moto itself refuses signatures of keys with parentheses, plus or Hangul, as boto3's too), a missing object is nil")
    func roundTrip() async throws {
        let s3 = try await TestS3.start(buckets: ["openmarket-test"])
        let bucket = S3Bucket(S3Location("s3://openmarket-test/pre fix")!, account: try Self.account(s3))
        let result = try await blocking { () throws -> (Data?, Bool, Bool, Data?, Data?) in
            let missing = try bucket.get("images/none")
            let first = try bucket.putIfAbsent("images/photo 1 ~a_b-c.jpg", Data("first".utf8))
            let second = try bucket.putIfAbsent("images/photo 1 ~a_b-c.jpg", Data("second".utf8))
            try bucket.put("notes/plain", Data([0, 1, 2, 255]))
            return (missing, first, second, try bucket.get("images/photo 1 ~a_b-c.jpg"), try bucket.get("notes/plain"))
        }
        #expect(result.0 == nil)
        #expect(result.1 && !result.2, "the first writer stores, the second is told it is there")
        #expect(result.3 == Data("first".utf8), "the first writer's bytes stay")
        #expect(result.4 == Data([0, 1, 2, 255]))
        #expect(try await s3.keys("openmarket-test").sorted() == ["pre fix/images/photo 1 ~a_b-c.jpg", "pre fix/notes/plain"])
        await s3.stop()
    }

    /// moto checks If-None-Match and then writes, without a lock between (its handler runs on a
    /// thread per request): two writers at the same instant can both be told 200, as one in four
    /// fresh-clone runs showed. S3 itself decides a conditional write atomically. What the
    /// client owns is asserted: every writer ends without an error, told stored or already
    /// there, at least one stored, the object one writer's bytes, and a writer after the race
    /// told it is there.
    @Test("eight writers of one key at once: each told stored or already there, none fails; the object is one writer's; a later writer is told it is there")
    func racingWriters() async throws {
        let s3 = try await TestS3.start(buckets: ["openmarket-race"])
        let bucket = S3Bucket(S3Location("s3://openmarket-race/p")!, account: try Self.account(s3))
        let stored = Atomic(0)
        let failed = Atomic(0)
        try await blocking {
            DispatchQueue.concurrentPerform(iterations: 8) { i in
                switch Result(catching: { try bucket.putIfAbsent("same", Data("writer \(i)".utf8)) }) {
                case .success(true): stored.add(1, ordering: .relaxed)
                case .success(false): break
                case .failure: failed.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(failed.load(ordering: .relaxed) == 0 && (1...8).contains(stored.load(ordering: .relaxed)))
        let (bytes, later) = try await blocking { (try bucket.get("same"), try bucket.putIfAbsent("same", Data("late".utf8))) }
        #expect(bytes.map { String(decoding: $0, as: UTF8.self).hasPrefix("writer ") } == true && !later)
        await s3.stop()
    }

    @Test("a wrong secret, a missing bucket and missing credentials: refused in the storage's words, the secret never in the message")
    func refusals() async throws {
        let s3 = try await TestS3.start(buckets: ["openmarket-refusals"])
        let wrong = S3Bucket(S3Location("s3://openmarket-refusals/p")!, account: try Self.account(s3, secret: "wrong-secret-never-shown"))
        let missing = S3Bucket(S3Location("s3://no-such-bucket-here/p")!, account: try Self.account(s3))
        let messages = try await blocking { () -> [String] in
            var messages: [String] = []
            do { try wrong.check() } catch { messages.append("\(error)") }
            do { try missing.check() } catch { messages.append("\(error)") }
            return messages
        }
        #expect(messages.count == 2)
        #expect(messages.first?.contains("SignatureDoesNotMatch") == true && messages.first?.contains("AWS_SECRET_ACCESS_KEY") == true, "\(messages)")
        #expect(messages.last?.contains("NoSuchBucket") == true, "\(messages)")
        #expect(!messages.joined().contains("wrong-secret-never-shown") && !messages.joined().contains(s3.secretKey))
        #expect(throws: S3Failure.self) { try S3Account.fromEnvironment(["AWS_ACCESS_KEY_ID": "x"]) }
        #expect(throws: S3Failure.self) { try S3Account.fromEnvironment(["AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "y", "AWS_ENDPOINT_URL": "localhost:9000"]) }
        await s3.stop()
    }
}
