import ArgumentParser
import Foundation
import Manifest

struct TemplateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "template",
        abstract: "Write a starting manifest: the columns and one example row.",
        discussion: """
            The Excel template has a notes row above the header (rows above the header are never \
            read), a bold frozen header, and a drop-down of currencies. Fill it in, then \
            `openmarket validate` and `openmarket import` it as it is.

            Examples:
              openmarket template --out products.xlsx
              openmarket template --format csv > products.csv
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case csv, xlsx }

    @Option(name: .long, help: "csv or xlsx (default: from --out's extension, else csv).")
    var format: Format?

    @Option(name: .long, help: ArgumentHelp("The file to write (default: CSV to standard output).", valueName: "file"))
    var out: String?

    func validate() throws {
        if (format ?? outFormat) == .xlsx, out == nil { throw ValidationError("an Excel template needs --out FILE") }
    }

    private var outFormat: Format {
        out.map { URL(fileURLWithPath: $0).pathExtension.lowercased() == "xlsx" ? .xlsx : .csv } ?? .csv
    }

    func run() throws {
        switch format ?? outFormat {
        case .csv:
            let text = try ManifestTemplate.csv()
            if let out { try text.write(toFile: out, atomically: true, encoding: .utf8) } else { print(text, terminator: "") }
        case .xlsx:
            do { try ManifestTemplate.writeWorkbook(to: URL(fileURLWithPath: out!)) } catch {
                Console.error("openmarket template: \(error)")
                throw ExitCode(1)
            }
        }
        if let out { Console.line("Wrote \(out)") }
    }
}
