import Foundation

/// The elements of a top-level JSON array, one at a time, so that a manifest
/// of a million products is never held whole: the file is read in chunks, and
/// each element's extent is found by tracking strings (with their escapes) and
/// bracket depth; the element's bytes go on the end of a piece's buffer, read by
/// `JSONRowReader`. Only a chunk and the pieces in flight are in memory at a time.
final class JSONArrayElements {
    enum Failure: Error {
        case notAnArray
        case unclosed
        case trailing
    }

    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    private enum State { case beforeArray, beforeElement, done }
    private var state = State.beforeArray

    /// The bytes checked as UTF-8 as they are read (see `EncodingCheck`).
    private let check: EncodingCheck?

    /// How much is read at a time (a megabyte; less in tests, so that reads end anywhere).
    private let chunkBytes: Int

    init(url: URL, check: EncodingCheck? = nil, chunkBytes: Int = 1 << 20) throws {
        handle = try FileHandle(forReadingFrom: url)
        self.check = check
        self.chunkBytes = max(chunkBytes, 1)
    }

    deinit { try? handle.close() }

    /// The next element's bytes put on the end of `piece` (the elements of a piece in one
    /// buffer, not a `Data` each), and how many; nil after the closing bracket.
    func next(appendingTo piece: inout [UInt8]) throws -> Int? {
        guard let range = try nextRange() else { return nil }
        buffer.withUnsafeBufferPointer { piece.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
        return range.count
    }

    /// Where the next element is in `buffer` (until the next call), or nil after the closing bracket.
    private func nextRange() throws -> Range<Int>? {
        while true {
            switch state {
            case .beforeArray:
                guard let byte = try nextNonSpace() else { throw Failure.notAnArray }
                guard byte == UInt8(ascii: "[") else { throw Failure.notAnArray }
                position += 1
                state = .beforeElement
            case .beforeElement:
                guard let byte = try nextNonSpace() else { throw Failure.unclosed }
                if byte == UInt8(ascii: "]") {
                    position += 1
                    state = .done
                    continue
                }
                if byte == UInt8(ascii: ",") { position += 1; continue }
                return try element()
            case .done:
                if try nextNonSpace() != nil { throw Failure.trailing }
                return nil
            }
        }
    }

    /// From `position` (an element's first byte) to the `,` or `]` that ends it. The bytes are
    /// scanned through a pointer (no bounds check a byte): the array reader runs on one thread
    /// while the elements are parsed on the others, so its pace is the file's.
    private func element() throws -> Range<Int> {
        var i = position
        var depth = 0
        var inString = false
        var escaped = false
        while true {
            if i >= buffer.count {
                // Drop what was consumed, keep the element, read on.
                if position > 0 {
                    buffer.removeFirst(position)
                    i -= position
                    position = 0
                }
                guard try fill() else { throw Failure.unclosed }
                continue
            }
            // The end of the element in this buffer (and whether it is the array's own bracket), or nil.
            let end: (index: Int, closing: Bool)? = buffer.withUnsafeBufferPointer { bytes in
                let count = bytes.count
                let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
                let quotes = 0x22 &* ones, backslashes = 0x5C &* ones
                let base = bytes.baseAddress!
                while i < count {
                    // Inside a string (most of an element's bytes), eight at a time to its next quote or backslash.
                    if inString && !escaped, i + 8 <= count {
                        let word = UnsafeRawPointer(base).loadUnaligned(fromByteOffset: i, as: UInt64.self)
                        let quote = word ^ quotes, backslash = word ^ backslashes
                        if ((quote &- ones) & ~quote & highs) | ((backslash &- ones) & ~backslash & highs) == 0 {
                            i += 8
                            continue
                        }
                        // A quote or a backslash within eight bytes: to the next quote, which ends the
                        // string unless an odd run of backslashes stands right before it (memchr, not
                        // byte by byte: a row's strings are short, and they were most of its bytes' steps).
                        let from = i
                        guard let found = memchr(base + i, 0x22, count - i) else {
                            // No quote in the buffer yet: the string goes on; whether its last byte escapes the next.
                            var run = 0
                            while count - 1 - run >= from, bytes[count - 1 - run] == 0x5C { run += 1 }
                            escaped = run % 2 == 1
                            i = count
                            break
                        }
                        let at = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                        var run = 0
                        while at - 1 - run >= from, bytes[at - 1 - run] == 0x5C { run += 1 }
                        if run % 2 == 0 { inString = false }
                        i = at + 1
                        continue
                    }
                    let b = bytes[i]
                    if inString {
                        if escaped { escaped = false }
                        else if b == 0x5C { escaped = true }
                        else if b == 0x22 { inString = false }
                    } else if b == 0x22 {
                        inString = true
                    } else if b == 0x7B || b == 0x5B {
                        depth += 1
                    } else if b == 0x7D || b == 0x5D {
                        if depth == 0 { return (i, true) }
                        depth -= 1
                    } else if b == 0x2C, depth == 0 {
                        return (i, false)
                    }
                    i += 1
                }
                return nil
            }
            guard let end else { continue }
            let range = position..<end.index
            // The array's own closing bracket ends the last element and stays to be read.
            position = end.closing ? end.index : end.index + 1
            return range
        }
    }

    /// The next byte that is not white space (nor a byte-order mark), without consuming it.
    private func nextNonSpace() throws -> UInt8? {
        while true {
            while position < buffer.count {
                let b = buffer[position]
                if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { position += 1; continue }
                if b == 0xEF, position + 2 < buffer.count, buffer[position + 1] == 0xBB, buffer[position + 2] == 0xBF {
                    position += 3
                    continue
                }
                return b
            }
            buffer.removeAll(keepingCapacity: true)
            position = 0
            guard try fill() else { return nil }
        }
    }

    private func fill() throws -> Bool {
        guard !atEnd else { return false }
        // Read straight onto the buffer's end (a new megabyte each time was faulted in and freed).
        let (got, checked) = FileBytes.append(handle.fileDescriptor, onto: &buffer, count: chunkBytes, check: check)
        if got == 0 { atEnd = true; return false }
        // Not UTF-8 from here: the reading ends (the run says why, `encodingFailure`).
        if !checked { atEnd = true; return false }
        return true
    }
}
