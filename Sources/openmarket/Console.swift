import Foundation
import Support
import Synchronization

/// Output of the commands. Writes go straight to the file descriptor, so a
/// script or a log file sees each line as soon as it is printed (Swift's
/// `print` is block-buffered when standard output is not a terminal).
/// A write that fails (a closed pipe, a full disk) never stops the command: the
/// first failure on standard output is told once on standard error.
enum Console {
    static func line(_ text: String = "") {
        out(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        err(Data((text + "\n").utf8))
    }

    /// Bytes to standard output, as they are.
    static func out(_ data: Data) {
        do {
            try FileHandle.standardOutput.write(contentsOf: data)
        } catch {
            if !outputFailed.exchange(true, ordering: .relaxed) {
                err(Data("openmarket: cannot write to standard output (\(fileErrorReason(error))); the command goes on\n".utf8))
            }
        }
    }

    /// Bytes to standard error; nowhere to tell of a failure.
    static func err(_ data: Data) {
        try? FileHandle.standardError.write(contentsOf: data)
    }

    private static let outputFailed = Atomic<Bool>(false)
}
