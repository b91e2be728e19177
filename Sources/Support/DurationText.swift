import Foundation

/// A time left or taken as people say it: `45 s`, `3 min 20 s`, `1 h 05 min` — the CLI's
/// progress line and the console's say it the same way.
public enum DurationText {
    public static func of(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        if total < 60 { return "\(total) s" }
        if total < 3600 { return "\(total / 60) min \(String(format: "%02d", total % 60)) s" }
        return "\(total / 3600) h \(String(format: "%02d", (total % 3600) / 60)) min"
    }
}
