import Foundation
import Words
import ImagePrep
import Manifest
import OpenMarketAPI
import ShopState
import Support

/// The work on one row, stage by stage: decide (the journal's word on it, then what it does
/// to the live shop), prepare (its photos read or downloaded and shrunk; an existing
/// product's compared), write (through the one `ProductWriter`). Each stage returns the row
/// for the next one or its outcome; nothing here counts, reports or finishes a row — the run
/// does that with what it is given. After rclone's `fs/operations`.
final class RowWork: Sendable {
    /// What is left of a row after a stage.
    enum Step: Sendable {
        case next(WorkItem)
        case done(RowOutcome)
    }

    let options: SyncOptions
    let journal: Journal
    let writer: ProductWriter
    let matcher: ServerMatcher
    let recorder: RunRecorder?
    let shop: any Shop
    let vendor: VendorFact
    /// The hash of what was sent for each source photo, once per run (a photo used by many rows).
    private let sentHashes = SentHashes()
    /// Photos this run already read and prepared, by file and content: a photo on many rows
    /// (a brand's logo, a supplier's placeholder) is hashed and shrunk once.
    private let photoMemo = RunPhotoMemo()

    init(options: SyncOptions, journal: Journal, writer: ProductWriter, matcher: ServerMatcher, recorder: RunRecorder?,
         shop: any Shop, vendor: VendorFact) {
        self.options = options
        self.journal = journal
        self.writer = writer
        self.matcher = matcher
        self.recorder = recorder
        self.shop = shop
        self.vendor = vendor
    }

    // MARK: decide (on the feed's thread, in the sheet's order)

    func decide(_ draft: ProductDraft, _ planner: SyncPlanner) -> Step {
        // A key Excel stripped of its zeros is the linked key it was (the row is that key's).
        var draft = draft
        var zerosNote: Phrase?
        var zerosRefusal: String?
        if let key = draft.key, options.mode != .create {
            do throws(SyncPlanner.Refusal) {
                if let linked = try planner.keyWithoutZeros(key) {
                    zerosNote = Phrase("n_key_zeros", key, linked)
                    draft.key = linked
                }
            } catch {
                zerosRefusal = error.message
            }
        }
        let identity = ProductLink.identity(key: draft.key, name: draft.fields.name)
        let hash = ContentHash.of(draft)
        var item = WorkItem(draft: draft, key: identity.key, byName: identity.byName, hash: hash, started: Date(),
                            decision: RowDecision(action: .create))
        if let zerosRefusal { return .done(item.failed(zerosRefusal)) }
        // create: rows this manifest's journal saw finished are not created again.
        if options.mode == .create, case .done(let id, let doneHash)? = journal.state(of: identity.key) {
            var outcome = item.outcome(.unchanged)
            outcome.productID = id
            if doneHash == Journal.RowHash(hash) {
                outcome.notes = [Phrase("n_done_before")]
            } else {
                outcome.status = .skipped
                outcome.notes = [Phrase("n_created_before_changed", String(id))]
            }
            return .done(outcome)
        }
        do {
            item.decision = try planner.decide(draft, identity: identity.key)
            if let zerosNote { item.decision.notes.insert(zerosNote, at: 0) }
        } catch let skip as SyncPlanner.Skip {
            var outcome = item.outcome(.skipped)
            outcome.notes = [skip.note]
            return .done(outcome)
        } catch let refusal as SyncPlanner.Refusal {
            var outcome = item.failed(refusal.message)
            outcome.priceGuarded = refusal.priceGuard
            outcome.problems = refusal.problems
            return .done(outcome)
        } catch {
            return .done(item.failed("the shop could not be asked about this row (\(error)); nothing was sent for it: run again"))
        }
        // Nothing to send, nothing to record, no photos to compare: done here.
        if case .unchanged = item.decision.action, !item.decision.relink, !needsPhotoCheck(item) {
            return .done(item.unchangedOutcome())
        }
        return .next(item)
    }

    /// Whether the row's photos are compared with the ones its product was created with.
    func needsPhotoCheck(_ item: WorkItem) -> Bool {
        options.comparePhotos && item.draft.given.contains(.images) && item.decision.link?.photos != nil
    }

    // MARK: prepare (all cores)

