import ArgumentParser
import Backups
import Foundation
import Support

/// `--repo DIR`, shared by the backup commands.
struct RepositoryOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The backup repository (a folder; made by the first backup).", valueName: "dir"))
    var repo: String

    var repository: BackupRepository { BackupRepository(url: URL(fileURLWithPath: repo)) }

    /// The repository, which must exist.
    func existing() throws -> BackupRepository { try Self.existing(repo) }

    static func existing(_ repo: String) throws -> BackupRepository {
        let repository = BackupRepository(url: URL(fileURLWithPath: repo))
        guard repository.config() != nil else {
            throw CommandFailure(say: "f_not_repository", repo, repo, exitCode: .badInput)
        }
        return repository
    }
}

struct BackupCommand: ServerCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Take a snapshot of the account's products into a repository that keeps each photo once.",
        discussion: """
            A snapshot is every product's fields and merchant key, and its photos by content. \
            Photos are stored once, named by their SHA-256: on this API a product's photos \
            never change without a new id, so a backup reads the list pages and fetches \
            details and photos only for products the repository has not seen — a night with \
            nothing new costs the list pages. A snapshot appears whole or not at all (written \
            under temporary names, published last); a killed backup leaves the photos it \
            stored for the next. One backup, forget or restore of a repository at a time.

            Then: `openmarket snapshots`, `diff`, `history`, `restore`, `forget`, `check`, and \
            `export --snapshot` (a spreadsheet from a snapshot, with no server).

            --daily HH:MM or --every INTERVAL schedule the backup instead of running it (a \
            systemd user timer, or the crontab line, as `feed schedule`; --remove takes it \
            away). The scheduled run is this command with --repo and --server/--profile; the \
            credentials come from the config file or the environment, never from the unit file.

            Exit codes: 0 a snapshot was made; 2 the repository cannot be used; 3 the server \
            cannot be read; 5 another run has the repository.
            """)

    @OptionGroup var repository: RepositoryOption
    @OptionGroup var server: ServerOptions

    @Option(name: .long, help: "Products whose details and photos are fetched at the same time.")
    var jobs = 4

    @OptionGroup var schedule: ScheduleOptions

    func validate() throws {
        if schedule.isGiven, server.secret != nil || server.identifier != nil {
            throw ValidationError(Console.say("arg_backup_credentials"))
        }
    }

    func execute() async throws -> ExitStatus {
        if schedule.isGiven {
            try scheduleBackup()
            return .ok
        }
        let (repository, jobs) = (self.repository.repository, self.jobs)
        let progress = ProgressLine(quiet: false)
        defer { progress.clear() }
        let info = try await Connection.using(server) { connection in
            let run = BackupRun(repository: repository, client: connection.client, account: connection.account)
            run.jobs = max(1, jobs)
            run.onProgress = { done, total in progress.update(Console.say("t_phase_new_photos"), done: done, total: total, unit: Console.say("t_unit_products")) }
            do {
                return try await Runner.onThread { try run.run() }
            } catch let busy as RunLock.Busy {
                throw CommandFailure(busy.description, exitCode: .busy)
            } catch let error as BackupError {
                throw CommandFailure(error, exitCode: .badInput)
            }
        }
        progress.clear()
        Console.line(Console.say("backup_done", info.id, String(info.products), String(info.newProducts), String(info.photosAdded),
                                 ByteCount.text(info.bytesAdded), String(format: "%.1f", info.seconds)))
        return .ok
    }
}

extension BackupCommand {
    private func scheduleBackup() throws {
        let url = repository.repository.url
        var arguments = ["backup", "--repo", url.path]
        if let server = server.server { arguments += ["--server", server] }
        if let profile = server.profile { arguments += ["--profile", profile] }
        if let config = server.client.config { arguments += ["--config", URL(fileURLWithPath: config).standardizedFileURL.path] }
        let name = url.lastPathComponent + "-" + FNV.tag(url.path).prefix(6)
        try schedule.apply(Schedule(kind: "backup", name: name, arguments: arguments, binary: ScheduleOptions.binary, when: schedule.when),
                           log: UserFolders.state.appendingPathComponent("backups/\(name).log"))
    }
}

struct SnapshotsCommand: OpenMarketCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshots",
        abstract: "List a repository's snapshots, oldest first.")

    @OptionGroup var repository: RepositoryOption

    @Option(name: .long, help: "text or json (an array, oldest first: id, time, products, new_products, photos_added, bytes_added, seconds).")
    var format = "text"

    func validate() throws {
        guard ["text", "json"].contains(format) else { throw ValidationError(Console.say("arg_one_of", "--format", "text, json")) }
    }

    func execute() async throws -> ExitStatus {
        let snapshots = try repository.existing().list()
        if format == "json" {
            let data = try BackupRepositoryJSON.encoder.encode(snapshots)
            Console.out(data + Data("\n".utf8))
            return .ok
        }
        if snapshots.isEmpty { Console.line(Console.say("t_no_snapshots")) }
        for snapshot in snapshots {
            Console.line(Console.say("t_snapshot_line", snapshot.id, ISO8601DateFormatter().string(from: snapshot.time), String(snapshot.products),
                                     String(snapshot.newProducts), ByteCount.text(snapshot.bytesAdded)))
        }
        return .ok
    }
}

