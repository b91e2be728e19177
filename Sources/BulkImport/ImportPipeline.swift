import Crypto
import Foundation
import ImagePrep
import Manifest
import OpenMarketAPI

public enum ImportMode: String, Sendable, CaseIterable, Codable {
    /// Every row is a new product; an `id` column (as `export` writes it) is
    /// ignored, so a backup restores into any account.
    case create
    /// Rows with an `id` are edited (PATCH); a row without one is an error.
    case update
    /// Rows with an `id` are edited; others are matched by exact name among the
    /// vendor's products, else created.
    case upsert
}

public struct ImportOptions: Sendable {
    public var manifest: URL
    public var imagesDirectory: URL?
    public var mode: ImportMode = .create
    /// Upload workers.
    public var jobs = 4
    /// Image preparation workers (CPU).
    public var prepareWorkers = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Requests per second across workers; nil: no cap.
    public var rate: Double?
    public var dryRun = false
    /// Stop after this many failed rows; nil: never.
    public var maxErrors: Int?
    /// The journal (default: next to the manifest).
    public var journal: URL
    public var images = ImagePrepSettings()
    public var cache: ImageCache?
    public var validation = ValidationOptions()
    public var encoding: TextEncoding?
    public var delimiter: Character?
    /// Largest image downloaded from a URL in the manifest.
    public var maxDownloadBytes = 25 * 1024 * 1024

    public init(manifest: URL) {
        self.manifest = manifest
        journal = Self.defaultJournal(for: manifest)
    }

    public static func defaultJournal(for manifest: URL) -> URL {
        manifest.deletingLastPathComponent().appendingPathComponent(".\(manifest.lastPathComponent).openmarket-journal")
    }
}

/// What became of one row.
public struct RowOutcome: Sendable, Codable, Equatable {
    public enum Status: String, Sendable, Codable {
        case created, updated, unchanged, skipped, failed
        case wouldCreate = "would-create"
        case wouldUpdate = "would-update"
    }

    public var row: Int
    public var key: String
    public var name: String
    public var status: Status
    public var productID: Int?
    public var error: String?
    public var note: String?
    /// Image sizes before and after preparation, in bytes.
    public var imagesBefore: [Int]
    public var imagesAfter: [Int]
    public var attempts: Int
    public var seconds: Double
    /// The server's thumbnail of a created or updated product.
    public var thumbnail: String?
    /// The row's values, for the report of a failed row.
    public var values: [String: String]

    enum CodingKeys: String, CodingKey {
        case row, key, name, status
        case productID = "product_id"
        case error, note
        case imagesBefore = "images_before"
        case imagesAfter = "images_after"
        case attempts, seconds, thumbnail, values
    }

    public var isFailure: Bool { status == .failed }

    /// A row with nothing to do (`migrate`: gone from the source).
    public static func skipped(row: Int, key: String, note: String) -> RowOutcome {
        RowOutcome(row: row, key: key, name: "", status: .skipped, productID: nil, error: nil, note: note,
                   imagesBefore: [], imagesAfter: [], attempts: 0, seconds: 0, thumbnail: nil, values: [:])
    }

    /// A row that failed before it reached the pipeline (`migrate`: its source could not be read).
    public static func failed(row: Int, key: String, name: String, error: String) -> RowOutcome {
        RowOutcome(row: row, key: key, name: name, status: .failed, productID: nil, error: error, note: nil,
                   imagesBefore: [], imagesAfter: [], attempts: 0, seconds: 0, thumbnail: nil, values: [:])
    }
}

public struct ImportSummary: Sendable, Codable {
    public var server: String
    public var mode: ImportMode
    public var dryRun: Bool
    public var rows = 0
    public var counts: [String: Int] = [:]
    public var seconds = 0.0
    public var productsPerSecond = 0.0
    /// Why the run stopped before the end, if it did.
    public var stopped: String?
    public var journal: String

