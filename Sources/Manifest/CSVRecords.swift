import Foundation

/// The records of a piece of CSV (see `CSVChunks`), parsed from its UTF-8 bytes: each cell is
/// one `String` made from a slice of the piece (a copy only for a quoted cell with `""` in it),
/// where CSV.swift built each cell one Unicode scalar at a time (a third of `validate`'s time).
///
/// The records end where CSV.swift ends them, so that `CSVChunks` cuts pieces where a whole
/// file's reading would: a quote opens a quoted cell only at a cell's start; inside, `""` is a
/// quote and a quote followed by the delimiter or a line end closes the cell; CR, LF and CRLF
/// end a record; a blank line is a record of one empty cell; a delimiter at the very end gives
/// a last empty cell. One difference, on broken text only: a quote inside a quoted cell followed
/// by anything else is kept with what follows it (CSV.swift dropped the character after it).
/// Bytes that are not UTF-8 become U+FFFD, as `String(decoding:)` makes them.
final class CSVRecords {
    private let bytes: [UInt8]
    private let delimiter: UInt8
    private var position: Int
    private var scratch: [UInt8] = []

    init(_ bytes: [UInt8], delimiter: UInt8, from start: Int = 0) {
        self.bytes = bytes
        self.delimiter = delimiter
        position = start
    }

    /// The next record's cells, or nil after the last.
    func next() -> [String]? {
        guard position < bytes.count else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> [String] in
            var cells: [String] = []
            cells.reserveCapacity(8)
            while true {
                let (cell, endsRecord) = readCell(buffer)
                cells.append(cell)
                if endsRecord { return cells }
            }
        }
    }

    private static let quote = UInt8(ascii: "\""), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")

    /// One cell from `position`; whether the record ends after it (after a delimiter it does
    /// not: a delimiter at the very end is followed by an empty cell).
    private func readCell(_ buffer: UnsafeBufferPointer<UInt8>) -> (String, Bool) {
        let count = buffer.count
        var i = position
        guard i < count else { return ("", true) }
        if buffer[i] == Self.quote { return readQuoted(buffer, from: i + 1) }
        let start = i
        while i < count {
            let b = buffer[i]
            if b == delimiter {
                position = i + 1
                return (Self.text(buffer, start, i), false)
            }
            if b == Self.lf || b == Self.cr {
                position = i + 1
                if b == Self.cr, position < count, buffer[position] == Self.lf { position += 1 }
                return (Self.text(buffer, start, i), true)
            }
            i += 1
        }
        position = count
        return (Self.text(buffer, start, count), true)
    }

    /// A quoted cell whose text starts at `from` (just past the opening quote).
    private func readQuoted(_ buffer: UnsafeBufferPointer<UInt8>, from: Int) -> (String, Bool) {
        let count = buffer.count
        let delimiter = delimiter
        var i = from
        var runStart = from
        // Held in a local for the cell (a property's every use was checked for exclusive access).
        var scratch: [UInt8] = []
        var escaped = false
        defer { if escaped { swap(&scratch, &self.scratch) } }
        func finish(_ end: Int) -> String {
            guard escaped else { return Self.text(buffer, runStart, end) }
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<end]))
            return String(decoding: scratch, as: UTF8.self)
        }
        let base = buffer.baseAddress!
        while i < count {
            // The next quote, found as memchr finds it (a cell's text is mostly not quotes).
            guard let found = memchr(base + i, Int32(Self.quote), count - i) else { break }
            i = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            let next = i + 1
            if next >= count || buffer[next] == Self.cr || buffer[next] == Self.lf {
                let cell = finish(i)
                var end = next
                if next < count {
                    end += 1
                    if buffer[next] == Self.cr, end < count, buffer[end] == Self.lf { end += 1 }
                }
                position = end
                return (cell, true)
            }
            if buffer[next] == delimiter {
                let cell = finish(i)
                position = next + 1
                return (cell, false)
            }
            // `""` is one quote; a quote before anything else is kept as it is, with what follows.
            if !escaped {
                escaped = true
                swap(&scratch, &self.scratch)
                scratch.removeAll(keepingCapacity: true)
            }
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart...i]))
            i = buffer[next] == Self.quote ? next + 1 : next
            runStart = i
        }
        // Unterminated: the rest of the piece is the cell.
        position = count
        return (finish(count), true)
    }

    private static func text(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<end]), as: UTF8.self)
    }
}
