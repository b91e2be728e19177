import Foundation

/// Hands a CSV file out in pieces of whole records: the file is read in chunks of
/// about `chunkBytes`, each cut after the last record that ends in it, and each
/// piece is parsed by `CSVRecords` (on any thread). Memory stays at a chunk plus
/// the longest record, however long the file.
///
/// Where a record ends is decided exactly as CSV.swift decides it (and `CSVRecords`) (a quote
/// opens a quoted field only at the start of a field; inside, `""` is a quote
/// and a quote followed by a delimiter or a line end closes it; CR, LF and
/// CRLF end a record), so the pieces split where the library would. The cut
/// is never made on a CR or a quote whose next byte is not read yet.
final class CSVChunks {
    private let handle: FileHandle
    private let delimiter: UInt8
    private let chunkBytes: Int
    private var pending: [UInt8] = []
    private var atEnd = false
    private var first = true
    /// The bytes checked as UTF-8 as they are read (see `EncodingCheck`): the pieces end at
    /// the first that is not.
    private let check: EncodingCheck?

    init(url: URL, delimiter: UInt8, chunkBytes: Int = 64 << 10, check: EncodingCheck? = nil) throws {
        handle = try FileHandle(forReadingFrom: url)
        self.delimiter = delimiter
        self.chunkBytes = chunkBytes
        self.check = check
    }

    deinit { try? handle.close() }

    /// The next piece of whole records as UTF-8 bytes, with the number of records in it
    /// (blank ones included, as the library counts them), or nil at the end of the file.
    func next() -> (bytes: [UInt8], records: Int)? {
        while true {
            if !atEnd && readChunk() == 0 { atEnd = true }
            if first {
                first = false
                if pending.starts(with: [0xEF, 0xBB, 0xBF]) { pending.removeFirst(3) }
            }
            if atEnd {
                guard !pending.isEmpty else { return nil }
                defer { pending = [] }
                let (end, records) = Self.lastRecordEnd(pending, delimiter: delimiter)
                return (pending, records + (end < pending.count ? 1 : 0))
            }
            let (cut, records) = Self.lastRecordEnd(pending, delimiter: delimiter)
            // No whole record yet (a cell longer than a chunk): read more.
            guard cut > 0 else { continue }
            // The piece is the buffer cut short; only the part record after the cut is copied.
            var piece = pending
            pending = Array(piece[cut...])
            piece.removeSubrange(cut...)
            return (piece, records)
        }
    }

    /// Reads up to `chunkBytes` more onto `pending`, straight into its storage (not through a
    /// `Data` and a copy); how many bytes came, 0 at the end of the file or on an error.
    private func readChunk() -> Int {
        let (got, checked) = FileBytes.append(handle.fileDescriptor, onto: &pending, count: chunkBytes, check: check)
        // Not UTF-8 from here: the reading ends (the run says why, `encodingFailure`).
        if !checked {
            pending = []
            return 0
        }
        return got
    }

    /// The offset just past the last record that ends in `bytes` (which starts at
    /// a record's start), or 0 when none does; and how many records end there.
    ///
    /// Outside a quoted cell only quotes and line ends matter (a quote opens a cell when the byte
    /// before it ends a cell or a line), found eight bytes at a time; inside one, only quotes
    /// (`memchr`). Every piece is cut here, on one thread for the whole file.
    static func lastRecordEnd(_ bytes: [UInt8], delimiter: UInt8) -> (end: Int, records: Int) {
        let quote = UInt8(ascii: "\""), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        /// The high bit of each zero byte of `value` (the lowest one exact).
        func zeroBytes(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let quotes = UInt64(quote) &* ones, returns = UInt64(cr) &* ones, feeds = UInt64(lf) &* ones
        return bytes.withUnsafeBufferPointer { buffer -> (end: Int, records: Int) in
            guard let base = buffer.baseAddress else { return (0, 0) }
            let count = buffer.count
            var last = 0
            var records = 0
            var i = 0
            while i < count {
                if i + 8 <= count {
                    let word = UnsafeRawPointer(base).loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    let found = zeroBytes(word ^ quotes) | zeroBytes(word ^ returns) | zeroBytes(word ^ feeds)
                    if found == 0 { i += 8; continue }
                    i += found.trailingZeroBitCount >> 3
                }
                let b = buffer[i]
                if b == cr || b == lf {
                    if b == cr {
                        guard i + 1 < count else { return (last, records) }
                        if buffer[i + 1] == lf { i += 1 }
                    }
                    last = i + 1
                    records += 1
                    i += 1
                    continue
                }
                guard b == quote, i == 0 || buffer[i - 1] == delimiter || buffer[i - 1] == cr || buffer[i - 1] == lf else {
                    i += 1
                    continue
                }
                // A quoted cell: to the quote that closes it (one before the delimiter or a line end).
                var j = i + 1
                while true {
                    guard j < count, let hit = memchr(base + j, Int32(quote), count - j) else { return (last, records) }
                    j = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    guard j + 1 < count else { return (last, records) }
                    let next = buffer[j + 1]
                    if next == cr || next == lf { i = j + 1; break }  // the line end, read above
                    if next == delimiter { i = j + 2; break }
                    // `""` is a quote; a quote before anything else the library also takes as text.
                    j += next == quote ? 2 : 1
                }
            }
            return (last, records)
        }
    }
}
