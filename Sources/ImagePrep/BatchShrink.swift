import Foundation
import Support

/// Prepares many files on all cores, one `ImagePreparer` per thread, and
/// writes each result under an output folder (used by `openmarket images shrink`).
public enum BatchShrink {
    public struct FileResult: Sendable {
        public var input: URL
        public var output: URL?
        public var outcome: Result<PreparedImage, ImagePrepError>
        public var seconds: Double
    }

    /// Runs `files` through preparation with `workers` threads; `report` is
    /// called (from worker threads, one at a time) as each file finishes.
    /// `names`: each file's path under `outputDirectory` (folders made as needed); by default its own name.
    public static func run(_ files: [URL], outputDirectory: URL, names: [String]? = nil, settings: ImagePrepSettings,
                           workers: Int = ProcessInfo.processInfo.activeProcessorCount,
                           report: @escaping @Sendable (FileResult) -> Void) throws -> [FileResult] {
        try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
        // The biggest files first: a big photo started last would leave the other cores idle
        // while it finishes (each file is one thread's work). Results keep the given order.
        let sizes = files.map { (try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0 }
        let state = SharedState(order: files.indices.sorted { sizes[$0] != sizes[$1] ? sizes[$0] > sizes[$1] : $0 < $1 })
        let group = DispatchGroup()
        for _ in 0..<max(1, min(workers, files.count)) {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                guard let preparer = try? ImagePreparer(settings: settings) else { return }
                while let index = state.nextIndex() {
                    let input = files[index]
                    let started = Date()
                    var output: URL? = nil
                    let outcome: Result<PreparedImage, ImagePrepError>
                    if let data = try? Data(contentsOf: input) {
                        do {
                            let prepared = try preparer.prepare(Array(data))
                            // A PNG, HEIC or WebP that became a JPEG is named as one; names are written in NFC.
                            let given = names?[index] ?? input.lastPathComponent
                            let name = FileLookup.nfc(prepared.format == .jpeg && ImageFormat.sniff(data) != .jpeg
                                ? (given as NSString).deletingPathExtension + ".jpg" : given)
                            let url = outputDirectory.appendingPathComponent(name)
                            do {
                                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                                try Data(prepared.data).write(to: url, options: .atomic)
                                output = url
                                outcome = .success(prepared)
                            } catch {
                                outcome = .failure(.unreadable("cannot write \(url.path): \(error.localizedDescription)"))
                            }
                        } catch let error as ImagePrepError {
                            outcome = .failure(error)
                        } catch {
                            outcome = .failure(.unreadable("\(error)"))
                        }
                    } else {
                        outcome = .failure(.unreadable("cannot read the file"))
                    }
                    let result = FileResult(input: input, output: output, outcome: outcome,
                                            seconds: Date().timeIntervalSince(started))
                    state.finish(index, result, report: report)
                }
            }
            thread.name = "openmarket.shrink"
            thread.start()
        }
        group.wait()
        return state.results
    }

    private final class SharedState: @unchecked Sendable {
        private let lock = NSLock()
        private let order: [Int]
        private var next = 0
        private var slots: [FileResult?]

        init(order: [Int]) {
            self.order = order
            slots = Array(repeating: nil, count: order.count)
        }

        func nextIndex() -> Int? {
            lock.lock()
            defer { lock.unlock() }
            guard next < order.count else { return nil }
            next += 1
            return order[next - 1]
        }

        func finish(_ index: Int, _ result: FileResult, report: (FileResult) -> Void) {
            lock.lock()
            defer { lock.unlock() }
            slots[index] = result
            report(result)
        }

        var results: [FileResult] {
            lock.lock()
            defer { lock.unlock() }
            return slots.compactMap { $0 }
        }
    }
}
