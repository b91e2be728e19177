import Foundation

/// Reading a CSV or TSV manifest: its delimiter, the rows above a form's header, and the
/// pieces `ParallelRows` checks on several threads.
extension ManifestReader {
    /// The delimiter that occurs most in the first line, outside quotes: `,` `;` or tab.
    static func sniffDelimiter(_ url: URL) -> Character {
        guard let handle = try? FileHandle(forReadingFrom: url),
              let head = try? handle.read(upToCount: 64 * 1024) else { return "," }
        try? handle.close()
        var counts: [Character: Int] = [",": 0, ";": 0, "\t": 0]
        var quoted = false
        for character in String(decoding: head, as: UTF8.self) {
            if character == "\"" { quoted.toggle() }
            else if !quoted && (character == "\n" || character == "\r\n" || character == "\r") { break }
            else if !quoted, counts[character] != nil { counts[character]! += 1 }
        }
        let best = counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key != ",") }!
        return best.value > 0 ? best.key : ","
    }

    func openCSV(_ source: URL) throws {
        let chunks: CSVChunks
        do { chunks = try CSVChunks(url: source, delimiter: csvDelimiter, check: encodingCheck) } catch {
            throw ManifestError(file: fileName, message: "cannot open the file")
        }
        guard let (bytes, records) = chunks.next() else {
            throw ManifestError(file: fileName, say: "m_empty_csv", message: "the file is empty: it needs a header row naming the columns (name, price, currency, images…)")
        }
        firstPieceRecords = records
        if let size = (try? FileManager.default.attributesOfItem(atPath: source.path)[.size] as? Int), !bytes.isEmpty {
            estimatedRows = Int(Double(size) / Double(bytes.count) * Double(records))
        }
        let reader = CSVRecords(bytes, delimiter: csvDelimiter)
        // A marketplace's form saved as CSV keeps the rows above its header (Coupang's section
        // row, 11번가's group row, ESM's title rows): the first of the first ten rows a shipped
        // map knows is the header, the rows above it are passed over (numbered as they are).
        if mapping == nil, let above = Self.rowsAboveHeader(bytes, delimiter: csvDelimiter, maps: platformMaps) {
            for _ in 0..<above { _ = reader.next() }
            rowNumber += above
        }
        csvHeaderRow = rowNumber
        let header = reader.next() ?? []
        guard header.contains(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
            throw ManifestError(file: fileName, message: "the file is empty: it needs a header row naming the columns")
        }
        try mapHeaders(header.enumerated().map { ($0.offset, $0.element) })
        csv = reader
        csvChunks = chunks
    }

    /// How many rows come before the header a platform's map knows, when its form has rows
    /// above it; nil when the first row is the header (or no map knows any of the first ten).
    static func rowsAboveHeader(_ bytes: [UInt8], delimiter: UInt8, maps: [any PlatformMap]) -> Int? {
        guard !maps.isEmpty else { return nil }
        let peek = CSVRecords(bytes, delimiter: delimiter)
        for index in 0..<10 {
            guard let row = peek.next() else { return nil }
            if maps.contains(where: { $0.matches(headers: row) }) { return index == 0 ? nil : index }
        }
        return nil
    }

    /// The reader of the next piece of the file (see `CSVChunks`), or nil at the end.
    func nextCSVPiece() -> CSVRecords? {
        guard let (bytes, _) = csvChunks?.next() else { return nil }
        return CSVRecords(bytes, delimiter: csvDelimiter)
    }

    /// The delimiter as the byte the pieces are cut and parsed at.
    var csvDelimiter: UInt8 { delimiter.asciiValue ?? UInt8(ascii: ",") }

    func nextCSV() -> RawRow? {
        while let reader = csv {
            while let fields = reader.next() {
                rowNumber += 1
                if let row = row(fields, number: rowNumber) { return row }
            }
            csv = nextCSVPiece()
        }
        return nil
    }

    /// A piece of a CSV file for `ParallelRows`: the first is the reader already
    /// past the header, the others are bytes to parse.
    enum Piece {
        case reader(CSVRecords)
        /// The bytes of whole records, and how many records they hold.
        case bytes([UInt8], records: Int)
    }

    /// Hands the rest of a CSV file out in pieces of whole records, each with the
    /// row number before its first record (see `ManifestCheck`). The reader's own
    /// `next()` returns nothing afterwards. Nil for JSON and JSON Lines.
    func takePieces() -> (next: () -> (piece: Piece, rowBefore: Int)?, delimiter: UInt8)? {
        guard format == .csv, !(bound is any GroupedMapping) || streamedMap != nil, let first = csv else { return nil }
        csv = nil
        let chunks = csvChunks
        csvChunks = nil
        var pending: CSVRecords? = first
        var rowBefore = rowNumber
        var recordsBefore = firstPieceRecords
        return ({
            if let reader = pending {
                pending = nil
                return (.reader(reader), rowBefore)
            }
            guard let (bytes, records) = chunks?.next() else { return nil }
            rowBefore = recordsBefore
            recordsBefore += records
            return (.bytes(bytes, records: records), rowBefore)
        }, csvDelimiter)
    }
}

extension ManifestReader {
    /// Lines in the file (less the header) when it is a CSV/TSV/JSON Lines file over `above` bytes.
    public static func lineCount(_ url: URL, above: Int) -> Int? {
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        let format = ManifestFormat.named(url)
        guard size > above, format == .csv || format == .jsonl,
              let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        var lines = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let got = chunk.withUnsafeMutableBytes { FileBytes.read(handle.fileDescriptor, into: $0) }
            if got == 0 { break }
            lines += chunk.withUnsafeBytes { buffer -> Int in
                guard var cursor = buffer.baseAddress else { return 0 }
                let end = cursor + got
                var found = 0
                while cursor < end, let hit = memchr(cursor, 0x0A, end - cursor) {
                    found += 1
                    cursor = UnsafeRawPointer(hit) + 1
                }
                return found
            }
        }
        return format == .jsonl ? lines : max(0, lines - 1)
    }
}
