import ArgumentParser
import Foundation
import Manifest
import OpenMarketAPI

/// How a manifest is read: shared by `validate` and `import`.
struct ManifestOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Folder that relative image paths are under (default: the manifest's folder).", valueName: "dir"))
    var images: String?

    @Option(name: .long, help: ArgumentHelp("Column delimiter: , ; or tab (default: detected).", valueName: "char"))
    var delimiter: Delimiter?

    @Option(name: .long, help: ArgumentHelp("utf-8, utf-16 or cp949 (default: detected).", valueName: "name"))
    var encoding: EncodingName?

    @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Accepted currencies.", valueName: "code"))
    var currencies: [String] = ProductRules.sandboxCurrencies

    enum Delimiter: String, ExpressibleByArgument, CaseIterable {
        case comma = ",", semicolon = ";", tab = "tab"

        init?(argument: String) {
            switch argument {
            case ",": self = .comma
            case ";": self = .semicolon
            case "\t", "tab", "\\t": self = .tab
            default: return nil
            }
        }

        var character: Character {
            switch self {
            case .comma: ","
            case .semicolon: ";"
            case .tab: "\t"
            }
        }
    }

    struct EncodingName: ExpressibleByArgument {
        var encoding: TextEncoding
        init?(argument: String) {
            guard let encoding = TextEncoding(name: argument) else { return nil }
            self.encoding = encoding
        }
        static var allValueStrings: [String] { ["utf-8", "utf-16", "cp949"] }
    }

    var validation: ValidationOptions {
        var options = ValidationOptions()
        options.imagesDirectory = images.map { URL(fileURLWithPath: $0) }
        options.currencies = currencies.map { $0.uppercased() }
        options.encoding = encoding?.encoding
        options.delimiter = delimiter?.character
        return options
    }
}
