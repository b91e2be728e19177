import Foundation

/// CSV rows written by Unicode scalars: a field is quoted when it holds a quote, the
/// delimiter, a carriage return or a line feed, and its quotes are doubled. CSV.swift's
/// `CSVWriter` decides both by Character, and a quote or a line break followed by a
/// combining mark is one Character with it: such a field went out unquoted (the row broken
/// in two on reading) or with a quote left single (found by `scripts/fuzz csv-roundtrip`).
public final class CSVLines {
    public struct WriteFailed: Error, CustomStringConvertible {
        public var description: String { "the CSV output refused a write" }
    }

    private let output: OutputStream
    private let newline: [UInt8]
    private var first = true

    /// Rows are separated by `newline`; the last one is not ended (the caller ends it if it wants).
    public init(_ output: OutputStream, newline: String = "\r\n") {
        self.output = output
        self.newline = Array(newline.utf8)
    }

    public func write(row: [String]) throws {
        var bytes: [UInt8] = first ? [] : newline
        first = false
        for (index, value) in row.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: Self.field(value).utf8)
        }
        guard bytes.isEmpty || output.write(bytes, maxLength: bytes.count) == bytes.count else { throw WriteFailed() }
    }

    /// One field as CSV holds it.
    public static func field(_ value: String, delimiter: Unicode.Scalar = ",") -> String {
        let needsQuotes = value.unicodeScalars.contains { $0 == "\"" || $0 == delimiter || $0 == "\r" || $0 == "\n" }
        guard needsQuotes else { return value }
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in value.unicodeScalars {
            quoted.append(scalar)
            if scalar == "\"" { quoted.append("\"") }
        }
        quoted.append("\"")
        return String(quoted)
    }
}
