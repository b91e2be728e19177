/// Why a run could not start, or stopped as a whole, as the engine says it. The engine names
/// no exit status: the command layer maps a cause to one (`CommandFailure.from`), the console
/// to a message.
public enum StopCause: String, Sendable, Codable {
    /// The shop, its credentials or the account's state could not be read (or were refused).
    case unreachable
    /// What the run was given cannot be used: a file, a folder, missing credentials, a record.
    case input
    /// A guard refused the run as a whole before anything was sent (`--max-deletes`).
    case refused
    /// Another run holds the account.
    case busy
}
