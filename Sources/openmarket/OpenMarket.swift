import ArgumentParser
import Foundation
import OpenMarketAPI
import Support
import Words

/// The program: the command line as the kernel passed it (`ProgramArguments`: a binary with the
/// Swift library linked in may not find it itself), parsed by the root command.
@main
enum Program {
    static func main() async {
        MemoryTuning.apply()
        // An argument error is said before any command runs: in `--lang`'s language, else the locale's.
        Console.language = spokenLanguage(ProgramArguments.given) ?? .ofLocale()
        await OpenMarket.main(ProgramArguments.given)
    }

    /// The language `--lang X` or `--lang=X` names on the command line, if it names one.
    static func spokenLanguage(_ arguments: [String]) -> Language? {
        for (index, argument) in arguments.enumerated() {
            if argument == "--" { break }
            if argument.hasPrefix("--lang="), let language = Language(rawValue: String(argument.dropFirst(7))) { return language }
            if argument == "--lang", index + 1 < arguments.count, let language = Language(rawValue: arguments[index + 1]) { return language }
        }
        return nil
    }
}

struct OpenMarket: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openmarket",
        abstract: "Move a merchant's catalog in and out of an Open Market server.",
        discussion: """
            Start with `openmarket sandbox` to run a local Open Market server on this machine, \
            where imports can be rehearsed before they touch a real shop.
            """,
        version: "openmarket \(OpenMarketVersion.tool) (libcurl \(OpenMarketVersion.libcurl))",
        groupedSubcommands: [
            CommandGroup(name: "Catalog in", subcommands: [
                ImportCommand.self, ValidateCommand.self, FeedCommand.self, TemplateCommand.self, ImagesCommand.self]),
            CommandGroup(name: "Catalog out", subcommands: [ExportCommand.self, MigrateCommand.self]),
            CommandGroup(name: "Backups", subcommands: [
                BackupCommand.self, SnapshotsCommand.self, DiffCommand.self, HistoryCommand.self, RestoreCommand.self,
                ForgetCommand.self, CheckCommand.self]),
            CommandGroup(name: "Review and undo", subcommands: [RunsCommand.self, UndoCommand.self]),
            CommandGroup(name: "Product", subcommands: [
                ListCommand.self, ShowCommand.self, DeleteCommand.self, HealthCommand.self]),
            CommandGroup(name: "Setup", subcommands: [ConsoleCommand.self, SandboxCommand.self, OpenCommand.self, DoctorCommand.self]),
        ]
    )
}
