import Foundation

/// Sizes as people read them, the same everywhere: `812 B`, `24 KB`, `3.4 MB`, `12.3 GB`
/// (1 KB = 1,024 bytes).
public enum ByteCount {
    public static func text<Count: BinaryInteger>(_ count: Count) -> String {
        let bytes = Double(count)
        if bytes < 1024 { return "\(count) B" }
        if bytes < 1_048_576 { return String(format: "%.0f KB", bytes / 1024) }
        if bytes < 1_073_741_824 { return String(format: "%.1f MB", bytes / 1_048_576) }
        return String(format: "%.1f GB", bytes / 1_073_741_824)
    }
}
