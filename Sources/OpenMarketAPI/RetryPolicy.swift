import Foundation

/// When and how long to wait before trying again.
///
/// Retried: connection failures, 429, 500, 502, 503, 504, with exponential
/// backoff and jitter; `Retry-After` is honoured. Reads (GET) and idempotent
/// writes (PATCH, DELETE) are retried; a register (POST) only when the request
/// provably never left (no name resolution, no connection) or the server said
/// 429 (it refused before doing anything).
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included.
    public var maxAttempts = 6
    /// The first back-off; doubled each attempt.
    public var baseDelay = 0.25
    /// No single wait is longer than this (unless the server's Retry-After asks
    /// for more and it still fits in `maxTotalWait`).
    public var maxDelay = 10.0
    /// Sum of all waits of one call.
    public var maxTotalWait = 60.0
    /// Statuses worth another attempt.
    public var retryableStatuses: Set<Int> = [429, 500, 502, 503, 504]
    /// Refusals of a busy server (429: nothing was done) one call waits out besides its
    /// attempts: they pace the run, they are not the request failing (`maxTotalWait` bounds both).
    public var maxRefusals = 30

    public init() {}

    public static let none: RetryPolicy = {
        var policy = RetryPolicy()
        policy.maxAttempts = 1
        return policy
    }()

    /// The wait before attempt `attempt + 1` (attempt counts from 1): half
    /// the exponential step plus a random half ("equal jitter"), so that many
    /// workers failing together do not come back together.
    public func backoff(afterAttempt attempt: Int) -> Double {
        let step = min(maxDelay, baseDelay * pow(2, Double(attempt - 1)))
        return step / 2 + Double.random(in: 0...(step / 2))
    }

    /// Seconds from a `Retry-After` value: delta-seconds or an HTTP date.
    public static func retryAfter(_ value: String?, now: Date = Date()) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

/// What one attempt of a retried call came to.
public enum Attempt<Value, Failure: Error> {
    case done(Value)
    /// Worth another attempt, after at least `after` seconds (the server's Retry-After).
    case again(Failure, after: Double?)
    /// Refused before anything was done (429): asked again after the pause, not counted among
    /// the attempts (up to `maxRefusals`).
    case refused(Failure, after: Double?)
    /// Not worth another attempt.
    case failed(Failure)
}

extension RetryPolicy {
    /// The one retry loop (after rclone's `lib/pacer`): every retried call of openmarket —
    /// a request, a read right after an edit, a register whose answer was lost — goes through
    /// it. `attempt` is called with the attempt's number (from 1) until it is done or failed,
    /// or the policy's attempts or total wait run out; then a first attempt's failure is
    /// thrown as it is, a later one through `exhausted` (with the attempts made).
    public func run<Value, Failure: Error>(
        _ attempt: (Int) -> Attempt<Value, Failure>,
        exhausted: (Failure, Int) -> Failure = { failure, _ in failure },
        beforeWait: (Double) -> Void = { _ in }
    ) throws(Failure) -> Value {
        var waited = 0.0
        var number = 0
        var refusals = 0
        while true {
            number += 1
            switch attempt(number) {
            case .done(let value):
                return value
            case .failed(let failure):
                throw failure
            case .refused(let failure, let after):
                refusals += 1
                let wait = max(after ?? 0, backoff(afterAttempt: min(refusals, 8)))
                guard refusals < maxRefusals, waited + wait <= maxTotalWait else {
                    throw number == 1 && refusals == 1 ? failure : exhausted(failure, number)
                }
                number -= 1
                beforeWait(wait)
                Thread.sleep(forTimeInterval: wait)
                waited += wait
            case .again(let failure, let after):
                let wait = max(after ?? 0, backoff(afterAttempt: number))
                guard number < maxAttempts, waited + wait <= maxTotalWait else {
                    throw number == 1 ? failure : exhausted(failure, number)
                }
                beforeWait(wait)
                Thread.sleep(forTimeInterval: wait)
                waited += wait
            }
        }
    }
}
