import Foundation

/// Puts finished rows back in the order they were handed to the run (the sheet's order),
/// for the report and whoever watches the rows: rows finish in any order (photos of
/// different sizes, workers in parallel), and a report in finishing order reads 3, 4, 2, 5.
/// A row is held only until every row handed in before it has finished, so what is held is
/// bounded by the rows in flight (the run's bounded queues), not by the file. A row that was
/// never handed in (a delete after the rows, row 0) is released at once.
final class RowOrder: @unchecked Sendable {
    private let lock = NSLock()
    /// Row numbers handed in and not yet released, in order.
    private var waiting: [Int] = []
    private var head = 0
    /// Handed-in rows not released, by row number (a number handed in twice counts twice).
    private var outstanding: [Int: Int] = [:]
    private var finished: [Int: [RowOutcome]] = [:]

    /// A row enters the run (its outcome will come later, or now).
    func handedIn(_ row: Int) {
        lock.withLock {
            waiting.append(row)
            outstanding[row, default: 0] += 1
        }
    }

    /// A finished row; returns the rows now released, in order.
    func finished(_ outcome: RowOutcome) -> [RowOutcome] {
        lock.withLock {
            guard outstanding[outcome.row, default: 0] > 0 else { return [outcome] }
            finished[outcome.row, default: []].append(outcome)
            var released: [RowOutcome] = []
            while head < waiting.count, var ready = finished[waiting[head]], !ready.isEmpty {
                let row = waiting[head]
                released.append(ready.removeFirst())
                finished[row] = ready.isEmpty ? nil : ready
                outstanding[row, default: 1] -= 1
                if outstanding[row] == 0 { outstanding[row] = nil }
                head += 1
            }
            // Keep the array small on long runs.
            if head > 4096 && head * 2 > waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            return released
        }
    }

    /// Every finished row still held (rows before it never finished: a stopped run), in order.
    func drain() -> [RowOutcome] {
        lock.withLock {
            let held = waiting[head...].compactMap { row -> RowOutcome? in
                guard var ready = finished[row], !ready.isEmpty else { return nil }
                let first = ready.removeFirst()
                finished[row] = ready.isEmpty ? nil : ready
                return first
            }
            waiting = []
            head = 0
            outstanding = [:]
            finished = [:]
            return held
        }
    }
}
