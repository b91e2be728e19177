import Foundation

/// The pace of a long run as both progress displays tell it — the CLI's line and the console's
/// page: a rate only after half a second (one file done in 1 ms is not 1,000/s), and the time
/// left from that rate.
public struct ProgressPace: Sendable, Equatable {
    /// Per second; 0 while it would say nothing.
    public let rate: Double
    /// Seconds left at that rate; nil without a rate.
    public let secondsLeft: Double?

    public init(done: Int, total: Int, elapsed: TimeInterval) {
        rate = elapsed >= 0.5 && done > 0 ? Double(done) / elapsed : 0
        secondsLeft = rate > 0 ? Double(max(0, total - done)) / rate : nil
    }
}
