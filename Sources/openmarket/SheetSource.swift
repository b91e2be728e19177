import Foundation
import Manifest
import OpenMarketAPI
import Support

/// A sheet named by a path, or by `s3://BUCKET/KEY` (read with the environment's S3 account:
/// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT_URL). An s3 sheet is
/// fetched into this machine's cache (`~/.cache/openmarket/sheets/`, one folder per address, so
/// that its journal is the same run after run) and its relative photo names are under its s3
/// folder, as a web page's links are under its address. `import` and `validate` read it alike.
enum SheetSource {
    /// The local file to read; for an s3 sheet, `options` learns where its photos are.
    static func local(_ given: String, options: inout ValidationOptions) throws -> URL {
        guard S3Objects.isAddress(given) else { return URL(fileURLWithPath: given).standardizedFileURL }
        let data: Data
        do { data = try S3Objects.fetch(given, maxBytes: 256 << 20) } catch {
            throw CommandFailure(error, exitCode: error.isSetup ? .badInput : .unreachable)
        }
        let name = given.split(separator: "/").last.map(String.init) ?? "sheet.csv"
        let folder = UserFolders.cache.appendingPathComponent("sheets/\(FNV.tag(given))", isDirectory: true)
        let file = folder.appendingPathComponent(name)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try data.write(to: file, options: .atomic)
        } catch {
            throw CommandFailure(say: "f_sheet_copy", given, folder.path, error.localizedDescription, exitCode: .badInput)
        }
        if options.imagesDirectory == nil && options.imagesBaseURL == nil {
            options.imagesBaseURL = URL(string: String(given[..<given.index(after: given.lastIndex(of: "/")!)]))
        }
        return file
    }
}