    /// A new product's photos read (or downloaded) and shrunk; an existing product's photos
    /// hashed and compared with the ones it was created with.
    func prepare(_ item: WorkItem, _ preparer: ImagePreparer) -> Step {
        var item = item
        guard case .create = item.decision.action else {
            if needsPhotoCheck(item), let pushed = item.decision.link?.photos {
                if let known = item.draft.knownPhotoHashes, PhotoIdentity.same(known, as: pushed) {
                    item.photosDiffer = false
                } else {
                    switch photoIdentity(item, known: pushed) {
                    case .next(let hashed):
                        let row = hashed.photoHashes ?? []
                        item.photosDiffer = !PhotoIdentity.same(row, as: pushed)
                        // The same photos under a name the link did not know (a URL of a photo
                        // sent as a file): remembered, so that the next sync downloads nothing.
                        if !item.photosDiffer, let merged = PhotoIdentity.merged(pushed, row), merged != pushed {
                            item.decision.link?.photos = merged
                            item.decision.relink = true
                        }
                    case .done(let failed): return .done(failed)
                    }
                }
            }
            if item.photosDiffer, options.replacePhotos, let id = item.decision.action.productID {
                item.decision.action = .replace(oldID: id)
                return preparePhotos(item, preparer)
            }
            if case .unchanged = item.decision.action, !item.decision.relink {
                return .done(item.unchangedOutcome())
            }
            return .next(item)
        }
        return preparePhotos(item, preparer)
    }

    /// The row with the hashes of its photos (a file as when last read is not read again). A
    /// photo by URL is known by its address while the link knows that address; otherwise
    /// (the product was made from a file, or another URL) its bytes are fetched and hashed.
    private func photoIdentity(_ item: WorkItem, known: [String]) -> Step {
        var hashes: [String] = []
        for (index, source) in item.draft.images.enumerated() {
            switch source {
            case .file(let url):
                guard let hash = photoFileHash(url) else {
                    return .done(item.failed("image \(index + 1) (\(url.lastPathComponent)): cannot be read"))
                }
                hashes.append(hash)
            case .url(let address):
                let byAddress = ContentHash.photo(url: address)
                if index < known.count, PhotoIdentity.names(known[index], byAddress) {
                    hashes.append(byAddress)
                } else if let bytes = try? download(address) {
                    hashes.append(PhotoIdentity.entry([byAddress, ContentHash.photo(bytes)]))
                } else {
                    // Cannot be fetched now: nothing is known against the link's photo, so
                    // nothing is claimed ("differ" is said only of a photo seen to differ).
                    hashes.append(index < known.count ? known[index] : byAddress)
                }
            }
        }
        var hashed = item
        hashed.photoHashes = hashes
        return .next(hashed)
    }

    /// A photo by address: from S3-compatible storage (`s3://`, the environment's account) or
    /// over http(s).
    private func download(_ address: String) throws -> Data {
        if S3Objects.isAddress(address) { return try S3Objects.fetch(address, maxBytes: options.maxDownloadBytes) }
        return try shop.download(address, maxBytes: options.maxDownloadBytes)
    }