enum BackupRepositoryJSON {
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }
}

struct DiffCommand: OpenMarketCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "What changed between two snapshots: products created (+), deleted (-), fields changed (~).")

    @OptionGroup var repository: RepositoryOption

    @Argument(help: "The earlier snapshot (an id, a unique start of one, or latest).")
    var from: String

    @Argument(help: "The later snapshot.")
    var to: String

    func execute() async throws -> ExitStatus {
        let repository = try repository.existing()
        do {
            let diff = SnapshotDiff(from: try repository.products(of: try repository.find(from)),
                                    to: try repository.products(of: try repository.find(to)))
            diff.lines.forEach(Console.line)
            Console.line(Console.say("backup_diff", String(diff.created.count), String(diff.deleted.count), String(diff.changed.count)))
        } catch {
            throw CommandFailure(error, exitCode: .badInput)
        }
        return .ok
    }
}

struct HistoryCommand: OpenMarketCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "A product's fields over time, a line per change, from every snapshot.")

    @OptionGroup var repository: RepositoryOption

    @Argument(help: ArgumentHelp("A merchant key, or a product id (#123).", valueName: "KEY|ID"))
    var product: String

    func execute() async throws -> ExitStatus {
        let lines: [ProductHistory.Line]
        do { lines = try ProductHistory.of(product, in: try repository.existing()) } catch {
            throw CommandFailure(error, exitCode: .badInput)
        }
        if lines.isEmpty { Console.line(Console.say("t_no_snapshot_has", product)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        for line in lines { Console.line("\(formatter.string(from: line.time))  \(line.phrase.text(Console.language))") }
        return .ok
    }
}

struct ForgetCommand: OpenMarketCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Remove the snapshots a policy does not keep; --prune frees what no snapshot uses.",
        discussion: """
            Keeps the newest snapshot of each of the last N days (weeks, months) that have one, \
            and the last N snapshots, as restic counts them; a snapshot any rule keeps stays. \
            --prune then removes every photo no kept snapshot uses.
            """)

    @OptionGroup var repository: RepositoryOption

    @Option(name: .customLong("keep-daily"), help: ArgumentHelp("The newest snapshot of each of the last N days that have one.", valueName: "N"))
    var daily = 0
    @Option(name: .customLong("keep-weekly"), help: ArgumentHelp("… of each of the last N weeks (ISO weeks).", valueName: "N"))
    var weekly = 0
    @Option(name: .customLong("keep-monthly"), help: ArgumentHelp("… of each of the last N months.", valueName: "N"))
    var monthly = 0
    @Option(name: .customLong("keep-last"), help: ArgumentHelp("The last N snapshots.", valueName: "N"))
    var last = 0

    @Flag(name: .long, help: "Also remove the photos no kept snapshot uses.")
    var prune = false

    @Flag(name: .customLong("dry-run"), help: "Say what would be removed; remove nothing.")
    var dryRun = false

    func execute() async throws -> ExitStatus {
        let policy = ForgetPolicy(daily: daily, weekly: weekly, monthly: monthly, last: last)
        let result: BackupRepository.ForgetResult
        do { result = try repository.existing().forget(policy, prune: prune, dryRun: dryRun) } catch {
            throw CommandFailure(error, exitCode: error is RunLock.Busy ? .busy : .badInput)
        }
        for (snapshot, why) in result.kept { Console.line(Console.say("f_keep", snapshot.id, why.text(Console.language))) }
        for snapshot in result.removed { Console.line(Console.say(dryRun ? "f_would_remove" : "f_remove", snapshot.id)) }
        if prune {
            Console.line(Console.say(dryRun ? "f_would_free" : "f_freed", count: result.photosFreed, String(result.photosFreed), ByteCount.text(result.bytesFreed)))
        }
        return .ok
    }
}

struct CheckCommand: OpenMarketCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a repository: every snapshot readable, every photo it uses there (--read-data: and intact).",
        discussion: "Exit codes: 0 clean; 1 problems (each names the photo and the products that use it); 2 no repository.")

    @OptionGroup var repository: RepositoryOption

    @Flag(name: .customLong("read-data"), help: "Hash every photo and compare it with its name.")
    var readData = false

    func execute() async throws -> ExitStatus {
        let result = try repository.existing().check(readData: readData)
        result.problems.forEach(Console.line)
        Console.line(Console.say("c_summary", Console.say("c_snapshots", count: result.snapshots, String(result.snapshots)),
                                 Console.say("c_photos", count: result.photos, String(result.photos)), readData ? Console.say("c_data_read") : "",
                                 result.isClean ? Console.say("c_no_problems") : Console.say("c_problems", count: result.problems.count, String(result.problems.count))))
        if !result.isClean { return .someFailed }
        return .ok
    }
}
