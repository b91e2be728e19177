import Foundation

/// Lines of a UTF-8 file, read in chunks.
public final class LineReader {
    private let handle: FileHandle
    private var buffer = Data()
    private var number = 0
    private var atEnd = false
    private let file: String

    public init(url: URL, file: String) throws {
        guard let handle = try? FileHandle(forReadingFrom: url) else { throw ManifestError(file: file, message: "cannot open the file") }
        self.handle = handle
        self.file = file
    }

    deinit { try? handle.close() }

    /// The next line and its number (from 1), without its line ending.
    public func next() throws -> (Int, String)? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                var line = buffer[buffer.startIndex..<newline]
                buffer = buffer[(newline + 1)...]
                if line.last == 0x0D { line = line.dropLast() }
                number += 1
                var text = String(decoding: line, as: UTF8.self)
                if number == 1, text.hasPrefix("\u{FEFF}") { text.removeFirst() }
                return (number, text)
            }
            if atEnd {
                guard !buffer.isEmpty else { return nil }
                number += 1
                let text = String(decoding: buffer, as: UTF8.self)
                buffer = Data()
                return (number, text)
            }
            let chunk = (try? handle.read(upToCount: 1 << 20)) ?? Data()
            if chunk.isEmpty { atEnd = true } else { buffer.append(chunk); buffer = Data(buffer) }
        }
    }
}
