import CatalogSync
import CatalogExport
import Support
import Foundation
import Manifest
import OpenMarketAPI
import Sandbox
import Testing
import TestSupport

/// Exports with `options`, on a thread of its own.
func export(_ options: ExportOptions, _ client: OpenMarketClient) async throws -> ExportSummary {
    try await blocking { try CatalogExporter(options: options, client: client).run() }
}

/// The rows of an exported manifest, read back with the Manifest module.
func readManifest(_ url: URL) throws -> [RawRow] {
    let reader = try ManifestReader(url: url)
    var rows: [RawRow] = []
    while let row = try reader.next() { rows.append(row) }
    return rows
}

func sha256Hex(_ data: Data) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
}

/// Checks checksums.sha256 the way `sha256sum -c` does; returns the number of files.
func verifyChecksums(in directory: URL) throws -> Int {
    let text = try String(contentsOf: directory.appendingPathComponent("checksums.sha256"), encoding: .utf8)
    var count = 0
    for line in text.split(separator: "\n") {
        let parts = line.split(separator: " ", maxSplits: 1)
        let digest = String(parts[0])
        let path = String(parts[1].dropFirst())
        let data = try Data(contentsOf: directory.appendingPathComponent(path))
        #expect(sha256Hex(data) == digest, "checksum of \(path)")
        count += 1
    }
    return count
}

/// Every file under `directory`, as relative paths.
func filesUnder(_ directory: URL) -> [String] {
    let root = directory.standardizedFileURL.path + "/"
    var paths: [String] = []
    let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
    while let url = enumerator?.nextObject() as? URL {
        if (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            paths.append(String(url.standardizedFileURL.path.dropFirst(root.count)))
        }
    }
    return paths.sorted()
}

extension RawRow {
    /// The row's image paths, whether the manifest gave them as a list (JSON) or a cell (CSV).
    var images: [String] {
        imageList ?? (values[.images] ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
