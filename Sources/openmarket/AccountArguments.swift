import Foundation
import Words

/// The arguments that name a run's account again in a later command (an undo printed at a
/// run's end), never a secret: the server, the profile, the config file, how TLS is
/// trusted; and, when the credentials were given as options, which variables carry them
/// instead (the line works as printed once they are set).
struct AccountArguments: Sendable, Equatable {
    var arguments: [String] = []
    /// Said under the command when the credentials are not in it.
    var credentialsNote: String? { credentialsNote(whose: "this_run") }
    /// The variables that carry what was given as options, and what each is.
    private var hiddenVariables: [String] = []
    private var hiddenWhat: [String] = []

    /// `first set OPENMARKET_IDENTIFIER and OPENMARKET_SECRET to the source account's identifier and secret …`;
    /// `whose`: `this_run`, `source` or `target` (the catalogue's `whose:` words).
    func credentialsNote(whose: String) -> String? {
        guard !hiddenVariables.isEmpty else { return nil }
        return Console.say("t_set_first", WordTable.list(hiddenVariables, Console.language), Console.say("whose:\(whose)"),
                           WordTable.list(hiddenWhat.map { Console.say("cred:\($0)") }, Console.language))
    }

    init() {}

    init(server: String?, profile: String?, config: String?, api: String? = nil, cacert: String?, insecure: Bool,
         identifierGiven: Bool, secretGiven: Bool, state: String? = nil) {
        if let profile { arguments += ["--profile", profile] }
        // The shared state by its address when it carries no password; else $OPENMARKET_STATE names it.
        if let state, URLComponents(string: state)?.password == nil { arguments += ["--state", state] }
        if let server { arguments += ["--server", server] }
        if let config { arguments += ["--config", Self.absolute(config)] }
        if let api { arguments += ["--api", api] }
        if let cacert { arguments += ["--cacert", Self.absolute(cacert)] }
        if insecure { arguments.append("--insecure") }
        let stateHidden = state.map { URLComponents(string: $0)?.password != nil } ?? false
        let variables = (identifierGiven ? ["OPENMARKET_IDENTIFIER"] : []) + (secretGiven ? ["OPENMARKET_SECRET"] : [])
            + (stateHidden ? ["OPENMARKET_STATE"] : [])
        let what = [identifierGiven ? "identifier" : nil, secretGiven ? "secret" : nil, stateHidden ? "state" : nil].compactMap { $0 }
        hiddenVariables = variables
        hiddenWhat = what
    }

    /// `openmarket undo FOLDER --server …`, quoted for a POSIX shell.
    func undo(_ folder: URL) -> String { command(["undo", folder.path]) }

    /// `openmarket WORDS… --server …` against this account, quoted for a POSIX shell.
    func command(_ words: [String]) -> String {
        (["openmarket"] + words + arguments).map(Self.quoted).joined(separator: " ")
    }

    /// The undo line and, when needed, what to set first.
    func undoLines(_ folder: URL, lead: String? = nil) -> [String] {
        [lead.map { $0 + undo(folder) } ?? Console.say("t_undo_lead", undo(folder))] + (credentialsNote.map { ["  (\($0))"] } ?? [])
    }

    static func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }

    /// A word as a shell reads it back: unchanged when it is plain, else in single quotes.
    static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) && $0.isASCII || "_-./:=@%+,".unicodeScalars.contains($0)
        }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
