import Foundation
import ShopState
import Support

/// Where a run's record is kept (its lines for undo, and the photos it saved before its
/// deletes), chosen once from the account, as the journal's place is: the run's report folder
/// on this machine (`run.jsonl`, `deleted/ID/N.jpg`) for an account kept here, or the account's
/// shared state for an account shared between machines. Never both.
public protocol RunRecordStore: Sendable {
    /// Every line recorded in this place, oldest first (a folder run again holds several runs).
    func lines() throws -> [Data]
    /// Appends one line; `durable`: on disk when it returns (a line that announces a write
    /// sent after it). Otherwise on disk with the next durable line, or within a second: a
    /// `created` line follows its write, and the product's pending link (durable before the
    /// write) already lets the next run find what a power cut took from it.
    func append(_ line: Data, durable: Bool) throws
    /// Keeps a photo saved before a delete, under its path in the record (`deleted/ID/N.jpg`).
    func keepPhoto(_ data: Data, as path: String) throws
    /// A photo kept with `keepPhoto`.
    func photo(_ path: String) throws -> Data
    /// Where it is, as messages name it.
    var place: String { get }
}

/// A record in a run's report folder: `run.jsonl`, each line synced before `append` returns,
/// and the saved photos as files beside it. The file is made by the first line: reading a
/// folder makes nothing.
final class FolderRecord: RunRecordStore, @unchecked Sendable {
    let folder: URL
    private let lock = NSLock()
    private var log: AppendLog?

    init(_ folder: URL) { self.folder = folder }

    private var url: URL { folder.appendingPathComponent(RunRecorder.fileName) }

    var exists: Bool { FileManager.default.fileExists(atPath: url.path) }

    func lines() throws -> [Data] {
        guard exists else { return [] }
        return try Data(contentsOf: url).split(separator: 0x0A).map { Data($0) }
    }

    func append(_ line: Data, durable: Bool) throws {
        let opened = try lock.withLock {
            if let log { return log }
            let made = try AppendLog(url: url)
            log = made
            return made
        }
        if durable { try opened.append(line, sync: true) } else { try opened.appendSoon(line) }
    }

    func keepPhoto(_ data: Data, as path: String) throws {
        let file = folder.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file, options: .atomic)
    }

    func photo(_ path: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(path)) }

    var place: String { url.path }
}

/// A record in the account's shared state, and nowhere else: a run's under its report folder's
/// name (`folder PATH`, part `whole`), a shard's under the run's name, one part per attempt.
/// Any machine of the account reads it: undo, `runs`, the move's guard.
struct SharedRecord: RunRecordStore {
    let store: LinkStore
    let run: String
    let part: String

    func lines() throws -> [Data] { (try store.record(run: run)[part] ?? []).map { Data($0.utf8) } }

    func append(_ line: Data, durable: Bool) throws { try store.appendRecord(run: run, part: part, line: String(decoding: line, as: UTF8.self)) }

    func keepPhoto(_ data: Data, as path: String) throws { try store.savePhoto(run: run, path: path, data: data) }

    func photo(_ path: String) throws -> Data {
        // The one photo, not the run's every photo: an undo remakes products one by one.
        guard let found = try store.savedPhoto(run: run, path: path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "\(path) of \(run) in the shared state"])
        }
        return found
    }

    var place: String { "the shared state (\(run)\(part == "whole" ? "" : ", \(part)"))" }
}

/// The one choice of where a run's record is, for the run that writes it and every reader.
public enum RunRecords {
    /// Where a run reporting into `folder` records itself: the shared state of a shared account
    /// (under the folder's name), else the folder.
    static func place(of folder: URL, links: LinkStore?) -> any RunRecordStore {
        if let links, links.isShared { return SharedRecord(store: links, run: LinkStore.recordName(folder: folder), part: "whole") }
        return FolderRecord(folder)
    }

    /// The record of the run whose report folder is `folder`, where it is: a shared account's
    /// in its state (a run made on any machine), else the folder's own (an account kept here,
    /// or a run recorded before the account was shared); nil when neither has one.
    public static func find(_ folder: URL, links: StoreAddress?) throws -> (any RunRecordStore)? {
        if let links, links.isShared {
            let shared = SharedRecord(store: try AccountState.open(links), run: LinkStore.recordName(folder: folder), part: "whole")
            if try !shared.lines().isEmpty { return shared }
        }
        let here = FolderRecord(folder)
        return here.exists ? here : nil
    }

    /// The last run recorded in `folder`'s place (see `find`); nil when there is none.
    public static func read(_ folder: URL, links: StoreAddress?) throws -> [RunEntry]? {
        guard let record = try find(folder, links: links) else { return nil }
        return try RunRecorder.read(record)
    }
}
