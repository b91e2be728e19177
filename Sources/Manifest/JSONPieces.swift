import Foundation
import Support

/// JSON arrays and JSON Lines checked on all cores, as CSV is (`ParallelRows`): the items are
/// cut from the file in order on one thread (a line's end, an element's end: cheap), handed out
/// in pieces, read into rows and checked on the others; the columns they name are learned,
/// the rules across rows applied and the rows delivered in file order. The first item that is
/// not a JSON object stops the reading there, with the message the one-thread reader gives.
enum JSONPieces {
    enum Item {
        /// Elements of a JSON array or lines of JSON Lines one after another in one buffer (no
        /// `Data` or array each, on the one thread that cuts the file): each one's position or
        /// line number, and where each ends.
        case run(numbers: [Int], bytes: [UInt8], ends: [Int], lines: Bool)
        case object(Int, JSONObject)
        case failure(ManifestError)
    }

    /// What a piece became: its rows checked, the keys its objects had (in first-seen order),
    /// and the failure that ends the file, if it came in this piece.
    struct Output {
        /// Moved out one by one where they are delivered (as `ParallelRows` does).
        var rows: CheckedRows
        var keys: [String] = []
        var failure: ManifestError?
    }

    static let itemsPerPiece = 512

    /// The pieces read and checked on `workers` threads; each piece's columns learned and its
    /// rows handed to `deliver` here, in file order; a piece's failure thrown after its rows.
    static func run(_ next: @escaping () -> [Item]?, workers: Int, file: String, reader: ManifestReader,
                    keepsContents: Bool = true, check: @escaping (RawRow) -> ManifestValidator.RowCheck,
                    warm: ([UInt64]) -> Void = { _ in },
                    deliver: (RawRow, consuming ManifestValidator.RowCheck) -> Void) throws(ManifestError) {
        do {
            try OrderedWork.run(jobs: workers, window: workers + 2, next: next, work: { items in
                read(items, file: file, keepsContents: keepsContents, check: check)
            }, deliver: { (output: Output) throws in
                reader.learnColumns(output.keys)
                warm(output.rows.hashes)
                while output.rows.takeNext(deliver) {}
                if let failure = output.failure { throw failure }
            })
        } catch let error as ManifestError {
            throw error
        } catch {
            throw ManifestError(file: file, message: "\(error)")
        }
    }

    /// The reader's items in pieces, or nil when this file is not read so (CSV, a map).
    static func pieces(_ reader: ManifestReader) -> (() -> [Item]?)? {
        guard reader.mapping == nil else { return nil }
        switch reader.format {
        case .jsonl:
            guard let lines = reader.lines else { return nil }
            reader.lines = nil
            var ended = false
            return {
                guard !ended else { return nil }
                var bytes: [UInt8] = []
                var ends: [Int] = [], numbers: [Int] = []
                ends.reserveCapacity(itemsPerPiece)
                numbers.reserveCapacity(itemsPerPiece)
                var failure: Item?
                while ends.count < itemsPerPiece {
                    do {
                        let start = bytes.count
                        guard let number = try lines.nextLine(appendingTo: &bytes) else { ended = true; break }
                        guard bytes[start...].contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else {
                            bytes.removeSubrange(start...)
                            continue
                        }
                        numbers.append(number)
                        ends.append(bytes.count)
                    } catch {
                        failure = .failure(error as? ManifestError ?? ManifestError(file: reader.fileName, message: "\(error)"))
                        ended = true
                        break
                    }
                }
                var items: [Item] = []
                if !ends.isEmpty { items.append(.run(numbers: numbers, bytes: bytes, ends: ends, lines: true)) }
                if let failure { items.append(failure) }
                return items.isEmpty ? nil : items
            }
        case .json:
            var first = reader.firstJSON.map { Item.object(1, $0) }
            reader.firstJSON = nil
            var ended = false
            return {
                guard !ended else { return nil }
                var items: [Item] = []
                if let item = first {
                    items.append(item)
                    first = nil
                }
                var bytes: [UInt8] = []
                bytes.reserveCapacity(min(reader.lastJSONElementBytes, 2048) * itemsPerPiece)
                var ends: [Int] = []
                ends.reserveCapacity(itemsPerPiece)
                var numbers: [Int] = []
                numbers.reserveCapacity(itemsPerPiece)
                var failure: Item?
                while items.count + ends.count < itemsPerPiece {
                    do {
                        guard let position = try reader.nextJSONElement(appendingTo: &bytes) else { ended = true; break }
                        numbers.append(position)
                        ends.append(bytes.count)
                    } catch {
                        failure = .failure(error as? ManifestError ?? ManifestError(file: reader.fileName, message: "\(error)"))
                        ended = true
                        break
                    }
                }
                if !ends.isEmpty { items.append(.run(numbers: numbers, bytes: bytes, ends: ends, lines: false)) }
                if let failure { items.append(failure) }
                return items.isEmpty ? nil : items
            }
        case .csv, .xlsx:
            return nil
        }
    }

    /// A piece's items as rows, checked (on a worker thread: nothing of the reader is written).
    static func read(_ items: [Item], file: String, keepsContents: Bool = true,
                     check: (RawRow) -> ManifestValidator.RowCheck) -> Output {
        var output = Output(rows: CheckedRows(capacity: itemsPerPiece, keepsContents: keepsContents))
        var seen = Set<String>()
        var columns: [String: Column?] = [:]
        var recent: [(key: String, column: Column?)] = []
        // The last object's keys, for the next object's reading (`JSONRowReader.knownKeys`).
        var keys = JSONRowReader.KnownKeys()
        func take(_ object: JSONObject, number: Int) {
            // Rows name their keys in the same order, mostly: the last row's key at this place is
            // compared first (a short key compares at once; a lookup hashes it). Every key of the
            // object is asked for, in order: one not at its last place is noted as seen.
            var place = 0
            let raw = ManifestReader.rawRow(object, number: number, file: file) { key in
                defer { place += 1 }
                if place < recent.count, recent[place].key == key { return recent[place].column }
                if seen.insert(key).inserted { output.keys.append(key) }
                let found: Column?
                if let known = columns[key] { found = known } else {
                    found = Column(header: key)
                    columns[key] = found
                }
                if place < recent.count { recent[place] = (key, found) } else { recent.append((key, found)) }
                return found
            }
            output.rows.append(raw, check(raw))
        }
        for item in items {
            switch item {
            case .failure(let failure):
                output.failure = failure
                return output
            case .object(let position, let parsed):
                take(parsed, number: position)
            case .run(let numbers, let bytes, let ends, let lines):
                var failed: (Int, JSONRowReader.Failure)?
                bytes.withUnsafeBufferPointer { buffer in
                    var start = 0
                    for (index, end) in ends.enumerated() {
                        do throws(JSONRowReader.Failure) {
                            let object = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[start..<end])
                            take(try JSONRowReader.object(object, repairingUTF8: lines, keys: &keys), number: numbers[index])
                        } catch {
                            failed = (numbers[index], error)
                            return
                        }
                        start = end
                    }
                }
                if let (number, error) = failed {
                    output.failure = ManifestReader.objectFailure(error, line: lines, number: number, file: file)
                    return output
                }
            }
        }
        return output
    }
}