    enum CodingKeys: String, CodingKey {
        case server, mode
        case dryRun = "dry_run"
        case rows, counts, seconds
        case productsPerSecond = "products_per_second"
        case stopped, journal
    }

    public var failed: Int { counts[RowOutcome.Status.failed.rawValue] ?? 0 }
}

/// A row on its way through the pipeline.
struct WorkItem: Sendable {
    var draft: ProductDraft
    var key: String
    var hash: String
    var started: Date
    var images: [UploadImage] = []
    var before: [Int] = []
    var after: [Int] = []
}

/// read → validate → prepare images (all cores) → upload (`jobs` workers) → record.
/// The stages overlap through bounded queues, so memory stays flat.
public final class ImportRun: @unchecked Sendable {
    public let options: ImportOptions
    let client: OpenMarketClient
    let journal: Journal
    private let limiter: RateLimiter
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    private var finished = 0
    private var failures = 0
    /// Where finished rows go (streamed: the run keeps no row in memory).
    public let report: ImportReport?
    private var stopReason: String?
    private var claimedIDs = Set<Int>()
    private var existingByName: [String: [Int]] = [:]
    /// Told after each row, with the counts so far.
    public var onProgress: (@Sendable (_ done: Int, _ total: Int, _ failed: Int) -> Void)?
    private var total = 0

    public init(options: ImportOptions, client: OpenMarketClient, report: ImportReport?) throws {
        self.options = options
        self.report = report
        self.client = client
        self.journal = try Journal(url: options.journal)
        self.limiter = RateLimiter(perSecond: options.rate)
        for case .done(let id, _) in journal.states.values { claimedIDs.insert(id) }
    }

    /// The server answered 429: every worker waits before its next request.
    public func throttle(for seconds: Double) {
        limiter.pause(for: seconds)
    }

    /// Graceful stop: no new rows start; rows in flight finish.
    public func stop(_ reason: String) {
        lock.lock()
        if stopReason == nil { stopReason = reason }
        lock.unlock()
    }

