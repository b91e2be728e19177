import Foundation
import ShopState
import Support

/// One recorded run (or one shard of a sharded run) taken back, or why there was nothing to do.
public struct UndoPart: Sendable {
    /// The shard, for a part of a sharded run (`0/4`); nil for a run of its own.
    public var shard: String?
    /// The run taken back (nil: it already was, said in `alreadyDone`).
    public var result: SyncResult?
    public var alreadyDone: String?
}

/// Undo, assembled once for every door: a run's folder on this machine, a run another machine
/// of a shared account recorded, or a sharded run whole. The CLI's `undo` and the console's
/// Undo button both come here, so that a run one of them can find the other finds too.
extension RunRequest {
    /// The run recorded in `folder` taken back (or its plan, with `choices.dryRun`). The record
    /// is the folder's own, else the shared state's copy of a run made on another machine.
    public func undo(folder: URL, force: Bool = false) throws -> UndoPart {
        let folder = folder.standardizedFileURL
        guard let here = try recordFolder(of: folder) else {
            throw SyncStop("\(folder.path) has no record of a run (\(RunRecorder.fileName)): give the report folder a run printed at its end (`openmarket runs` lists them); a dry run records nothing",
                           cause: .input)
        }
        return try undoRecorded(here, force: force, journalName: nil)
    }

    /// A sharded run, whole: each shard's record read from the shared state into a folder of
    /// this machine and taken back as a run's folder is (its own undo record kept there, so
    /// that the same request again finishes it). `starting` is told each shard before it goes.
    public func undo(run name: String, force: Bool = false, starting: (String) -> Void = { _ in }) throws -> [UndoPart] {
        guard account.state != nil else {
            throw SyncStop("--run takes back a sharded run from the shared state: give --state postgres://… (or OPENMARKET_STATE)", cause: .input)
        }
        let parts: [String: [String]]
        do { parts = try LinkStore(url: links).record(run: name) } catch { throw SyncStop("\(error)", cause: .unreachable) }
        guard !parts.isEmpty else {
            throw SyncStop("no run named \(name) in the shared state of this account (`openmarket runs` lists them)", cause: .input)
        }
        var done: [UndoPart] = []
        for (part, lines) in parts.sorted(by: { $0.key.compare($1.key, options: .numeric) == .orderedAscending }) {
            let folder = shardFolder(run: name, part: part)
            try keep(lines, photos: name, in: folder, naming: "\(name) shard \(part)")
            starting(part)
            var undone = try undoRecorded(folder, force: force, journalName: "undo-\(name)-\(folder.lastPathComponent)")
            undone.shard = part
            done.append(undone)
        }
        return done
    }

    /// Why a recorded run cannot be taken back (nil: it can): it wrote nothing, its record is
    /// neither here nor in the shared state, or it was undone already. What the console asks
    /// before it shows Undo, and says to a form sent anyway.
    public func undoRefusal(_ run: RecordedRun) -> String? {
        if let name = run.runName {
            guard account.state != nil else { return "run \(name) is a sharded run: its record is in the shared state (--state)" }
            guard let parts = try? LinkStore(url: links).record(run: name), !parts.isEmpty else { return "no record of run \(name) in the shared state" }
            let undone = parts.keys.allSatisfy { Self.undone(shardFolder(run: name, part: $0)) != nil }
            return undone ? "run \(name) was undone already, every shard of it" : nil
        }
        let nothing = "that run wrote nothing: there is nothing to take back"
        if let counts = run.counts,
           !counts.contains(where: { RowOutcome.Status(rawValue: $0.key)?.isWrite == true && $0.value > 0 }) { return nothing }
        guard let here = try? recordFolder(of: URL(fileURLWithPath: run.folder).standardizedFileURL), let entries = try? RunRecorder.read(here) else {
            return "\(run.folder) has no record of the run on this machine or in the shared state"
        }
        guard entries.contains(where: { [.created, .updating, .deleting].contains($0.event) }) else { return nothing }
        return Self.undone(here)
    }

    public func canUndo(_ run: RecordedRun) -> Bool { undoRefusal(run) == nil }

    /// "already undone: …" when the undo of the run in `folder` ended (its own record, and this
    /// run's, not an earlier run's of a folder given again); nil otherwise.
    static func undone(_ folder: URL) -> String? {
        let undo = UndoOptions(folder: folder).undoFolder
        guard let mine = (try? RunRecorder.read(undo)) ?? nil, mine.contains(where: { $0.event == .end }) else { return nil }
        let started = ((try? RunRecorder.read(folder)) ?? nil)?.first(where: { $0.event == .begin })?.header?.started ?? 0
        guard (mine.first?.header?.started ?? 0) >= started else { return nil }
        return UndoRows.alreadyUndone(undo)
    }

    private func undoRecorded(_ folder: URL, force: Bool, journalName: String?) throws -> UndoPart {
        var options = UndoOptions(folder: folder)
        options.force = force
        options.dryRun = choices.dryRun
        options.links = links
        options.journalName = journalName
        let source = try UndoRows(options)
        if let done = source.alreadyDone { return UndoPart(result: nil, alreadyDone: done) }
        return UndoPart(result: try run(source), alreadyDone: nil)
    }

    /// Where one shard attempt's record (`part`: `I/N ATTEMPT`) of a sharded run is kept on this
    /// machine, with its undo's own record beside it.
    private func shardFolder(run name: String, part: String) -> URL {
        sharedRuns.appendingPathComponent("\(LinkStore.accountTag(links))-\(FNV.tag(name))")
            .appendingPathComponent("shard-" + part.replacingOccurrences(of: "/", with: "of").replacingOccurrences(of: " ", with: "-"))
    }

    /// Where records copied from the shared state are kept on this machine.
    private var sharedRuns: URL { StateFolder.url.appendingPathComponent("shared-runs") }

    /// The folder holding the run's record: `folder` itself, else (a shared account) a folder of
    /// this machine with the shared state's copy of what another machine recorded there; nil: none.
    private func recordFolder(of folder: URL) throws -> URL? {
        if FileManager.default.fileExists(atPath: folder.appendingPathComponent(RunRecorder.fileName).path) { return folder }
        guard account.state != nil else { return nil }
        let lines: [String]
        do { lines = try LinkStore(url: links).record(run: LinkStore.recordName(folder: folder))["whole"] ?? [] } catch {
            throw SyncStop("\(error)", cause: .unreachable)
        }
        guard !lines.isEmpty else { return nil }
        let here = sharedRuns.appendingPathComponent("\(LinkStore.accountTag(links))-\(FNV.tag(folder.path))")
        // Kept when it is there: it holds this machine's undo of the run too ("already undone").
        if !FileManager.default.fileExists(atPath: here.appendingPathComponent(RunRecorder.fileName).path) {
            try keep(lines, photos: LinkStore.recordName(folder: folder), in: here, naming: folder.path)
        }
        return here
    }

    /// Writes a shared record's lines as a run folder's record, with the photos the run saved
    /// before its deletes (those its lines name), so that undo can make those products again.
    private func keep(_ lines: [String], photos run: String, in folder: URL, naming: String) throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (path, data) in try LinkStore(url: links).savedPhotos(run: run) {
                let file = folder.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try data.write(to: file, options: .atomic)
            }
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: folder.appendingPathComponent(RunRecorder.fileName), options: .atomic)
        } catch {
            throw SyncStop("cannot keep the record of \(naming) in \(folder.path): \(error)", cause: .input)
        }
    }
}
