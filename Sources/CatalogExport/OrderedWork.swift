import Foundation

/// Runs `work` for indices 0..<count on `jobs` threads of its own, and hands
/// the results to `deliver` on the calling thread in index order. Workers run
/// at most `window` indices ahead of delivery, so memory stays bounded however
/// many items there are. `isStopped` is asked before each item: once it says
/// true, no new item starts, and delivery ends at the first missing result.
enum OrderedWork {
    static func run<Output>(
        count: Int, jobs: Int, window: Int,
        isStopped: @escaping @Sendable () -> Bool,
        work: @escaping @Sendable (Int) -> Output,
        deliver: (Int, Output) throws -> Void
    ) rethrows {
        let box = Shared<Output>()
        let window = max(window, jobs)
        let workers = max(1, min(jobs, count))
        box.active = workers
        for _ in 0..<workers {
            let thread = Thread {
                box.condition.lock()
                while true {
                    while !box.abandoned && !isStopped() && box.next < count && box.next >= box.delivered + window {
                        box.condition.wait()
                    }
                    if box.abandoned || isStopped() || box.next >= count { break }
                    let index = box.next
                    box.next += 1
                    box.condition.unlock()
                    let output = work(index)
                    box.condition.lock()
                    box.results[index] = output
                    box.condition.broadcast()
                }
                box.active -= 1
                box.condition.broadcast()
                box.condition.unlock()
            }
            thread.name = "openmarket.export"
            thread.start()
        }
        defer {
            // Whatever happened to delivery, the workers are waited for.
            box.condition.lock()
            box.abandoned = true
            box.condition.broadcast()
            while box.active > 0 { box.condition.wait() }
            box.condition.unlock()
        }
        box.condition.lock()
        while box.delivered < count {
            if let output = box.results.removeValue(forKey: box.delivered) {
                box.condition.unlock()
                try deliver(box.delivered, output)
                box.condition.lock()
                box.delivered += 1
                box.condition.broadcast()
                continue
            }
            // Stopped, and the result this delivery waits for will never come.
            if box.active == 0 { break }
            box.condition.wait()
        }
        box.condition.unlock()
    }

    private final class Shared<Output>: @unchecked Sendable {
        let condition = NSCondition()
        var next = 0
        var delivered = 0
        var active = 0
        var abandoned = false
        var results: [Int: Output] = [:]
    }
}
