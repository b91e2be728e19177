import Foundation
import OpenMarketAPI
import Testing

/// The one retry loop every retried call goes through.
@Suite("The pacer (RetryPolicy.run)")
struct PacerTests {
    struct Failure: Error, Equatable { var text: String; var attempts = 0 }

    var quick: RetryPolicy {
        var policy = RetryPolicy()
        policy.maxAttempts = 3
        policy.baseDelay = 0.01
        return policy
    }

    @Test("tries again until done; a refusal is thrown at once; out of attempts, the last failure through exhausted")
    func attempts() throws {
        var calls = 0
        let value = try quick.run { attempt -> Attempt<Int, Failure> in
            calls += 1
            return attempt < 3 ? .again(Failure(text: "lost"), after: nil) : .done(attempt)
        }
        #expect(value == 3 && calls == 3)

        calls = 0
        #expect(throws: Failure(text: "no")) {
            try quick.run { _ -> Attempt<Int, Failure> in calls += 1; return .failed(Failure(text: "no")) }
        }
        #expect(calls == 1)

        #expect(throws: Failure(text: "lost", attempts: 3)) {
            try quick.run({ _ -> Attempt<Int, Failure> in .again(Failure(text: "lost"), after: nil) },
                          exhausted: { last, attempts in Failure(text: last.text, attempts: attempts) })
        }
        var single = quick
        single.maxAttempts = 1
        #expect(throws: Failure(text: "lost"), "a first attempt's failure is thrown as it is") {
            try single.run({ _ -> Attempt<Int, Failure> in .again(Failure(text: "lost"), after: nil) },
                           exhausted: { last, attempts in Failure(text: last.text, attempts: attempts) })
        }
    }

    @Test("a busy server's refusals (429) pace the call without spending its attempts: 8 refusals and 2 failures still end done with 3 attempts; refusals stop at maxRefusals")
    func refusalsPace() throws {
        var calls = 0
        var numbers: [Int] = []
        let value = try quick.run { attempt -> Attempt<Int, Failure> in
            calls += 1
            numbers.append(attempt)
            if calls <= 8 { return .refused(Failure(text: "429"), after: nil) }
            return attempt < 3 ? .again(Failure(text: "lost"), after: nil) : .done(attempt)
        }
        #expect(value == 3 && calls == 11, "\(calls) calls")
        #expect(numbers == [1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3], "a refused attempt is asked again under its own number")

        var few = quick
        few.maxRefusals = 4
        calls = 0
        #expect(throws: Failure(text: "429", attempts: 1)) {
            try few.run({ _ -> Attempt<Int, Failure> in calls += 1; return .refused(Failure(text: "429"), after: nil) },
                        exhausted: { last, attempts in Failure(text: last.text, attempts: attempts) })
        }
        #expect(calls == 4)
    }

    @Test("a Retry-After longer than the back-off is waited in full; a wait past maxTotalWait is not made")
    func retryAfter() throws {
        let started = Date()
        var waits: [Double] = []
        _ = try quick.run({ attempt -> Attempt<Int, Failure> in
            attempt == 1 ? .again(Failure(text: "429"), after: 0.3) : .done(attempt)
        }, beforeWait: { waits.append($0) })
        #expect(waits == [0.3] && Date().timeIntervalSince(started) >= 0.3)

        var patient = quick
        patient.maxTotalWait = 1
        let before = Date()
        #expect(throws: Failure(text: "429")) {
            try patient.run { _ -> Attempt<Int, Failure> in .again(Failure(text: "429"), after: 30) }
        }
        #expect(Date().timeIntervalSince(before) < 1, "gave up instead of sleeping 30 s")
    }
}

@Suite("The delete key in the /archived answer")
struct DeleteKeyAnswerTests {
    @Test("a bare key, quoted or not; a path or a URL ending with it (the 2022-10 server's URI); nothing else")
    func answers() {
        let key = "6f1c2a0e-1d2b"
        for answer in [key, "\"\(key)\"", "\(key)\n", "/api/products/12/\(key)", "https://openmarket.example/api/products/12/\(key)",
                       "\"https://openmarket.example/api/products/12/\(key)\""] {
            #expect(OpenMarketClient.deleteKey(inAnswer: answer) == key, "\(answer)")
        }
        for bad in ["", "\"\"", "/", "not a key"] {
            #expect(OpenMarketClient.deleteKey(inAnswer: bad) == nil, "\(bad)")
        }
    }
}
