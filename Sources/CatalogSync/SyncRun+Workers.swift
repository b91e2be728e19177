import Foundation
import ImagePrep
import OpenMarketAPI
import Support

/// The run's workers: photos prepared on every core, writes as many at once as the adaptive
/// limit allows, each write's answer time telling the limit how many the server takes.
extension SyncRun {
    /// The prepare workers (all cores: photos read and shrunk), handing rows to the writes.
    func startPreparing(_ prepareQueue: BoundedQueue<WorkItem>, _ uploadQueue: BoundedQueue<Upload>) -> DispatchGroup {
        let preparing = DispatchGroup()
        for _ in 0..<options.prepareWorkers {
            preparing.enter()
            startThread("openmarket.prepare") { [self] in
                defer { preparing.leave() }
                guard let preparer = try? ImagePreparer(settings: options.images) else { return }
                while let item = prepareQueue.take() {
                    if isStopping { finish(item.notSent()); continue }
                    switch work.prepare(item, preparer) {
                    case .next(let ready): uploadQueue.put(.row(ready))
                    case .done(let outcome): finish(outcome)
                    }
                }
            }
        }
        return preparing
    }

    /// The write workers, each one write at a time: as many as the adaptive limit allows now,
    /// more started as it grows (not all the ceiling's threads at once: 256 idle threads held
    /// 260 MB before the first row); the rows waiting for them follow the limit too.
    func startUploading(_ uploadQueue: BoundedQueue<Upload>) -> DispatchGroup {
        let workers = UploadWorkers(group: DispatchGroup())
        workers.grow(to: inFlight.state.limit) { [self] in
            while let upload = uploadQueue.take() {
                if isStopping {
                    switch upload {
                    case .row(let item): finish(item.notSent())
                    case .task(let task): for row in task.rows { finish(.notSent(row: row, key: "", name: "")) }
                    }
                    continue
                }
                for outcome in writeInFlight(upload) { finish(outcome) }
                let limit = inFlight.state.limit
                uploadQueue.capacity = limit
                workers.grow(to: limit)
            }
            // The queue is closed and drained: no more workers (and the body lets go of them).
            workers.done()
        }
        return workers.group
    }

    /// One write, as one of those in flight: its answer time (or the server's overload)
    /// tells the limit how many the server takes.
    private func writeInFlight(_ upload: Upload) -> [RowOutcome] {
        let ticket = inFlight.acquire()
        let overloads = client.overloads
        let connections = client.connectionsOpened
        let started = Date()
        let outcomes = switch upload {
        case .row(let item): [work.write(item)]
        case .task(let task): task.write()
        }
        let seconds = Date().timeIntervalSince(started)
        let attempts = outcomes.reduce(0) { $0 + $1.attempts }
        // A connection opened meanwhile (by this write or another's) makes the time no measure
        // of the server's queue: handshakes at a distance cost round trips.
        let opened = client.connectionsOpened > connections
        let signal: AdaptiveLimit.Signal = client.overloads > overloads ? .overloaded
            : attempts > 0 && !outcomes.contains(where: \.isFailure)
                ? .answered(seconds: seconds / Double(attempts), newConnection: opened) : .nothingSent
        inFlight.release(signal, ticket: ticket)
        return outcomes
    }

    private func startThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }
}


/// The write workers of a run, started as the adaptive limit asks for them (never stopped
/// before the queue closes: a limit that falls leaves idle workers waiting on the limit).
final class UploadWorkers: @unchecked Sendable {
    let group: DispatchGroup
    private let lock = NSLock()
    private var started = 0
    private var body: (@Sendable () -> Void)?

    init(group: DispatchGroup) { self.group = group }

    /// No more workers will be needed: the body is let go (it holds this object).
    func done() { lock.withLock { body = nil } }

    /// Starts workers running `body` until there are `count`; `body` given once, first.
    func grow(to count: Int, body given: (@Sendable () -> Void)? = nil) {
        let (more, body): (Int, (@Sendable () -> Void)?) = lock.withLock {
            if let given { self.body = given }
            // Done: the queue is closed, no worker is started (nor counted) any more.
            guard self.body != nil else { return (0, nil) }
            let more = max(0, count - started)
            started += more
            // Entered before the lock is left: a worker that ends cannot empty the group first.
            for _ in 0..<more { group.enter() }
            return (more, self.body)
        }
        guard let body else { return }
        for _ in 0..<more {
            let thread = Thread { [group] in
                defer { group.leave() }
                body()
            }
            thread.name = "openmarket.upload"
            thread.start()
        }
    }
}
