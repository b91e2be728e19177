import Support

/// Rows of CSV pieces turned into checked rows on `workers` threads, delivered
/// on the calling thread in file order, at most `workers + 2` pieces in flight.
enum ParallelRows {
    static func run(
        workers: Int, next: @escaping () -> (piece: ManifestReader.Piece, rowBefore: Int)?, delimiter: UInt8,
        reader: ManifestReader, keepsContents: Bool = true, check: @escaping (RawRow) -> ManifestValidator.RowCheck,
        warm: ([UInt64]) -> Void = { _ in },
        deliver: (RawRow, consuming ManifestValidator.RowCheck) -> Void
    ) {
        // A map whose products do not span rows makes each row's products where it is read.
        let streamed = reader.streamedMap
        let firstRow = reader.headerRowNumber + 1
        OrderedWork.run(jobs: workers, window: workers + 2, next: next, work: { piece, rowBefore in
            let csv: CSVRecords?
            let rows: CheckedRows
            switch piece {
            case .reader(let first):
                csv = first
                rows = CheckedRows(capacity: 256, keepsContents: keepsContents)
            case .bytes(let bytes, let records):
                csv = CSVRecords(bytes, delimiter: delimiter)
                rows = CheckedRows(capacity: records, keepsContents: keepsContents)
            }
            var number = rowBefore
            while let fields = csv?.next() {
                number += 1
                if let streamed {
                    guard let (cells, notes) = reader.cells(fields, number: number) else { continue }
                    streamed.products(cells, number: number, notes: notes, position: number - firstRow) { rows.append($0, check($0)) }
                    continue
                }
                guard let raw = reader.row(fields, number: number) else { continue }
                let checked = check(raw)
                rows.append(raw, checked)
            }
            return rows
        }, deliver: { rows in
            warm(rows.hashes)
            while rows.takeNext(deliver) {}
        })
    }
}

/// A piece's checked rows, handed to the delivering thread and taken out of it one by one
/// by moving: an array of them was copied row by row when it grew and when it was read
/// (each of a row's dozen strings and arrays retained and released again, on the thread that
/// takes every row).
final class CheckedRows: @unchecked Sendable {
    private var raws: UnsafeMutablePointer<RawRow>
    private var checks: UnsafeMutablePointer<ManifestValidator.RowCheck>
    private var capacity: Int
    private var count = 0
    private var taken = 0

    /// false: each row's cells and its draft's texts and photos are let go as the row is appended,
    /// on the thread that made them (`ManifestCheck.run(keepsContents:)`).
    private let keepsContents: Bool

    init(capacity: Int, keepsContents: Bool = true) {
        self.keepsContents = keepsContents
        self.capacity = max(capacity, 1)
        raws = .allocate(capacity: self.capacity)
        checks = .allocate(capacity: self.capacity)
        hashStore.reserveCapacity(self.capacity * 2)
    }

    func append(_ raw: consuming RawRow, _ check: consuming ManifestValidator.RowCheck) {
        if !keepsContents {
            raw.dropContents()
            check.draft?.dropContents()
        }
        if count == capacity {
            capacity *= 2
            let largerRaws = UnsafeMutablePointer<RawRow>.allocate(capacity: capacity)
            let largerChecks = UnsafeMutablePointer<ManifestValidator.RowCheck>.allocate(capacity: capacity)
            largerRaws.moveInitialize(from: raws, count: count)
            largerChecks.moveInitialize(from: checks, count: count)
            raws.deallocate()
            checks.deallocate()
            raws = largerRaws
            checks = largerChecks
        }
        // 0 where the row has no key or no name (`check` makes them so).
        hashStore.append(check.keyHash)
        hashStore.append(check.nameHash)
        (raws + count).initialize(to: raw)
        (checks + count).initialize(to: check)
        count += 1
    }

    /// Each row's key hash and name hash, side by side, in order (made on the worker thread
    /// as the rows are appended: reading them from the checks on the delivering thread cost
    /// what warming the tables saved).
    var hashes: [UInt64] { hashStore }
    /// Private, so that its uses need no check for exclusive access at run time.
    private var hashStore: [UInt64] = []

    /// The next row in the order appended, moved out into `body`; false after the last.
    func takeNext(_ body: (RawRow, consuming ManifestValidator.RowCheck) -> Void) -> Bool {
        guard taken < count else { return false }
        let index = taken
        taken += 1
        body((raws + index).move(), (checks + index).move())
        return true
    }

    deinit {
        (raws + taken).deinitialize(count: count - taken)
        (checks + taken).deinitialize(count: count - taken)
        raws.deallocate()
        checks.deallocate()
    }
}
