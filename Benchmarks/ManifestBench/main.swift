// Times the stages of manifest validation on one file, to see where the time goes:
//   openmarket-bench-manifest FILE.csv
import Foundation
import Manifest

let url = URL(fileURLWithPath: CommandLine.arguments[1])
func time(_ label: String, _ body: () throws -> Int) rethrows {
    let start = Date()
    let rows = try body()
    let seconds = Date().timeIntervalSince(start)
    print("\(label): \(rows) rows in \(String(format: "%.2f", seconds)) s = \(Int(Double(rows) / seconds)) rows/s")
}
try time("read rows (ManifestReader)") {
    let reader = try ManifestReader(url: url)
    var n = 0
    while try reader.next() != nil { n += 1 }
    return n
}
try time("read and validate, one thread") {
    let reader = try ManifestReader(url: url)
    var options = ValidationOptions()
    options.checkImageFiles = false
    let validator = ManifestValidator(reader: reader, options: options)
    var n = 0
    while let row = try reader.next() { _ = validator.validate(row); n += 1 }
    return n
}
try time("ManifestCheck.run: read and validate on all cores") {
    var options = ValidationOptions()
    options.checkImageFiles = false
    return try ManifestCheck.run(url, options: options, onFileIssue: { _ in }, onRow: { _, _, _ in }).rows
}
import CSV
try time("raw CSV.swift from a stream") {
    let reader = try CSVReader(stream: InputStream(url: url)!, hasHeaderRow: true)
    var n = 0
    while reader.next() != nil { n += 1 }
    return n
}
try time("raw CSV.swift from a String") {
    let reader = try CSVReader(string: String(contentsOf: url, encoding: .utf8), hasHeaderRow: true)
    var n = 0
    while reader.next() != nil { n += 1 }
    return n
}