    /// Whether a stop was asked for (a feed stops reading when it is).
    public var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopReason != nil
    }

    private func finish(_ outcome: RowOutcome) {
        report?.add(outcome)
        lock.lock()
        finished += 1
        counts[outcome.status.rawValue, default: 0] += 1
        if outcome.isFailure {
            failures += 1
            if let max = options.maxErrors, failures >= max, stopReason == nil {
                stopReason = "stopped after \(failures) failed rows (--max-errors \(max))"
            }
        }
        let (done, failed, total) = (finished, failures, self.total)
        lock.unlock()
        onProgress?(done, total, failed)
    }

    /// Runs the import. Blocking: call from a thread of its own.
    public func run() throws(ManifestError) -> ImportSummary {
        let started = Date()
        // First pass: count rows (for progress and the ETA), reading only.
        var rowCount = 0
        // The second pass reuses what this one detected, instead of scanning the file again.
        var encoding = options.encoding
        var delimiter = options.delimiter
        do {
            let counter = try ManifestReader(url: options.manifest, encoding: options.encoding, delimiter: options.delimiter)
            encoding = counter.encoding
            delimiter = counter.delimiter
            while try counter.next() != nil { rowCount += 1 }
        } catch let error as ManifestError {
            throw error
        } catch {
            throw ManifestError(file: options.manifest.lastPathComponent, message: "\(error)")
        }
        lock.lock(); total = rowCount; lock.unlock()

        return try runStages(started: started) { (submit, reject) throws(ManifestError) in
            var fileIssues: [RowIssue] = []
            _ = try ManifestCheck.run(
                options.manifest, encoding: encoding, delimiter: delimiter, options: options.validation,
                onFileIssue: { fileIssues.append($0) },
                onRow: { [self] raw, draft, issues in
                    if isStopping { return }
                    let errors = issues.filter { $0.severity == .error }
                    if !fileIssues.filter({ $0.severity == .error }).isEmpty || draft == nil {
                        let message = (fileIssues.filter { $0.severity == .error } + errors)
                            .map { "\($0.column ?? "file"): \($0.message)\($0.value.map { " (\($0))" } ?? "")" }
                            .joined(separator: "; ")
                        reject(failedRow(raw, message: message))
                        return
                    }
                    guard let draft else { return }
                    submit(draft)
                })
        }
    }

    /// Runs the import of rows that do not come from a manifest file (`migrate`):
    /// `feed` hands each row to `submit` in order, or a row that cannot be sent to
    /// `reject`, and returns when there are no more. `rows` is the count for
    /// progress, when known. Blocking: call from a thread of its own.
    public func run(rows: Int, feed: (_ submit: (ProductDraft) -> Void, _ reject: (RowOutcome) -> Void) throws -> Void)
        throws -> ImportSummary {
        lock.lock(); total = rows; lock.unlock()
        return try runStages(started: Date(), feed: feed)
    }

    /// Counts another row in the total shown by progress (a feed that learns the
    /// count as it goes).
    public func addToTotal(_ rows: Int) {
        lock.lock(); total += rows; lock.unlock()
    }

    private func runStages<Failure: Error>(
        started: Date,
        feed: (_ submit: (ProductDraft) -> Void, _ reject: (RowOutcome) -> Void) throws(Failure) -> Void
    ) throws(Failure) -> ImportSummary {
        if options.mode == .upsert { loadExistingProducts() }

        let prepareQueue = BoundedQueue<WorkItem>(capacity: options.jobs * 2)
        let uploadQueue = BoundedQueue<WorkItem>(capacity: options.jobs * 2)
        let preparing = DispatchGroup()
        for _ in 0..<options.prepareWorkers {
            preparing.enter()
            startThread("openmarket.prepare") { [self] in
                defer { preparing.leave() }
                guard let preparer = try? ImagePreparer(settings: options.images) else { return }
                while let item = prepareQueue.take() {
                    if isStopping { continue }
                    if let ready = prepare(item, preparer) { uploadQueue.put(ready) }
                }
            }
        }
        let uploading = DispatchGroup()
        for _ in 0..<options.jobs {
            uploading.enter()
            startThread("openmarket.upload") { [self] in
                defer { uploading.leave() }
                while let item = uploadQueue.take() {
                    if isStopping { continue }
                    finish(write(item))
                }
            }
        }

        do {
            try feed({ [self] draft in
                if isStopping { return }
                let hash = Self.contentHash(draft)
                let key = draft.key ?? "row-hash:" + hash.prefix(16)
                if let skipped = skipIfDone(draft, key: key, hash: hash) { finish(skipped); return }
                prepareQueue.put(WorkItem(draft: draft, key: key, hash: hash, started: Date()))
            }, { [self] outcome in finish(outcome) })
        } catch {
            prepareQueue.close()
            uploadQueue.close()
            throw error
        }
        prepareQueue.close()
        preparing.wait()
        uploadQueue.close()
        uploading.wait()
        _ = prepareQueue.drain()
        _ = uploadQueue.drain()

        lock.lock()
        let reason = stopReason
        var result = ImportSummary(server: client.configuration.server.absoluteString, mode: options.mode,
                                   dryRun: options.dryRun, journal: options.journal.path)
        result.counts = counts
        result.rows = total
        lock.unlock()
        result.seconds = Date().timeIntervalSince(started)
        let written = (result.counts["created"] ?? 0) + (result.counts["updated"] ?? 0)
        result.productsPerSecond = result.seconds > 0 ? Double(written) / result.seconds : 0
        result.stopped = reason
        return result
    }

    private func startThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }

    // MARK: Stages

    /// Rows the journal says are finished are not written again.
    private func skipIfDone(_ draft: ProductDraft, key: String, hash: String) -> RowOutcome? {
        guard case .done(let id, let doneHash)? = journal.state(of: key) else { return nil }
        var outcome = outcome(for: draft, key: key, status: .unchanged, started: Date())
        outcome.productID = id
        if doneHash == hash {
            outcome.note = "already done in an earlier run"
        } else if options.mode == .create {
            outcome.status = .skipped
            outcome.note = "already created as product \(id) in an earlier run; the row has changed since: use --mode update (with the id) to change it"
        } else {
            return nil
        }
        return outcome
    }

    /// Loads and prepares the row's images (downloading URLs).
    private func prepare(_ item: WorkItem, _ preparer: ImagePreparer) -> WorkItem? {
        var item = item
        // Updates do not send images: the server cannot change them.
        if options.mode != .create && item.draft.id != nil { return item }
        for (index, source) in item.draft.images.enumerated() {
            let bytes: [UInt8]
            let name: String
            switch source {
            case .file(let url):
                guard let data = try? Data(contentsOf: url) else {
                    finish(failed(item, "image \(index + 1) (\(url.lastPathComponent)): cannot be read"))
                    return nil
                }
                bytes = Array(data)
                name = url.lastPathComponent
            case .url(let address):
                do {
                    bytes = Array(try client.download(address, maxBytes: options.maxDownloadBytes))
                } catch {
                    finish(failed(item, "image \(index + 1) (\(address)): \(error)"))
                    return nil
                }
                name = URL(string: address)?.lastPathComponent ?? "image\(index + 1).jpg"
            }
            do {
                let prepared = try preparer.prepare(bytes, cache: options.cache).image
                var filename = name.isEmpty ? "image\(index + 1)" : name
                if prepared.format == .jpeg && !["jpg", "jpeg"].contains((filename as NSString).pathExtension.lowercased()) {
                    filename = (filename as NSString).deletingPathExtension + ".jpg"
                }
                item.images.append(UploadImage(data: Data(prepared.data), filename: filename, mimeType: prepared.format.mimeType))
                item.before.append(bytes.count)
                item.after.append(prepared.data.count)
            } catch {
                finish(failed(item, "image \(index + 1) (\(name)): \(error)"))
                return nil
            }
        }
        return item
    }

    /// The write, exactly once: a row whose earlier write has no known outcome
    /// is looked for on the server before anything is sent again.
    private func write(_ item: WorkItem) -> RowOutcome {
        let draft = item.draft
        var outcome = outcome(for: draft, key: item.key, status: .created, started: item.started)
        outcome.imagesBefore = item.before
        outcome.imagesAfter = item.after
        var target = options.mode == .create ? nil : draft.id
        if target == nil, options.mode == .upsert { target = match(draft) }
        if options.mode == .update && target == nil {
            return failed(item, "--mode update needs an id in every row")
        }
        if options.dryRun {
            outcome.status = target == nil ? .wouldCreate : .wouldUpdate
            outcome.productID = target
            return finishTiming(outcome, item)
        }
        if let id = target {
            return update(item, id: id, outcome: outcome)
        }
        // An earlier run sent this row without hearing back: look first.
        if case .sent? = journal.state(of: item.key) {
            switch lookOnServer(draft) {
            case .success(let found?):
                return adopt(found, item, outcome, note: "found on the server from an earlier run whose answer was lost; not sent again")
            case .success(nil):
                break
            case .failure(let error):
                return failed(item, "an earlier run's write has no known outcome and the server cannot be checked now (\(error)); run again to finish")
            }
        }
        for attempt in 1...3 {
            outcome.attempts = attempt
            limiter.acquire()
            journal.record(.sent, key: item.key, hash: item.hash, row: draft.row)
            do {
                let created = try client.register(newProduct(draft), images: item.images)
                claim(created.id)
                journal.record(.done, key: item.key, hash: item.hash, row: draft.row, id: created.id)
                outcome.productID = created.id
                outcome.thumbnail = created.summary.thumbnail
                return finishTiming(outcome, item)
            } catch let error where isAmbiguous(error) {
                // The product may exist: look before sending again. If the server cannot be
                // asked, nothing is sent: the journal keeps the row as sent, and the next run
                // looks again.
                Thread.sleep(forTimeInterval: 0.2)
                switch lookOnServer(draft) {
                case .success(let found?):
                    return adopt(found, item, outcome, note: "the answer was lost; found on the server instead of sending again")
                case .success(nil):
                    continue
                case .failure(let lookError):
                    return failed(item, "the answer was lost and the server cannot be checked now (\(lookError)); run again to finish", attempts: attempt)
                }
            } catch {
                journal.record(.failed, key: item.key, hash: item.hash, row: draft.row, error: "\(error)")
                return failed(item, "\(error)", attempts: attempt)
            }
        }
        journal.record(.failed, key: item.key, hash: item.hash, row: draft.row, error: "no answer after 3 attempts")
        return failed(item, "no answer from the server after 3 attempts, and the product is not on the server", attempts: 3)
    }

    /// Records a product found on the server as this row's, instead of sending the row again.
    private func adopt(_ found: ProductSummary, _ item: WorkItem, _ start: RowOutcome, note: String) -> RowOutcome {
        journal.record(.done, key: item.key, hash: item.hash, row: item.draft.row, id: found.id)
        var outcome = start
        outcome.productID = found.id
        outcome.thumbnail = found.thumbnail
        outcome.note = note
        return finishTiming(outcome, item)
    }

    private func update(_ item: WorkItem, id: Int, outcome start: RowOutcome) -> RowOutcome {
        var outcome = start
        outcome.status = .updated
        outcome.productID = id
        let draft = item.draft
        limiter.acquire()
        do {
            let changes = ProductChanges(name: draft.name, description: draft.description, price: Self.double(draft.price),
                                         currency: draft.currency, discountedPrice: Self.double(draft.discountedPrice),
                                         stock: draft.stock)
            let updated = try client.edit(id: id, changes)
            journal.record(.done, key: item.key, hash: item.hash, row: draft.row, id: id)
            outcome.thumbnail = updated.summary.thumbnail
            if let count = updated.images?.count, count != draft.images.count {
                outcome.note = "the row has \(draft.images.count) images, the product \(count); images cannot be changed by an update"
            }
            return finishTiming(outcome, item)
        } catch {
            journal.record(.failed, key: item.key, hash: item.hash, row: draft.row, error: "\(error)")
            return failed(item, "\(error)")
        }
    }

    // MARK: Looking on the server

    /// A product of this vendor with exactly this row's fields, not claimed by another row.
    /// Throws when the server cannot be asked: then nothing may be sent again.
    private func findOnServer(_ draft: ProductDraft) throws(OpenMarketError) -> ProductSummary? {
        var page = 1
        while page <= 50 {
            let result = try client.page(page, perPage: 100, search: draft.name)
            for product in result.pages where matches(product, draft) && !isClaimed(product.id) {
                guard try owns(product.id) else { continue }
                claim(product.id)
                return product
            }
            guard result.hasNext, !result.pages.isEmpty else { return nil }
            page += 1
        }
        return nil
    }

    /// `findOnServer`, asked a few times over a few seconds while the server is flaky.
    private func lookOnServer(_ draft: ProductDraft) -> Result<ProductSummary?, OpenMarketError> {
        var last: OpenMarketError = .invalidRequest("not asked")
        for attempt in 0..<4 {
            if attempt > 0 { Thread.sleep(forTimeInterval: 0.5 * Double(attempt)) }
            do {
                return .success(try findOnServer(draft))
            } catch {
                last = error
            }
        }
        return .failure(last)
    }

    private func matches(_ product: ProductSummary, _ draft: ProductDraft) -> Bool {
        product.name == draft.name && product.currency == draft.currency && product.stock == draft.stock
            && abs(product.price - Self.double(draft.price)) < 0.005
            && abs(product.discountedPrice - Self.double(draft.discountedPrice)) < 0.005
    }

    /// Whether the product is this vendor's: asking for its delete key changes nothing
    /// and answers only the owner (403 for another vendor's, 404 for none).
    private func owns(_ id: Int) throws(OpenMarketError) -> Bool {
        do {
            _ = try client.deleteKey(id: id)
            return true
        } catch {
            if error.status == 403 || error.status == 404 { return false }
            throw error
        }
    }

    /// Upsert: the vendor's products by exact name, fetched once.
    private func loadExistingProducts() {
        var page = 1
        var byName: [String: [Int]] = [:]
        while page <= 10_000, let result = try? client.page(page, perPage: 100) {
            for product in result.pages { byName[product.name, default: []].append(product.id) }
            guard result.hasNext, !result.pages.isEmpty else { break }
            page += 1
        }
        lock.lock()
        existingByName = byName
        lock.unlock()
    }

    private func match(_ draft: ProductDraft) -> Int? {
        lock.lock()
        let candidates = existingByName[draft.name] ?? []
        lock.unlock()
        for id in candidates where !isClaimed(id) && ((try? owns(id)) ?? false) {
            claim(id)
            return id
        }
        return nil
    }

    private func claim(_ id: Int) {
        lock.lock(); claimedIDs.insert(id); lock.unlock()
    }

    private func isClaimed(_ id: Int) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return claimedIDs.contains(id)
    }

    // MARK: Helpers

    private func isAmbiguous(_ error: OpenMarketError) -> Bool {
        if case .ambiguous = error { return true }
        return false
    }

    private func newProduct(_ draft: ProductDraft) -> NewProduct {
        NewProduct(name: draft.name, description: draft.description, price: Self.double(draft.price), currency: draft.currency,
                   discountedPrice: Self.double(draft.discountedPrice), stock: draft.stock)
    }

    static func double(_ value: Decimal) -> Double { NSDecimalNumber(decimal: value).doubleValue }

    /// SHA-256 of the row's content: what the server would store.
    static func contentHash(_ draft: ProductDraft) -> String {
        let text = [draft.name, draft.description, "\(draft.price)", draft.currency, "\(draft.discountedPrice)",
                    String(draft.stock), draft.images.map(\.display).joined(separator: "\n")].joined(separator: "\u{1F}")
        return SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    private func outcome(for draft: ProductDraft, key: String, status: RowOutcome.Status, started: Date) -> RowOutcome {
        RowOutcome(row: draft.row, key: key, name: draft.name, status: status, productID: nil, error: nil, note: nil,
                   imagesBefore: [], imagesAfter: [], attempts: 0, seconds: Date().timeIntervalSince(started),
                   thumbnail: nil, values: [:])
    }

    /// The row's time, from when it was read to now.
    private func finishTiming(_ outcome: RowOutcome, _ item: WorkItem) -> RowOutcome {
        var outcome = outcome
        outcome.seconds = Date().timeIntervalSince(item.started)
        return outcome
    }

    private func failed(_ item: WorkItem, _ message: String, attempts: Int = 0) -> RowOutcome {
        var outcome = outcome(for: item.draft, key: item.key, status: .failed, started: item.started)
        outcome.error = message
        outcome.attempts = attempts
        outcome.values = [
            "name": item.draft.name, "price": "\(item.draft.price)", "currency": item.draft.currency,
            "stock": String(item.draft.stock), "images": item.draft.images.map(\.display).joined(separator: "; "),
        ]
        return outcome
    }

    private func failedRow(_ raw: RawRow, message: String) -> RowOutcome {
        var outcome = RowOutcome.failed(row: raw.number, key: raw.values[.key] ?? "", name: raw.values[.name] ?? "", error: message)
        for (column, value) in raw.values { outcome.values[column.rawValue] = value.count > 200 ? String(value.prefix(200)) + "…" : value }
        if let list = raw.imageList { outcome.values["images"] = list.joined(separator: "; ") }
        return outcome
    }
}
