import Foundation

extension String {
    /// Whether the text's UTF-8 holds `byte`, found by `memchr` (the stdlib's `utf8.contains`
    /// walks an iterator a byte at a time: a few percent of `validate` on every cell).
    func holdsByte(_ byte: UInt8) -> Bool {
        if let found = utf8.withContiguousStorageIfAvailable({ buffer -> Bool in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return false }
            return memchr(base, Int32(byte), buffer.count) != nil
        }) { return found }
        return utf8.contains(byte)
    }

    /// Whether every byte of the text is ASCII.
    var isPlainASCII: Bool {
        if let ascii = utf8.withContiguousStorageIfAvailable({ buffer -> Bool in
            var any: UInt8 = 0
            for byte in buffer { any |= byte }
            return any < 0x80
        }) { return ascii }
        return utf8.allSatisfy { $0 < 0x80 }
    }
}

/// Reading a file's bytes straight into memory of ours (no `Data` made per read).
enum FileBytes {
    private static let zeros = [UInt8](repeating: 0, count: 1 << 20)

    /// Fills `buffer` from the descriptor as far as the file goes (reads again after a short
    /// read or an interruption); how many bytes came, 0 at the end of the file or on an error.
    /// Reads up to `count` more bytes onto the end of `buffer`, straight into its storage (not
    /// through a new `Data` and a copy), checked by `check` when there is one; how many came (0 at
    /// the end of the file or on an error) and whether they are UTF-8 text (see `EncodingCheck`).
    /// At the end of the file, `check` is told it ended.
    static func append(_ descriptor: Int32, onto buffer: inout [UInt8], count: Int, check: EncodingCheck?) -> (got: Int, checked: Bool) {
        let old = buffer.count
        // Room for the read, copied from zeros as memory: appending `repeatElement` walks it
        // element by element, about a second a MiB in a debug build (the tests' CLI runs).
        var room = count
        while room > 0 {
            let piece = min(room, zeros.count)
            buffer.append(contentsOf: zeros[..<piece])
            room -= piece
        }
        var got = 0
        var checked = true
        buffer.withUnsafeMutableBytes { bytes in
            got = read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: bytes[old...]))
            if got > 0, let check { checked = check.check(UnsafeRawBufferPointer(rebasing: bytes[old..<(old + got)])) }
        }
        buffer.removeSubrange((old + got)...)
        if got == 0 { check?.finish() }
        return (got, checked)
    }

    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var got = 0
        while got < buffer.count {
            let count = Glibc.read(descriptor, base + got, buffer.count - got)
            if count > 0 { got += count; continue }
            if count < 0 && errno == EINTR { continue }
            break
        }
        return got
    }
}
