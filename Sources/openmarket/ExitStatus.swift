import FeedRuns
import Support

/// How a command ends, as scripts, cron and systemd read it: one vocabulary for every
/// command (documented in each `--help` and the README).
enum ExitStatus: Int32, Sendable, Codable {
    /// Everything went through (or there was nothing to do).
    case ok = 0
    /// Some rows or products failed (see the report), or the run was refused or stopped.
    case someFailed = 1
    /// A usage error, an unreadable input file, missing credentials.
    case badInput = 2
    /// The server is unreachable, refused the credentials, or its products could not be read.
    case unreachable = 3
    /// A feed's checks held the file: nothing was sent.
    case held = 4
    /// Another run holds the account or the repository.
    case busy = 5
    /// A feed's source could not be fetched.
    case sourceUnreachable = 6
}

extension ExitStatus {
    /// The engine's causes as the command ends: the one map (the engine names no status).
    init(_ cause: StopCause) {
        switch cause {
        case .unreachable: self = .unreachable
        case .input: self = .badInput
        case .refused: self = .someFailed
        case .busy: self = .busy
        }
    }

    /// A feed run's outcome as `feed run` ends (documented in its `--help` and the README).
    init(_ outcome: FeedOutcome) {
        switch outcome {
        case .done, .unchanged: self = .ok
        case .rowsFailed: self = .someFailed
        case .failed: self = .unreachable
        case .held: self = .held
        case .busy: self = .busy
        case .unreachable: self = .sourceUnreachable
        }
    }
}
