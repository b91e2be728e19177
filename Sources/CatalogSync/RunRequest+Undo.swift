import Foundation
import ShopState
import Support
import Words

/// One recorded run (or one shard of a sharded run) taken back, or why there was nothing to do.
public struct UndoPart: Sendable {
    /// The shard, for a part of a sharded run (`0/4`); nil for a run of its own.
    public var shard: String?
    /// The run taken back (nil: it already was, said in `alreadyDone`).
    public var result: SyncResult?
    public var alreadyDone: Phrase?
}

/// Undo, assembled once for every door: a run's folder on this machine, a run another machine
/// of a shared account recorded, or a sharded run whole. The CLI's `undo` and the console's
/// Undo button both come here, so that a run one of them can find the other finds too.
extension RunRequest {
    /// The run recorded for `folder` taken back (or its plan, with `choices.dryRun`): its record
    /// where the account keeps records (the shared state of a shared account, whichever machine
    /// made the run; else the folder).
    public func undo(folder: URL, force: Bool = false) throws -> UndoPart {
        let folder = folder.standardizedFileURL
        guard let record = try record(of: folder) else {
            throw SyncStop(say: "s_no_record_give", folder.path, RunRecorder.fileName, cause: .input)
        }
        var options = UndoOptions(folder: folder)
        options.record = record
        options.undoFolder = undoFolder(of: folder)
        return try undoRecorded(options, force: force)
    }

    /// A sharded run, whole: each shard's record read from the shared state and taken back as a
    /// run's is (the undo's report and its own record by a folder of this machine, so that the
    /// same request again finishes it). `starting` is told each shard before it goes.
    public func undo(run name: String, force: Bool = false, starting: (String) -> Void = { _ in }) throws -> [UndoPart] {
        let store = try sharedStore(for: name)
        let parts: [String: [String]]
        do { parts = try store.record(run: name) } catch { throw SyncStop("\(error)", cause: .unreachable) }
        guard !parts.isEmpty else {
            throw SyncStop(say: "s_no_run_named", name, cause: .input)
        }
        var done: [UndoPart] = []
        for part in parts.keys.sorted(by: { $0.compare($1, options: .numeric) == .orderedAscending }) {
            let folder = shardFolder(run: name, part: part)
            var options = UndoOptions(folder: folder)
            options.record = SharedRecord(store: store, run: name, part: part)
            options.journalName = "undo-\(name)-\(folder.lastPathComponent)"
            starting(part)
            var undone = try undoRecorded(options, force: force)
            undone.shard = part
            done.append(undone)
        }
        return done
    }

    /// Why a recorded run cannot be taken back (nil: it can): it wrote nothing, its record is
    /// nowhere, or it was undone already. What the console asks before it shows Undo, and says
    /// to a form sent anyway.
    public func undoRefusal(_ run: RecordedRun) -> Phrase? {
        if let name = run.runName {
            guard let store = try? sharedStore(for: name) else { return Phrase("f_undo_sharded", name) }
            guard let parts = try? store.record(run: name), !parts.isEmpty else { return Phrase("f_undo_no_shared_record", name) }
            let undone = parts.keys.allSatisfy { part in
                Self.undone(SharedRecord(store: store, run: name, part: part), undoFolder: undoFolder(of: shardFolder(run: name, part: part)),
                            links: links) != nil
            }
            return undone ? Phrase("f_undo_all_undone", name) : nil
        }
        let nothing = Phrase("f_undo_nothing")
        if let counts = run.counts,
           !counts.contains(where: { RowOutcome.Status(rawValue: $0.key)?.isWrite == true && $0.value > 0 }) { return nothing }
        let folder = URL(fileURLWithPath: run.folder).standardizedFileURL
        guard let record = try? record(of: folder), let entries = (try? RunRecorder.read(record)) ?? nil else {
            return Phrase("f_undo_no_record", run.folder)
        }
        guard entries.contains(where: { [.created, .updating, .deleting].contains($0.event) }) else { return nothing }
        return Self.undone(record, undoFolder: undoFolder(of: folder), links: links)
    }

    public func canUndo(_ run: RecordedRun) -> Bool { undoRefusal(run) == nil }

    /// "already undone: …" when the undo of the run recorded in `record` ended (its own record,
    /// found by `undoFolder`, and this run's, not an earlier run's of a folder given again); nil otherwise.
    static func undone(_ record: any RunRecordStore, undoFolder: URL, links: StoreAddress?) -> Phrase? {
        guard let mine = (try? RunRecords.read(undoFolder, links: links)) ?? nil, mine.contains(where: { $0.event == .end }) else { return nil }
        let started = ((try? RunRecorder.read(record)) ?? nil)?.first(where: { $0.event == .begin })?.header?.started ?? 0
        guard (mine.first?.header?.started ?? 0) >= started else { return nil }
        return UndoRows.alreadyUndone(undoFolder)
    }

    private func undoRecorded(_ given: UndoOptions, force: Bool) throws -> UndoPart {
        var options = given
        options.force = force
        options.dryRun = choices.dryRun
        options.links = links
        let source = try UndoRows(options)
        if let done = source.alreadyDone { return UndoPart(result: nil, alreadyDone: done) }
        return UndoPart(result: try run(source), alreadyDone: nil)
    }

    /// The account's shared state, where a sharded run is recorded.
    private func sharedStore(for name: String) throws -> LinkStore {
        guard links.isShared else {
            throw SyncStop("--run takes back a sharded run from the shared state: give --state postgres://… (or OPENMARKET_STATE)", cause: .input)
        }
        do { return try AccountState.open(links) } catch { throw SyncStop("\(error)", cause: .unreachable) }
    }

    /// The record of the run reported in `folder`, wherever the account keeps it; nil: none.
    private func record(of folder: URL) throws -> (any RunRecordStore)? {
        do { return try RunRecords.find(folder, links: links) } catch { throw SyncStop("\(error)", cause: .unreachable) }
    }

    /// Where the undo of the run reported in `folder` reports (and is found by): `folder/undo`,
    /// or, for a run another machine made (its folder is not here), a folder of this machine.
    private func undoFolder(of folder: URL) -> URL {
        let here = FileManager.default.fileExists(atPath: folder.path)
            ? folder : sharedRuns.appendingPathComponent("\(links.tag)-\(FNV.tag(folder.path))")
        return here.appendingPathComponent("undo", isDirectory: true)
    }

    /// Where one shard attempt (`part`: `I/N ATTEMPT`) of a sharded run is taken back on this
    /// machine: its undo's report and record beside it.
    private func shardFolder(run name: String, part: String) -> URL {
        sharedRuns.appendingPathComponent("\(links.tag)-\(FNV.tag(name))")
            .appendingPathComponent("shard-" + part.replacingOccurrences(of: "/", with: "of").replacingOccurrences(of: " ", with: "-"))
    }

    /// Where undos of runs recorded by other machines report on this one.
    private var sharedRuns: URL { StateFolder.url.appendingPathComponent("shared-runs") }
}
