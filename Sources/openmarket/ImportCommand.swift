import ArgumentParser
import CatalogSync
import Dispatch
import Foundation
import ImagePrep
import Manifest
import OpenMarketAPI
import ShopState
import Support

struct ImportCommand: ShopCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Make the shop equal to a manifest: create what is missing, update what differs, nothing twice.",
        discussion: """
            One merchant key is one product of the account, whatever the file is called: the \
            `key` column (or sku, 상품코드, 판매자상품코드, 관리코드), or, without one, the name. \
            openmarket remembers which product each key is in a link store per account (under \
            $XDG_STATE_HOME/openmarket, by default ~/.local/state/openmarket; for the built-in \
            sandbox, in its data folder). A key it does not know is matched with the product of \
            this vendor that has exactly its name (reported as linked); two such products make \
            the row fail, naming both. Nothing is ever guessed or created twice.

            The shop is read first (in pages). Then each row: a new key creates a product, a \
            known one sends only the fields that differ (a PATCH), an equal one sends nothing. \
            The report says what changed: `price 32000 → 31000; stock 8 → 0`.

            Partial files: a file with a key (or id, or name) column and any other columns \
            changes only those columns. A blank cell keeps the shop's value; 0 is a value. \
            In a sheet of keys and stock (no name column), +5 adds and -3 subtracts (never \
            below 0); in a sheet with names, stock is a count, and -3 fails its row saying so. To empty a description, write \
            [clear] in its cell. A row that would create needs a name, a price and 1 to 5 photos; \
            an empty stock cell is not 0 (--default-stock N says what it means for a new product).

            Sheets from elsewhere: an id column names a product only where this account linked \
            it to the row's key (or the product has the row's name); another platform's number \
            that happens to be one of the shop's fails its row, touching nothing (--ignore-id \
            reads no id). A key Excel stripped of its zeros (120 for 00120) is that product. \
            HTML descriptions are sent as text (--keep-html keeps them); photos in one cell may \
            be separated by ; , | or line breaks.

            Photos cannot be changed through the API: a row whose photos differ from the ones \
            its product was created with is reported, and the product keeps its photos; with \
            --replace-photos it is made again (new product, old one deleted, key moved).

            Guardrails: a price moved by more than --max-price-change percent (50) fails its row \
            unless --force; --max-creates and --max-updates cap what one run does (rows past the \
            cap fail). Use --dry-run to see every change first: the report lists what each row \
            would do, each changed field old → new, price changes in percent.

            Products that left the sheet: --delete-missing deletes this vendor's products the \
            file no longer lists (keys no longer in it, and products never linked to a key whose \
            name and id no row has). Deleting needs a cap: over --max-deletes N (default 0) the \
            run is refused as a whole before anything is sent. A row that fails still keeps its \
            product. Try it with --dry-run (would-delete rows).

            Every run that writes records what it did next to its report (run.jsonl, and the \
            photos of what it deletes): `openmarket undo REPORT_DIR` takes it back, and \
            `openmarket runs` lists the runs of the account.

            Photos are shrunk under the server's limit on all cores and uploaded as many at once \
            as the server takes (found while the run goes; --jobs N fixes it). A journal \
            records every write, so a run that was stopped, crashed or lost \
            its network can simply be run again: a write whose answer was lost is looked for on \
            the server before anything is sent again. Rows a stop left are `not sent`, not \
            failed: the same command again sends them.

            The report (report.csv, report.json, report.html, and report.xlsx: the failed rows \
            first, to fix and import again) goes to --report, by default a \
            folder named by date and time next to the manifest.

            Exit codes: 0 every row succeeded; 1 some rows failed (see the report) or the run \
            stopped; 2 an unreadable manifest; 3 the server is unreachable, refused the \
            credentials, or its products could not be read, before anything was written; 64 a \
            usage error (an unknown option, a bad value).

            Examples:
              openmarket import samples/products.csv
              openmarket import november.csv --dry-run
              openmarket import november.csv --delete-missing --max-deletes 20
              openmarket import stock.csv                  (key,stock: only stock changes)
              openmarket import shop.xlsx --sheet 상품       (a workbook: .xlsx, .xlsm, LibreOffice's .ods)
              openmarket import products.csv --images photos/ --server https://market.example --jobs 8
              openmarket import backup/products.csv --mode create   (restore into an empty account)
            """)

    @Argument(help: ArgumentHelp("The manifest: \(ManifestFormat.extensionsSaid)."))
    var manifest: String

    @OptionGroup var server: ServerOptions

    @OptionGroup var reading: ManifestOptions

    @Option(name: .long, help: "sync (default: create missing, update what differs; upsert is another name for it), create (always new products, for restoring a backup into an empty account), update (only existing products; a row matching none fails).")
    var mode: ImportMode = .sync

    @Option(name: .long, help: ArgumentHelp("""
        Writes in flight at once. By default the number is found while the run goes, from 4 up \
        to 24: doubled while answers come back as fast, one more while they stay so, fewer when \
        they slow down (the server queues them), half on a 429, 503 or timeout. --jobs N keeps N.
        """, valueName: "N"))
    var jobs: Int?

    @OptionGroup var pace: RateOption

    @Flag(name: .customLong("dry-run"), help: "Read the shop and report what each row would do (would-create, would-update with each change); nothing is written to the shop or the link store.")
    var dryRun = false

    @Option(name: .customLong("max-errors"), help: ArgumentHelp("Stop after this many failed rows.", valueName: "N"))
    var maxErrors: Int?

    @Option(name: .customLong("max-price-change"), help: ArgumentHelp("A row moving a price by more than this percentage fails (unless --force).", valueName: "PCT"))
    var maxPriceChange: Double = 50

    @Option(name: .customLong("max-creates"), help: ArgumentHelp("Create at most N products; rows past it fail.", valueName: "N"))
    var maxCreates: Int?

    @Option(name: .customLong("max-updates"), help: ArgumentHelp("Update at most N products; rows past it fail.", valueName: "N"))
    var maxUpdates: Int?

    @Flag(name: .long, help: "Apply price changes over --max-price-change.")
    var force = false

    @Flag(name: .customLong("replace-photos"), help: "A product whose photos differ from the row's is made again: a new product with the row's photos, then the old one deleted and the key moved (both ids in the report).")
    var replacePhotos = false

    @Flag(name: .customLong("delete-missing"), help: "Delete this vendor's products that the file no longer lists (refused as a whole above --max-deletes).")
    var deleteMissing = false

    @Option(name: .customLong("max-deletes"), help: ArgumentHelp("With --delete-missing: delete at most N products; more refuses the run, nothing sent.", valueName: "N"))
    var maxDeletes = 0

    @Option(name: .long, help: ArgumentHelp(
        "Only the rows whose merchant key hashes to I of N (0 ≤ I < N): N processes, on any machines, given 0/N … N-1/N import the sheet between them, each row once. Needs --state and --run.",
        valueName: "I/N"))
    var shard: String?

    @Option(name: .long, help: ArgumentHelp("The run the shards of one import share (its name in `runs`; the same on every shard).", valueName: "name"))
    var run: String?

    @Option(name: .long, help: ArgumentHelp("Folder for report.csv, report.json and report.html.", valueName: "dir"))
    var report: String?

    @Option(name: .long, help: ArgumentHelp("The journal file (default: one per manifest name and account, in the state folder).", valueName: "path"))
    var journal: String?

    @OptionGroup var linkStore: LinksOption

    @Option(name: .customLong("max-bytes"), help: "Largest image sent, in bytes (the server's limit).")
    var maxBytes = ProductRules.maxImageBytes

    @Option(name: .customLong("max-dimension"), help: ArgumentHelp("Longest edge of a re-encoded photo.", valueName: "px"))
    var maxDimension = 2048

    @Flag(name: .customLong("no-cache"), help: """
        Do not reuse photos shrunk by earlier runs, and read every photo file again to see \
        whether it changed (by default an existing product's photo whose size, times and inode \
        are as when it was last read is not read again).
        """)
    var noCache = false

    @OptionGroup var sharedCache: SharedCacheOption

    @OptionGroup var progressOption: QuietOption

    @Option(name: .customLong("log-format"), help: "text or json (one JSON object per event, for machines).")
    var logFormat = "text"

    func validate() throws {
        if let jobs, !(1...64).contains(jobs) { throw ValidationError(Console.say("arg_range", "--jobs", "1", "64")) }
        if let maxErrors, maxErrors < 1 { throw ValidationError(Console.say("arg_at_least", "--max-errors", "1")) }
        if maxPriceChange < 0 { throw ValidationError(Console.say("arg_at_least", "--max-price-change", "0")) }
        if let maxCreates, maxCreates < 0 { throw ValidationError(Console.say("arg_at_least", "--max-creates", "0")) }
        if let maxUpdates, maxUpdates < 0 { throw ValidationError(Console.say("arg_at_least", "--max-updates", "0")) }
        if maxDeletes < 0 { throw ValidationError(Console.say("arg_at_least", "--max-deletes", "0")) }
        if deleteMissing && mode == .create { throw ValidationError(Console.say("arg_delete_missing_mode")) }
        if noCache && sharedCache.cache != nil { throw ValidationError(Console.say("arg_choose_one", "--cache", "--no-cache")) }
        guard ["text", "json"].contains(logFormat) else { throw ValidationError(Console.say("arg_one_of", "--log-format", "text, json")) }
        if let shard {
            guard Shard(shard) != nil else { throw ValidationError(Console.say("arg_shard", shard)) }
            guard run != nil else { throw ValidationError(Console.say("arg_shard_run")) }
            if deleteMissing { throw ValidationError(Console.say("arg_shard_delete")) }
        } else if run != nil {
            throw ValidationError(Console.say("arg_run_shard"))
        }
    }

    /// One pacer for every request of the run: --rate, and a 429 seen by one worker pauses them all.
    func configure(_ client: inout ClientConfiguration) { pace.configure(&client) }

    func execute(on connection: Connection) async throws -> ExitStatus {
        var choices = try choices()
        let manifestURL = try SheetSource.local(manifest, options: &choices.validation)
        guard FileManager.default.fileExists(atPath: manifestURL.path) else {
            throw CommandFailure(Console.say("t_no_such_file", manifest), exitCode: .badInput)
        }
        let onStorage = S3Objects.isAddress(manifest)
        if !noCache { choices.cache = try sharedCache.imageCache(transport: TransportSettings()) }
        var request = connection.request(choices)
        let progress = ProgressLine(quiet: progressOption.quiet || logFormat == "json", json: logFormat == "json")
        request.onProgress = { done, total, failed in progress.update(done: done, total: total, failed: failed) }
        request.onStart = { run in progress.detail = { Console.say("report_in_flight", String(run.concurrency.last)) } }
        // A sheet on storage: its local copy is in a cache, the report goes where the merchant is.
        let rows = ManifestRows(manifestURL, label: onStorage ? manifest : nil,
                                reportsBeside: onStorage ? URL(fileURLWithPath: FileManager.default.currentDirectoryPath) : nil)
        let result = try await Runner.sync(rows, request)
        progress.finish()
        let status = await Runner.conclude(result, json: logFormat == "json", command: "import", connection: connection)
        if logFormat != "json", let line = SharedCacheOption.summary(choices.cache) { Console.line(line) }
        if connection.sandbox != nil && logFormat != "json" {
            Console.line(Console.say("t_sandbox_look"))
        }
        return status
    }

    /// What the merchant chose, from the flags (the run request derives the rest).
    private func choices() throws -> RunChoices {
        var choices = RunChoices()
        choices.validation = try reading.validation()
        choices.mode = mode
        choices.jobs = jobs
        choices.dryRun = dryRun
        choices.maxErrors = maxErrors
        choices.maxPriceChange = maxPriceChange
        choices.maxCreates = maxCreates
        choices.maxUpdates = maxUpdates
        choices.force = force
        choices.replacePhotos = replacePhotos
        choices.deleteMissing = deleteMissing
        choices.maxDeletes = maxDeletes
        choices.shard = shard.flatMap(Shard.init).map { ShardRun(run: run ?? "", shard: $0) }
        choices.images.maxBytes = maxBytes
        choices.images.maxDimension = maxDimension
        choices.useCaches = !noCache
        choices.journal = journal.map { URL(fileURLWithPath: $0) }
        choices.links = linkStore.given
        choices.report = report.map { .given(URL(fileURLWithPath: $0)) }
        return choices
    }
}

extension ImportMode: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { ["sync", "upsert", "create", "update"] }
}
