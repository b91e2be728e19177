import Foundation

/// Lines of a UTF-8 file, read in chunks of 1 MiB: each line found with `memchr` in the chunk,
/// its bytes handed on (`nextBytes`, JSON Lines read straight from them) or as text (`next`).
public final class LineReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    /// Where the unread bytes of `buffer` start.
    private var start = 0
    private var number = 0
    private var atEnd = false
    private let file: String
    /// The bytes checked as UTF-8 as they are read (see `EncodingCheck`): the lines end at the
    /// chunk that is not.
    var check: EncodingCheck?

    public init(url: URL, file: String) throws {
        guard let handle = try? FileHandle(forReadingFrom: url) else { throw ManifestError(file: file, message: "cannot open the file") }
        self.handle = handle
        self.file = file
    }

    deinit { try? handle.close() }

    /// The next line and its number (from 1), without its line ending (a first line's BOM dropped).
    public func next() throws -> (Int, String)? {
        guard let (number, bytes) = try nextBytes() else { return nil }
        return (number, String(decoding: bytes, as: UTF8.self))
    }

    /// The next line's bytes and its number (from 1), without its line ending or a first line's BOM.
    public func nextBytes() throws -> (Int, [UInt8])? {
        guard let (number, range) = try nextRange() else { return nil }
        return (number, Array(buffer[range]))
    }

    /// The next line's bytes put on the end of `piece` (a piece's lines in one buffer, not an
    /// array each), and its number; nil at the end.
    func nextLine(appendingTo piece: inout [UInt8]) throws -> Int? {
        guard let (number, range) = try nextRange() else { return nil }
        buffer.withUnsafeBufferPointer { piece.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
        return number
    }

    /// The next line's number and where its bytes are in `buffer` (until the next call).
    private func nextRange() throws -> (Int, Range<Int>)? {
        while true {
            let count = buffer.count - start
            let found: Int? = count == 0 ? nil : buffer.withUnsafeBufferPointer { all in
                guard let base = all.baseAddress, let hit = memchr(base + start, 0x0A, count) else { return nil }
                return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            }
            if let newline = found {
                var end = newline
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                let line = line(start..<end)
                start = newline + 1
                return line
            }
            if atEnd {
                guard count > 0 else { return nil }
                let line = line(start..<buffer.count)
                start = buffer.count
                return line
            }
            // The unread tail moves to the front, the next chunk is read straight after it (into
            // the same storage every time: a new megabyte each time was faulted in and freed).
            buffer.removeSubrange(0..<start)
            start = 0
            let (got, checked) = FileBytes.append(handle.fileDescriptor, onto: &buffer, count: 1 << 20, check: check)
            if got == 0 {
                atEnd = true
            } else if !checked {
                // Not UTF-8 from here: the reading ends (the run says why, `encodingFailure`).
                buffer = []
                atEnd = true
            }
        }
    }

    private func line(_ range: Range<Int>) -> (Int, Range<Int>) {
        number += 1
        if number == 1, buffer[range].starts(with: [0xEF, 0xBB, 0xBF]) { return (number, range.lowerBound + 3..<range.upperBound) }
        return (number, range)
    }
}
