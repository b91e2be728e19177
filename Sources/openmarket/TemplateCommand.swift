import ArgumentParser
import Feeds
import Foundation
import Support
import Manifest

struct TemplateCommand: OpenMarketCommand {
    static let configuration = CommandConfiguration(
        commandName: "template",
        abstract: "Write a starting manifest: the columns and one example row.",
        discussion: """
            The Excel template has a notes row above the header (rows above the header are never \
            read), a bold frozen header, and a drop-down of currencies. Fill it in, then \
            `openmarket validate` and `openmarket import` it as it is.

            --format feed writes a commented feed file instead: how a supplier's own columns \
            and cost prices become your products (see `openmarket feed`). --map NAME (\(ShippedMaps.listed.joined(separator: ", "))) \
            writes the map openmarket reads that platform's product file with, to read or to change \
            (then `import --map FILE`; the map language: docs/maps.md).

            Examples:
              openmarket template --out products.xlsx
              openmarket template --format csv > products.csv
              openmarket template --format feed --out ~/.config/openmarket/feeds/acme.toml
              openmarket template --map shopify --out my-shopify.toml
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case csv, xlsx, feed }

    @Option(name: .long, help: "csv, xlsx or feed (default: from --out's extension, else csv).")
    var format: Format?

    @Option(name: .long, help: ArgumentHelp("The file to write (default: CSV to standard output).", valueName: "file"))
    var out: String?

    @Option(name: .long, help: ArgumentHelp("A shipped map instead: \(ShippedMaps.listed.joined(separator: " or ")).", valueName: "name"))
    var map: String?

    func validate() throws {
        if let map, ShippedMaps.text(map) == nil {
            throw ValidationError(Console.say("arg_map", map, ShippedMaps.listed.joined(separator: ", ")))
        }
        if (format ?? outFormat) == .xlsx, out == nil { throw ValidationError(Console.say("arg_xlsx_template")) }
    }

    private var outFormat: Format {
        out.map {
            switch URL(fileURLWithPath: $0).pathExtension.lowercased() {
            case "xlsx": .xlsx
            case "toml": .feed
            default: .csv
            }
        } ?? .csv
    }

    func execute() async throws -> ExitStatus {
        if let out {
            // A template's usual place (~/.config/openmarket/feeds/) does not exist on a new machine.
            let folder = URL(fileURLWithPath: out).deletingLastPathComponent()
            do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
                throw CommandFailure(say: "f_make_folder", folder.path, out, fileErrorReason(error), exitCode: .badInput)
            }
        }
        if let map, let text = ShippedMaps.text(map) {
            try write(text + "\n")
            if let out { Console.line(Console.say("t_wrote", out)) }
            return .ok
        }
        switch format ?? outFormat {
        case .csv:
            try write(try ManifestTemplate.csv())
        case .feed:
            try write(FeedTemplate.text)
        case .xlsx:
            do { try ManifestTemplate.writeWorkbook(to: URL(fileURLWithPath: out!)) } catch {
                throw CommandFailure(error, exitCode: .someFailed)
            }
        }
        if let out { Console.line(Console.say("t_wrote", out)) }
        return .ok
    }

    private func write(_ text: String) throws {
        guard let out else { return print(text, terminator: "") }
        do { try text.write(toFile: out, atomically: true, encoding: .utf8) } catch {
            throw CommandFailure(say: "f_cannot_write_why", out, fileErrorReason(error), exitCode: .badInput)
        }
    }
}