    /// A new product's photos, read (or downloaded) and shrunk.
    private func preparePhotos(_ item: WorkItem, _ preparer: ImagePreparer) -> Step {
        var item = item
        var hashes: [String] = []
        for (index, source) in item.draft.images.enumerated() {
            let bytes: [UInt8]
            let name: String
            var memoKey: (String, FileFingerprint)?
            switch source {
            case .file(let url):
                let path = url.standardizedFileURL.path
                let fingerprint = FileFingerprint(path: path)
                name = FileLookup.nfc(url.lastPathComponent)
                if let fingerprint, let known = photoMemo.photo(path: path, fingerprint: fingerprint) {
                    // Read and prepared earlier in this run, unchanged since.
                    hashes.append(known.identity)
                    for warning in known.prepared.warnings { item.photoNotes.append(Phrase("n_photo", String(index + 1), name, parts: [warning])) }
                    item.images.append(Self.upload(known.prepared, name: name, index: index))
                    item.before.append(known.originalCount)
                    item.after.append(known.prepared.data.count)
                    continue
                }
                guard let (data, hash) = readPhoto(url, fingerprint: fingerprint) else {
                    return .done(item.failed("image \(index + 1) (\(url.lastPathComponent)): cannot be read"))
                }
                bytes = Array(data)
                hashes.append(hash)
                memoKey = fingerprint.map { (path, $0) }
            case .url(let address):
                let data: Data
                do {
                    data = try download(address)
                } catch {
                    return .done(item.failed("image \(index + 1) (\(address)): \(error)"))
                }
                bytes = Array(data)
                name = URL(string: address)?.lastPathComponent ?? "image\(index + 1).jpg"
                // Known by its address (no download to compare next time) and by its bytes
                // (the same photo as a file elsewhere).
                hashes.append(PhotoIdentity.entry([ContentHash.photo(url: address), ContentHash.photo(data)]))
            }
            do {
                let prepared = try preparer.prepare(bytes, cache: options.cache).image
                // And by what is sent: the server serves those bytes back (an export's copy).
                if prepared.data.count != bytes.count || prepared.data != bytes {
                    let source = hashes[hashes.count - 1]
                    hashes[hashes.count - 1] = PhotoIdentity.entry([source, sentHashes.hash(of: source) { ContentHash.photo(Data(prepared.data)) }])
                }
                if let (path, fingerprint) = memoKey {
                    photoMemo.keep(path: path, fingerprint: fingerprint, identity: hashes[hashes.count - 1], prepared: prepared,
                                   originalCount: bytes.count)
                }
                for warning in prepared.warnings { item.photoNotes.append(Phrase("n_photo", String(index + 1), name, parts: [warning])) }
                item.images.append(Self.upload(prepared, name: name, index: index))
                item.before.append(bytes.count)
                item.after.append(prepared.data.count)
            } catch {
                return .done(item.failed("image \(index + 1) (\(name)): \(error)"))
            }
        }
        item.photoHashes = PhotoIdentity.merged(item.draft.knownPhotoHashes, hashes)
        return .next(item)
    }

    /// A prepared photo as the upload sends it, named as the merchant's file (`.jpg` when made JPEG).
    static func upload(_ prepared: PreparedImage, name: String, index: Int) -> UploadImage {
        var filename = name.isEmpty ? "image\(index + 1)" : name
        if prepared.format == .jpeg && !["jpg", "jpeg"].contains((filename as NSString).pathExtension.lowercased()) {
            filename = (filename as NSString).deletingPathExtension + ".jpg"
        }
        return UploadImage(data: Data(prepared.data), filename: filename, mimeType: prepared.format.mimeType)
    }

    /// A photo file's bytes and hash. With `photoHashes`, the hash is kept for the next
    /// run with the fingerprint taken before the read (`known`, when the caller just took it).
    private func readPhoto(_ url: URL, fingerprint known: FileFingerprint? = nil) -> (Data, String)? {
        let path = url.standardizedFileURL.path
        let before = options.photoHashes == nil ? nil : known ?? FileFingerprint(path: path)
        guard let data = try? Data(contentsOf: url) else { return nil }
        let hash = ContentHash.photo(data)
        if let before { options.photoHashes?.record(path: path, before: before, after: FileFingerprint(path: path), hash: hash) }
        return (data, hash)
    }

    /// A photo file's hash, without reading it when the file is as it was when last read.
    private func photoFileHash(_ url: URL) -> String? {
        let path = url.standardizedFileURL.path
        let fingerprint = options.photoHashes == nil ? nil : FileFingerprint(path: path)
        if let fingerprint, let hash = options.photoHashes?.hash(path: path, fingerprint: fingerprint) { return hash }
        return readPhoto(url, fingerprint: fingerprint)?.1
    }
}

/// This vendor's id as the link store keeps it: learned once (from the live catalog or a
/// product the run made), so that later runs need not ask.
final class VendorFact: @unchecked Sendable {
    private let lock = NSLock()
    private var known = false
    let links: LinkStore?

    init(links: LinkStore?) { self.links = links }

    func markKnown() { lock.withLock { known = true } }

    /// A created product tells whose it is: saved the first time.
    func learn(_ id: Int) {
        guard id > 0 else { return }  // a server without vendors (2021) says 0
        let first = lock.withLock { () -> Bool in
            defer { known = true }
            return !known
        }
        if first { try? links?.setFact("vendor_id", String(id)) }
    }
}

/// The hash of the bytes sent for a source photo, computed once per run and source.
final class SentHashes: @unchecked Sendable {
    private let lock = NSLock()
    private var known: [String: String] = [:]

    func hash(of source: String, _ compute: () -> String) -> String {
        if let hash = lock.withLock({ known[source] }) { return hash }
        let hash = compute()
        lock.withLock { known[source] = hash }
        return hash
    }
}
