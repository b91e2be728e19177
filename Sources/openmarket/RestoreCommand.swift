import ArgumentParser
import Backups
import CatalogSync
import Foundation
import Support

struct RestoreCommand: ShopCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put the shop back as a snapshot had it: through the sync, with a plan first and undo after.",
        discussion: """
            The snapshot's products (all, or --key / --id ones) are imported as a sheet: fields \
            that differ are PATCHed, products deleted since are made again from their stored \
            fields and photos (byte for byte) and their keys linked to them, equal ones are left \
            alone. Products made after the snapshot are kept, unless --delete-newer (with \
            --max-deletes N; more refuses the whole run). Price guardrails are lifted (a restore \
            is deliberate). A restore is a run: --dry-run shows the plan, the report and \
            `openmarket undo` work as for any import (the report is in REPO/restores/).

            Examples:
              openmarket restore --repo ~/shop-backup --at 2026-11-13 --dry-run
              openmarket restore --repo ~/shop-backup --snapshot latest --key TEA-001 --key TEA-002
            """)

    @OptionGroup var repository: RepositoryOption

    @Option(name: .long, help: ArgumentHelp("The snapshot: its id, a unique start of it, or latest.", valueName: "id"))
    var snapshot: String?

    @Option(name: .long, help: ArgumentHelp("The last snapshot at or before this date (the end of the day) or time.", valueName: "yyyy-mm-dd[Thh:mm:ss]"))
    var at: String?

    @Option(name: .long, help: ArgumentHelp("Only this merchant key (repeat for more).", valueName: "key"))
    var key: [String] = []

    @Option(name: .long, help: ArgumentHelp("Only this product id of the snapshot (repeat for more).", valueName: "id"))
    var id: [Int] = []

    @Flag(name: .customLong("dry-run"), help: "Read the shop and report what the restore would do; nothing is written.")
    var dryRun = false

    @Flag(name: .customLong("delete-newer"), help: "Also delete the products made after the snapshot (needs --max-deletes).")
    var deleteNewer = false

    @Option(name: .customLong("max-deletes"), help: ArgumentHelp("With --delete-newer: at most N; more refuses the run.", valueName: "N"))
    var maxDeletes = 0

    @OptionGroup var server: ServerOptions

    func validate() throws {
        guard (snapshot == nil) != (at == nil) else { throw ValidationError(Console.say("arg_give_one", "--snapshot ID", "--at DATE")) }
        if let at, Self.date(at) == nil { throw ValidationError(Console.say("arg_at_date")) }
        if deleteNewer && (!key.isEmpty || !id.isEmpty) { throw ValidationError(Console.say("arg_delete_newer")) }
    }

    func execute(on connection: Connection) async throws -> ExitStatus {
        let repository = try repository.existing()
        let rows: SnapshotRows
        do {
            let chosen = try snapshot.map(repository.find) ?? repository.find(at: Self.date(at!)!)
            rows = try SnapshotRows(repository, snapshot: chosen, keys: key, ids: id)
        } catch {
            throw CommandFailure(error, exitCode: .badInput)
        }
        let lock: RunLock
        do { lock = try repository.lock("restore") } catch { throw CommandFailure(error, exitCode: .badInput) }
        defer { lock.release() }
        Console.line(Console.say("r_restoring", count: rows.products.count, String(rows.products.count), rows.snapshot.id,
                                 ISO8601DateFormatter().string(from: rows.snapshot.time)))
        var choices = RunChoices()
        choices.dryRun = dryRun
        choices.deleteMissing = deleteNewer
        choices.maxDeletes = maxDeletes
        let result = try await Runner.sync(rows, connection.request(choices))
        return await Runner.conclude(result, command: "restore", connection: connection)
    }

    /// `2026-11-13` (the end of that day, UTC) or `2026-11-13T03:00:00` (UTC).
    static func date(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        if let exact = formatter.date(from: text) { return exact }
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.date(from: text).map { $0.addingTimeInterval(86_399) }
    }
}
