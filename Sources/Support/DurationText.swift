import Foundation

/// A duration as a person reads it: `45 s`, `3 min 05 s`, `2 h 10 min`; in Korean `45초`,
/// `3분 05초`, `2시간 10분`.
public enum DurationText {
    public static func of(_ seconds: Double, korean: Bool = false) -> String {
        let total = Int(seconds.rounded())
        let (s, min, h) = korean ? ("초", "분", "시간") : (" s", " min", " h")
        if total < 60 { return "\(total)\(s)" }
        if total < 3600 { return "\(total / 60)\(min) \(String(format: "%02d", total % 60))\(s)" }
        return "\(total / 3600)\(h) \(String(format: "%02d", (total % 3600) / 60))\(min)"
    }
}
