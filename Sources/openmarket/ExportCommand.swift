import ArgumentParser
import CatalogExport
import Foundation
import ImagePrep
import Manifest
import OpenMarketAPI
import ShopState
import Support
import Words

/// `--vendor me|all|N`, shared by export and migrate.
enum VendorChoice: ExpressibleByArgument, Equatable {
    case me, all, id(Int)

    init?(argument: String) {
        switch argument.lowercased() {
        case "me": self = .me
        case "all": self = .all
        default:
            guard let id = Int(argument), id > 0 else { return nil }
            self = .id(id)
        }
    }

    var filter: CatalogFilter.Vendor? {
        switch self {
        case .me: .me
        case .all: nil
        case .id(let id): .id(id)
        }
    }
}

/// `--since 2024-05-01` or `--since 2024-05-01T09:30:00` (local time, as the server's dates).
struct SinceDate: ExpressibleByArgument {
    var date: Date

    init?(argument: String) {
        let text = argument.count == 10 ? argument + "T00:00:00" : argument
        guard let date = OpenMarketTimestamp.parse(text) else { return nil }
        self.date = date
    }
}

extension ExportImages: ExpressibleByArgument {}
extension ManifestFormat: ExpressibleByArgument {}

struct ExportCommand: ServerCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Back up the catalog: a manifest that import reads back unchanged, with the photos and their checksums.",
        discussion: """
            Pages through the whole catalog (again from page 1 until a pass finds nothing new, since \
            products created or deleted meanwhile shift the pages), reads each product's detail \
            (as many at once as the server's pace allows, or --jobs), downloads its photos into \
            DIR/images/<id>/, and writes DIR/products.csv \
            (or .json/.jsonl) in id order, with the id column filled and image paths relative to DIR, \
            plus DIR/checksums.sha256 (check with: cd DIR && sha256sum -c checksums.sha256).

            The manifest appears under its name only when the export is complete. An interrupted \
            export (Ctrl-C, a crash, a lost network) continues with --resume: pages listed and \
            photos already downloaded and verified are not fetched again.

            Exit codes: 0 complete; 1 some products failed, or stopped (see the messages); 2 usage \
            or the output folder; 3 the server is unreachable.

            Examples:
              openmarket export --out backup/
              openmarket export --out mine/ --images thumbnails --server https://market.example --profile shop
              openmarket export --out everyone/ --vendor all
              openmarket export --out backup/ --resume
            """)

    @OptionGroup var server: ServerOptions

    @Option(name: .long, help: ArgumentHelp("Export a backup's snapshot instead of the shop (with --repo; no server is asked).", valueName: "id"))
    var snapshot: String?

    @Option(name: .long, help: ArgumentHelp("The backup repository of --snapshot.", valueName: "dir"))
    var repo: String?

    @Option(name: .long, help: ArgumentHelp("Folder for the manifest, images/ and checksums.sha256.", valueName: "dir"))
    var out: String

    @Option(name: .long, help: "csv, json, jsonl or xlsx (an Excel workbook: keys and ids as text cells, amounts as numbers).")
    var format: ManifestFormat = .csv

    @Option(name: .long, help: "none (the manifest keeps the server's image URLs), thumbnails, or originals.")
    var images: ExportImages = .originals

    @Option(name: .long, help: ArgumentHelp(
        "me (the vendor of the credentials: the default when there are credentials), all (every vendor's products: the default without them), or a vendor id.",
        valueName: "me|all|N"))
    var vendor: VendorChoice?

    @Option(name: .customLong("vendor-id"), help: ArgumentHelp("Only this vendor's products (same as --vendor N).", valueName: "N"))
    var vendorID: Int?

    @Option(name: .long, help: ArgumentHelp("Only products whose name contains this text (the server's search).", valueName: "text"))
    var search: String?

    @Option(name: .long, help: ArgumentHelp("Only products created at or after this date (local time).", valueName: "yyyy-mm-dd[Thh:mm:ss]"))
    var since: SinceDate?

    @Option(name: .customLong("per-page"), help: "Page size asked for (lowered if the server refuses or caps it).")
    var perPage = 100

    @Option(name: .long, help: ArgumentHelp("""
        Reads at once (details and photos), fixed. Default: found while the export goes, from 16 \
        (4 with --images none) up to 64, as an import finds its writes (more while the server \
        answers as fast, fewer when it queues or answers 429): a product is four reads (its detail \
        and photos) where an import makes one write.
        """, valueName: "N"))
    var jobs: Int?

    @Flag(name: .long, help: "Continue an interrupted export in --out.")
    var resume = false

    @Flag(name: .long, help: "Replace an earlier export in --out (its manifest, checksums and images/).")
    var overwrite = false

    @Option(name: .customLong("max-image-bytes"), help: "Largest photo downloaded, in bytes; a larger one fails its product.")
    var maxImageBytes = ServerLimits.maxDownloadBytes

    @OptionGroup var progressOption: QuietOption

    func validate() throws {
        if let jobs, !(1...64).contains(jobs) { throw ValidationError(Console.say("arg_range", "--jobs", "1", "64")) }
        guard perPage >= 1 && perPage <= 10_000 else { throw ValidationError(Console.say("arg_range", "--per-page", "1", "10000")) }
        guard maxImageBytes >= 1024 else { throw ValidationError(Console.say("arg_at_least", "--max-image-bytes", "1024")) }
        if vendorID != nil && vendor != nil { throw ValidationError(Console.say("arg_choose_one", "--vendor", "--vendor-id")) }
        if resume && overwrite { throw ValidationError(Console.say("arg_resume_overwrite")) }
        if (snapshot == nil) != (repo == nil) { throw ValidationError(Console.say("arg_together", "--snapshot", "--repo")) }
    }

    func execute() async throws -> ExitStatus {
        if let snapshot, let repo {
            try exportSnapshot(snapshot, repo)
            return .ok
        }
        var options = ExportOptions(directory: URL(fileURLWithPath: out).standardizedFileURL)
        options.format = format
        options.images = images
        options.perPage = perPage
        options.jobs = jobs ?? (images == .none ? 4 : 16)
        options.adaptiveJobs = jobs == nil
        options.resume = resume
        options.overwrite = overwrite
        options.maxImageBytes = maxImageBytes
        let progress = ProgressLine(quiet: progressOption.quiet)
        defer { progress.finish() }
        let summary = try await Connection.using(server) { try await export(from: $0, options, progress: progress) }
        progress.finish()
        Self.printSummary(summary, options: options)
        return summary.stopped != nil || !summary.failed.isEmpty ? .someFailed : .ok
    }

    /// The catalog of the connection's server, with the keys this account linked.
    private func export(from connection: Connection, _ options: ExportOptions, progress: ProgressLine) async throws -> ExportSummary {
        var options = options
        // A backup is of one's own shop: the products of the credentials' vendor unless asked.
        let choice = vendor ?? (connection.client.writer == nil ? .all : .me)
        if vendor == nil && vendorID == nil && choice == .all {
            Console.error("openmarket export: " + Console.say("t_export_all_vendors"))
        }
        options.filter = CatalogFilter(vendor: vendorID.map { .id($0) } ?? choice.filter, search: search, since: since?.date)
        // The key column: the merchant keys this account's imports linked to its products.
        do { options.keys = try connection.account.linkedKeys() } catch {
            Console.error("openmarket export: " + Console.say("t_export_no_keys", "\(error)"))
        }
        let exporter = CatalogExporter(options: options, client: connection.client)
        exporter.onProgress = { phase, done, total in
            progress.update(Console.say("t_phase_\(phase)"), done: done, total: total, unit: Console.say(phase == "listing" ? "t_unit_pages" : "t_unit_products"))
        }
        let client = connection.client
        return try await Runner.onThread {
            do { _ = try client.health() } catch {
                throw CommandFailure(say: "f_server_no_answer", "\(error)", exitCode: .unreachable)
            }
            let signals = SignalStop.install { exporter.stop("stopped by a signal") }
            defer { signals.forEach { $0.cancel() } }
            do { return try exporter.run() } catch let error as ExportError {
                throw CommandFailure(error.phrase, exitCode: .badInput)
            }
        }
    }

    static func printSummary(_ summary: ExportSummary, options: ExportOptions) {
        let rate = String(format: "%.1f", summary.productsPerSecond)
        if let stopped = summary.stopped {
            Console.line(Console.say("t_export_stopped", StatusWords.stopReason(stopped, Console.language), String(summary.exported),
                                     String(summary.listed), options.manifestName))
            Console.line(Console.say("t_export_resume"))
            return
        }
        let flight = summary.inFlight > 0 ? Console.say("t_export_reads", String(summary.inFlight)) : ""
        var line = Console.say("t_export_done", String(summary.exported), summary.manifest, String(format: "%.1f", summary.seconds), rate, flight)
        if options.images != .none {
            line += Console.say("t_export_photos", String(summary.imagesDownloaded), ByteCount.text(summary.imageBytes))
            if summary.imagesReused > 0 { line += Console.say("t_export_photos_kept", String(summary.imagesReused)) }
            line += Console.say("t_export_checksums")
        }
        Console.line(line + ".")
        var changes: [String] = []
        if summary.appeared > 0 { changes.append(Console.say("t_export_appeared", String(summary.appeared))) }
        if summary.deleted > 0 { changes.append(Console.say("t_export_deleted", String(summary.deleted))) }
        if options.filter.isEmpty && summary.countKnown && summary.totalCount != summary.exported {
            changes.append(Console.say("t_export_counted", String(summary.totalCount), String(summary.exported)))
        }
        if !changes.isEmpty { Console.line(Console.say("t_export_during", changes.joined(separator: "; "))) }
        for warning in summary.warnings { Console.line(Console.say("t_export_warning", warning)) }
        for failure in summary.failed.prefix(10) { Console.line(Console.say("t_export_failed", String(failure.id), failure.error)) }
        if summary.failed.count > 10 { Console.line(Console.say("t_export_more", String(summary.failed.count - 10))) }
        if !summary.failed.isEmpty { Console.line(Console.say("t_export_missing", String(summary.failed.count))) }
    }
}

extension ExportCommand {
    /// `--snapshot ID --repo DIR`: the snapshot as the portable spreadsheet (`products.csv`
    /// and `images/`, each photo once), which `import` reads back; no server.
    func exportSnapshot(_ id: String, _ repo: String) throws {
        let repository = try RepositoryOption.existing(repo)
        let folder = URL(fileURLWithPath: out).standardizedFileURL
        let manifest = folder.appendingPathComponent("products.\(format == .jsonl ? "jsonl" : format.rawValue)")
        if FileManager.default.fileExists(atPath: manifest.path) && !overwrite {
            throw CommandFailure(say: "f_export_exists", manifest.path, exitCode: .badInput)
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let chosen = try repository.find(id)
            let written = try repository.writeManifest(chosen, to: manifest, copyPhotosTo: folder.appendingPathComponent("images"))
            Console.line(Console.say("t_export_snapshot", manifest.path, String(written.written), chosen.id, folder.appendingPathComponent("images").path))
        } catch {
            throw CommandFailure(error, exitCode: .badInput)
        }
    }
}
