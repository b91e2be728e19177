import ArgumentParser
import Foundation
import OpenMarketAPI

@main
struct OpenMarket: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openmarket",
        abstract: "Move a merchant's catalog in and out of an Open Market server.",
        discussion: """
            Start with `openmarket sandbox` to run a local Open Market server on this machine, \
            where imports can be rehearsed before they touch a real shop.
            """,
        version: "openmarket \(OpenMarketVersion.tool) (libcurl \(OpenMarketVersion.libcurl))",
        subcommands: [SandboxCommand.self, HealthCommand.self, ListCommand.self, ShowCommand.self, DeleteCommand.self, ImagesCommand.self, ValidateCommand.self, TemplateCommand.self, ImportCommand.self, ExportCommand.self, MigrateCommand.self, UndoCommand.self, RunsCommand.self, OpenCommand.self, DoctorCommand.self]
    )
}
