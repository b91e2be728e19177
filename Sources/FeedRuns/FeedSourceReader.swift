import Support
import Feeds
import Foundation
import OpenMarketAPI

/// Fetches a feed's file into its folder, or says it is the one that ran last time.
struct FeedSourceReader {
    enum Fetched {
        /// 304, or the same bytes as the last file that ran to the end.
        case unchanged(String)
        case file(URL, hash: String, contentType: String?, validators: SourceFetch.Validators?)
    }

    struct Unreachable: Error, CustomStringConvertible {
        var description: String
    }

    let feed: Feed
    let folder: FeedFolder
    var settings = TransportSettings()

    func fetch(_ record: FeedRecord) throws(Unreachable) -> Fetched {
        guard let source = feed.run.source else {
            throw Unreachable(description: "the feed has no [source] (url = \"https://…\" or path = \"/…\"): give the file to `openmarket import FILE --feed \(feed.name)` instead")
        }
        let data: Data
        var contentType: String?
        var validators: SourceFetch.Validators?
        var name: String
        switch source {
        case .url(let url, let key, let hosts):
            let answer: SourceFetch.Answer
            do {
                answer = try SourceFetch.get(url, known: record.validators ?? .init(), sshKey: key, knownHosts: hosts, settings: settings)
            } catch {
                throw Unreachable(description: error.description)
            }
            switch answer {
            case .notModified:
                return .unchanged("the server says the file has not changed since the last run (HTTP 304)")
            case .body(let body, let type, let answered):
                (data, contentType, validators) = (body, type, answered)
            }
            name = URL(string: url)?.lastPathComponent ?? "feed"
        case .path(let path, let settle):
            data = try settled(URL(fileURLWithPath: path), settle: settle)
            name = URL(fileURLWithPath: path).lastPathComponent
        }
        let hash = SHA256.hash(data: data).hex
        if hash == record.sourceHash { return .unchanged("the file is the same, byte for byte, as the last one that ran") }
        if name.isEmpty || name == "/" { name = "feed" }
        if URL(fileURLWithPath: name).pathExtension.isEmpty { name += Self.extensionFor(contentType: contentType, data: data) }
        let file = folder.incoming.appendingPathComponent(name)
        do {
            try FileManager.default.createDirectory(at: folder.incoming, withIntermediateDirectories: true)
            for old in (try? FileManager.default.contentsOfDirectory(at: folder.incoming, includingPropertiesForKeys: nil)) ?? [] {
                try? FileManager.default.removeItem(at: old)
            }
            try data.write(to: file, options: .atomic)
        } catch {
            throw Unreachable(description: "cannot keep the fetched file in \(folder.incoming.path): \(error.localizedDescription)")
        }
        return .file(file, hash: hash, contentType: contentType, validators: validators)
    }

    /// A local file read once its size and time stop changing for `settle` seconds (another
    /// program may still be writing it); it gives up after 20 such waits.
    private func settled(_ url: URL, settle: Double) throws(Unreachable) -> Data {
        func stamp() -> (Int, Date)? {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
            return ((attributes[.size] as? Int) ?? -1, (attributes[.modificationDate] as? Date) ?? .distantPast)
        }
        guard var before = stamp() else { throw Unreachable(description: "\(url.path): no such file") }
        for _ in 0..<20 {
            Thread.sleep(forTimeInterval: settle)
            guard let now = stamp() else { throw Unreachable(description: "\(url.path): the file went away while it was read") }
            if now == before {
                guard let data = try? Data(contentsOf: url) else { throw Unreachable(description: "\(url.path): cannot be read") }
                return data
            }
            before = now
        }
        throw Unreachable(description: "\(url.path) is still growing after \(Int(settle * 20)) s: not read")
    }

    /// A name for a file whose URL has no extension, so the reader knows its format.
    static func extensionFor(contentType: String?, data: Data) -> String {
        let type = contentType?.lowercased() ?? ""
        if type.contains("json") { return data.first(where: { !$0.isWhitespace }) == UInt8(ascii: "[") ? ".json" : ".jsonl" }
        if type.contains("spreadsheet") || data.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return ".xlsx" }
        return ".csv"
    }
}

extension UInt8 {
    var isWhitespace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }
}

/// `feed test FEED`: the feed's own source, tried.
public enum FeedTrialSource {
    /// The feed's source fetched as a fresh copy into `directory`: no conditional GET, no
    /// record, nothing remembered (a run afterwards fetches it again).
    public static func fetch(_ feed: Feed, into directory: URL, settings: TransportSettings = TransportSettings()) throws -> URL {
        let reader = FeedSourceReader(feed: feed, folder: FeedFolder(url: directory), settings: settings)
        do {
            switch try reader.fetch(FeedRecord()) {
            case .file(let file, _, _, _): return file
            case .unchanged(let why): throw FeedSourceReader.Unreachable(description: why)
            }
        } catch {
            throw FeedTrialFailure(description: "the feed's source cannot be fetched: \(error)")
        }
    }
}

/// Why `feed test` could not try the feed's own source.
public struct FeedTrialFailure: Error, CustomStringConvertible {
    public var description: String
}
