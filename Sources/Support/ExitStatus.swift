/// How a command ends, as scripts, cron and systemd read it: one vocabulary for every
/// command (documented in each `--help` and the README).
public enum ExitStatus: Int32, Sendable, Codable {
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
