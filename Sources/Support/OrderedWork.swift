import Foundation

/// Work done on threads of its own and delivered in order: `next` hands out the
/// items (called under a lock, one at a time), `work` runs on `jobs` threads,
/// and `deliver` gets the outputs on the calling thread in the order the items
/// were handed out. At most `window` items are out before their outputs are
/// delivered, so memory stays bounded however many there are. The run ends
/// when `next` returns nil and every output is delivered, or when `deliver`
/// throws (the threads are then stopped and waited for).
///
/// Used by parallel validation (pieces of a CSV file) and by export and
/// migrate (product details and photos).
public enum OrderedWork {
    public static func run<Item, Output>(
        jobs: Int, window: Int,
        next: @escaping () -> Item?,
        work: @escaping (Item) -> Output,
        deliver: (consuming Output) throws -> Void
    ) rethrows {
        let shared = OrderedWorkState<Output>()
        let jobs = max(1, jobs)
        let window = max(window, jobs)
        // The threads call these only as the contract above says: `next` under the lock.
        nonisolated(unsafe) let next = next
        nonisolated(unsafe) let work = work
        shared.active = jobs
        for _ in 0..<jobs {
            let thread = Thread {
                shared.condition.lock()
                while true {
                    while !shared.abandoned && !shared.exhausted && shared.taken >= shared.delivered + window {
                        shared.condition.wait()
                    }
                    if shared.abandoned || shared.exhausted { break }
                    guard let item = next() else {
                        shared.exhausted = true
                        break
                    }
                    let index = shared.taken
                    shared.taken += 1
                    shared.condition.unlock()
                    let output = work(item)
                    shared.condition.lock()
                    shared.outputs[index] = output
                    shared.condition.broadcast()
                }
                shared.active -= 1
                shared.condition.broadcast()
                shared.condition.unlock()
            }
            thread.name = "openmarket.work"
            thread.start()
        }
        defer {
            shared.condition.lock()
            shared.abandoned = true
            shared.condition.broadcast()
            while shared.active > 0 { shared.condition.wait() }
            shared.condition.unlock()
        }
        shared.condition.lock()
        while true {
            if let output = shared.outputs.removeValue(forKey: shared.delivered) {
                shared.condition.unlock()
                try deliver(output)
                shared.condition.lock()
                shared.delivered += 1
                shared.condition.broadcast()
                continue
            }
            // Every worker stores its output before it leaves: nothing more can come.
            if shared.active == 0 && shared.delivered >= shared.taken { break }
            shared.condition.wait()
        }
        shared.condition.unlock()
    }

    /// The same for indices 0..<count; `isStopped` is asked before each index is handed out.
    public static func run<Output>(
        count: Int, jobs: Int, window: Int,
        isStopped: @escaping () -> Bool = { false },
        work: @escaping (Int) -> Output,
        deliver: (Int, Output) throws -> Void
    ) rethrows {
        var position = 0
        try run(jobs: min(jobs, max(1, count)), window: window, next: { () -> Int? in
            guard position < count, !isStopped() else { return nil }
            defer { position += 1 }
            return position
        }, work: { index in (index, work(index)) }, deliver: { try deliver($0.0, $0.1) })
    }
}

/// What the threads of one `OrderedWork.run` share, under its condition's lock.
private final class OrderedWorkState<Output>: @unchecked Sendable {
    let condition = NSCondition()
    var taken = 0
    var delivered = 0
    var exhausted = false
    var abandoned = false
    var active = 0
    var outputs: [Int: Output] = [:]
}
