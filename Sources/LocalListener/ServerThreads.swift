import Foundation

/// Threads of the process's local servers' own, where their request handlers run (a task
/// executor preference for the service's whole task tree).
///
/// On Linux, Swift's cooperative pool has one thread per core. A server in the same process
/// as blocking work (a test's synchronous client call, a command's engine waiting on a
/// server it started) would otherwise wait for a cooperative thread that waits for the
/// server: on 2 cores, two such calls at once stop every server in the process until
/// libcurl's 30-second stall timer fires. Jobs here never share a thread with that work.
public final class ServerThreads: TaskExecutor, @unchecked Sendable {
    /// The one set of threads every listening service in the process runs on. More than the
    /// cores: a handler's own work (a register's multipart body, a thumbnail) holds its thread, and
    /// with 4 threads a few busy servers in one process (the tests' sandboxes) made another's
    /// requests wait past its idle timeout. Threads that wait cost nothing.
    public static let shared = ServerThreads(count: max(16, 4 * ProcessInfo.processInfo.activeProcessorCount))

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var next = 0

    init(count: Int) {
        for n in 0..<count {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "server-\(n)"
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while next == jobs.count { condition.wait() }
            let job = jobs[next]
            next += 1
            if next > 1024, next * 2 > jobs.count {
                jobs.removeFirst(next)
                next = 0
            }
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}
