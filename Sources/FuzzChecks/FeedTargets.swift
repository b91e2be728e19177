import Feeds
import Foundation

/// A supplier feed's file (TOML): read into a feed, or refused with the file, the line
/// where known, and what is wrong; never a crash, whatever the TOML says.
enum FeedTargets {
    static let all: [FuzzTarget] = [
        FuzzTarget("feed", reads: "a feed file (TOML: source, columns, maps, prices, checks, target)") { data throws(FuzzFinding) in
            let url = Scratch.folder.appendingPathComponent("supplier.toml")
            do throws(FeedFileError) {
                _ = try FeedFile.parse(String(decoding: data, as: UTF8.self), url: url)
            } catch {
                if error.file != url.path || error.message.isEmpty {
                    throw FuzzFinding("a feed file's error that does not name the file: \(error)")
                }
                if let line = error.line, line < 1 || line > data.count + 1 {
                    throw FuzzFinding("a feed file's error names line \(line) of a text of \(data.count) bytes: \(error)")
                }
            }
        },
    ]
}
