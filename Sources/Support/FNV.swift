import Foundation

/// FNV-1a, 64 bits: a fast, stable hash of text, for tables of keys that need
/// not keep the text, and for file names that must not show it.
public enum FNV {
    public static func hash(_ text: String) -> UInt64 {
        // Over the text's bytes in place where it has them (most texts): its UTF-8 view's iterator
        // was most of the time of a name's hash, asked on every row of a sheet.
        if let hash = text.utf8.withContiguousStorageIfAvailable(hash) { return hash }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// FNV-1a over bytes in memory.
    public static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// The hash in hexadecimal.
    public static func tag(_ text: String) -> String { String(hash(text), radix: 16) }

    /// FNV-1a over bytes.
    public static func hash(_ bytes: Data) -> UInt64 {
        bytes.withUnsafeBytes { buffer in
            var hash: UInt64 = 0xcbf29ce484222325
            for byte in buffer {
                hash ^= UInt64(byte)
                hash &*= 0x100000001b3
            }
            return hash
        }
    }
}
