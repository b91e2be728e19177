import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file to write through an `OutputStream` API (CSV.swift's `CSVWriter` takes one),
/// buffered: Foundation's file stream makes one `write(2)` per call, and CSVWriter
/// calls it once per byte. The first failed write (a full disk) is kept in `failure`;
/// every write after it returns -1, so the writer on top throws.
public final class BufferedFileOutput: OutputStream {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private static let capacity = 1 << 16
    /// The first write that failed.
    public private(set) var failure: (any Error)?

    /// Creates (or empties) the file at `url`.
    public init(url: URL) throws {
        let fd = Glibc.open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        super.init(toMemory: ())
        buffer.reserveCapacity(Self.capacity)
    }

    public required init(toMemory: ()) {
        handle = FileHandle.nullDevice
        super.init(toMemory: ())
    }

    private var closed = false

    public override func open() {}
    public override var streamStatus: Stream.Status { closed ? .closed : failure == nil ? .open : .error }
    public override var hasSpaceAvailable: Bool { failure == nil }
    public override var streamError: (any Error)? { failure }

    public override func write(_ bytes: UnsafePointer<UInt8>, maxLength length: Int) -> Int {
        guard failure == nil, !closed else { return -1 }
        buffer.append(contentsOf: UnsafeBufferPointer(start: bytes, count: length))
        if buffer.count >= Self.capacity { flush() }
        return failure == nil ? length : -1
    }

    /// Writes what is buffered; a failure is kept in `failure`.
    public func flush() {
        guard failure == nil, !buffer.isEmpty else { return }
        do { try handle.write(contentsOf: buffer) } catch { failure = error }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes; `finish()` does the same and throws the first failure.
    public override func close() { try? finish() }

    /// Flushes and closes the file, throwing the first write that failed.
    public func finish() throws {
        if !closed {
            flush()
            try? handle.close()
            closed = true
        }
        if let failure { throw failure }
    }
}
