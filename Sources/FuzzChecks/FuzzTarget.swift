import Foundation

/// What a fuzz target found beyond a crash: an invariant of a reader that did not hold. The
/// fuzzer (`scripts/fuzz`) turns it into a crash so that libFuzzer keeps the input; the test
/// suite reports it as a failure of the kept input.
public struct FuzzFinding: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// One reader of outside bytes under the fuzzer: a name (`scripts/fuzz --list`), what it
/// reads, and the check run on every input.
public struct FuzzTarget: Sendable {
    public var name: String
    public var reads: String
    public var check: @Sendable (Data) throws(FuzzFinding) -> Void

    public init(_ name: String, reads: String, check: @escaping @Sendable (Data) throws(FuzzFinding) -> Void) {
        self.name = name
        self.reads = reads
        self.check = check
    }

    /// Every target, in the order `scripts/fuzz --list` prints them.
    public static let all: [FuzzTarget] = SheetTargets.all + UploadTargets.all + FeedTargets.all + MoneyTargets.all + EqualityTargets.all + AnswerTargets.all

    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// A folder of this process for the files a sheet's reader needs: the input is written to
/// a file of the right extension there, as a merchant's sheet is on disk.
enum Scratch {
    static let folder: URL = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("openmarket-fuzz-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    static func file(_ name: String, _ data: Data) throws(FuzzFinding) -> URL {
        let url = folder.appendingPathComponent(name)
        do { try data.write(to: url) } catch { throw FuzzFinding("cannot write the scratch file \(url.path): \(error)") }
        return url
    }
}
