import Foundation
import Support
import Synchronization
import Words

/// Output of the commands. Writes go straight to the file descriptor, so a
/// script or a log file sees each line as soon as it is printed (Swift's
/// `print` is block-buffered when standard output is not a terminal).
/// A write that fails (a closed pipe, a full disk) never stops the command: the
/// first failure on standard output is told once on standard error.
enum Console {
    /// The language the terminal speaks, chosen once per command (`--lang`, else the locale's).
    static var language: Language {
        get { spoken.withLock { $0 } }
        set { spoken.withLock { $0 = newValue } }
    }

    private static let spoken = Mutex<Language>(.en)

    /// A sentence of the word table in the terminal's language, its blanks filled in order.
    static func say(_ key: String, _ values: String...) -> String { WordTable.filled(key, language, values) }
    static func say(_ key: String, _ values: [String]) -> String { WordTable.filled(key, language, values) }
    /// A message that says `count`, in the plural form the reader's language gives it.
    static func say(_ key: String, count: Int, _ values: String...) -> String { WordTable.counted(key, language, count: count, values) }

    /// A line of text: what a server or a sheet put in it is shown, never obeyed (its control
    /// characters made visible; `VisibleText`). Bytes meant as they are go through `out`.
    static func line(_ text: String = "") {
        out(Data((VisibleText.of(text) + "\n").utf8))
    }

    static func error(_ text: String) {
        err(Data((VisibleText.of(text) + "\n").utf8))
    }

    /// Bytes to standard output, as they are.
    static func out(_ data: Data) {
        _ = pipeIgnored
        do {
            try FileHandle.standardOutput.write(contentsOf: data)
        } catch {
            // The reader went away on purpose (`| head`): nothing to tell, as any Unix tool.
            if Self.isBrokenPipe(error) {
                outputFailed.store(true, ordering: .relaxed)
                return
            }
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

    /// `openmarket … | head`: a reader that goes away must not kill a run half way (SIGPIPE);
    /// what is left to print is dropped quietly.
    private static let pipeIgnored: Void = { signal(SIGPIPE, SIG_IGN) }()

    static func isBrokenPipe(_ error: any Error) -> Bool {
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain && error.code == Int(EPIPE) { return true }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError { return isBrokenPipe(underlying) }
        return false
    }
}
