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

    init(url: URL, delimiter: UInt8, chunkBytes: Int = 64 << 10) throws {
        handle = try FileHandle(forReadingFrom: url)
        self.delimiter = delimiter
        self.chunkBytes = chunkBytes
    }

    deinit { try? handle.close() }

    /// The next piece of whole records as UTF-8 bytes, with the number of records in it
    /// (blank ones included, as the library counts them), or nil at the end of the file.
    func next() -> (bytes: [UInt8], records: Int)? {
        while true {
            if !atEnd {
                let chunk = (try? handle.read(upToCount: chunkBytes)) ?? Data()
                if chunk.isEmpty { atEnd = true } else { pending.append(contentsOf: chunk) }
            }
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
            let piece = Array(pending[..<cut])
            pending.removeFirst(cut)
            return (piece, records)
        }
    }

    /// The offset just past the last record that ends in `bytes` (which starts at
    /// a record's start), or 0 when none does; and how many records end there.
    static func lastRecordEnd(_ bytes: [UInt8], delimiter: UInt8) -> (end: Int, records: Int) {
        let quote = UInt8(ascii: "\""), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        return bytes.withUnsafeBufferPointer { buffer -> (end: Int, records: Int) in
            let count = buffer.count
            var last = 0
            var records = 0
            var i = 0
            var quoted = false
            var fieldStart = true
            while i < count {
                let b = buffer[i]
                if quoted {
                    if b == quote {
                        guard i + 1 < count else { return (last, records) }
                        let n = buffer[i + 1]
                        if n == cr || n == lf {
                            quoted = false
                            fieldStart = true
                            i += 1
                            if n == cr {
                                guard i + 1 < count else { return (last, records) }
                                if buffer[i + 1] == lf { i += 1 }
                            }
                            last = i + 1
                            records += 1
                        } else if n == delimiter {
                            quoted = false
                            fieldStart = true
                            i += 1
                        } else {
                            // `""` is a quote; anything else the library also takes as text.
                            i += 1
                        }
                    }
                } else if b == cr || b == lf {
                    if b == cr {
                        guard i + 1 < count else { return (last, records) }
                        if buffer[i + 1] == lf { i += 1 }
                    }
                    fieldStart = true
                    last = i + 1
                    records += 1
                } else if b == delimiter {
                    fieldStart = true
                } else if fieldStart && b == quote {
                    quoted = true
                    fieldStart = false
                } else {
                    fieldStart = false
                }
                i += 1
            }
            return (last, records)
        }
    }
}
