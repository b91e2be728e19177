import ArgumentParser
import Foundation
import Words
import ImagePrep
import OpenMarketAPI
import Support

struct ImagesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "images",
        abstract: "Work on photos without uploading them.",
        subcommands: [ShrinkCommand.self])
}

struct ShrinkCommand: OpenMarketCommand {
    static let configuration = CommandConfiguration(
        commandName: "shrink",
        abstract: "Shrink photos under the server's size limit, as import would, and write them to a folder.",
        discussion: """
            Each file keeps its name (a PNG that must become a JPEG gets .jpg, and so does every \
            HEIC and WebP photo, which the server does not take). JPEG and PNG files already \
            under the limit and upright are copied byte for byte. Runs on all cores.

            Example:
              openmarket images shrink photos/*.jpg --out shrunk/
            """)

    @Argument(help: "JPEG, PNG, HEIC or WebP files.")
    var files: [String]

    @Option(name: .long, help: ArgumentHelp("Folder for the results (created if needed).", valueName: "dir"))
    var out: String

    @Option(name: .customLong("max-bytes"), help: "Largest file size allowed, in bytes (the server's limit).")
    var maxBytes = ProductRules.maxImageBytes

    @Option(name: .customLong("max-dimension"), help: ArgumentHelp("Longest edge of a re-encoded photo, in pixels.", valueName: "px"))
    var maxDimension = 2048

    @Option(name: .customLong("quality-floor"), help: "Lowest JPEG quality before dimensions shrink further.")
    var qualityFloor = ImagePrepSettings().qualityFloor

    @Option(name: .customLong("pixel-budget"), help: ArgumentHelp("Refuse images over this many megapixels (decompression bombs).", valueName: "MP"))
    var pixelBudget = 100

    @Option(name: .long, help: ArgumentHelp(
        "Colour detail: auto (per photo, whichever is closest at the limit), 4:4:4, 4:2:2 or 4:2:0.",
        valueName: "mode"))
    var chroma = ChromaOption.auto

    @Flag(name: .long, help: "Progressive JPEG (shown coarse-to-fine while loading; the same bytes as the optimised baseline default, four times the encoding time).")
    var progressive = false

    @Option(name: .long, help: "Worker threads (default: all cores).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError(Console.say("arg_give_file")) }
        guard maxBytes >= 1024 else { throw ValidationError(Console.say("arg_at_least", "--max-bytes", "1024")) }
        guard maxDimension >= 16 else { throw ValidationError(Console.say("arg_at_least", "--max-dimension", "16")) }
        guard (1...100).contains(qualityFloor) else { throw ValidationError(Console.say("arg_range", "--quality-floor", "1", "100")) }
        guard pixelBudget >= 1 else { throw ValidationError(Console.say("arg_at_least", "--pixel-budget", "1")) }
        guard jobs >= 1 else { throw ValidationError(Console.say("arg_at_least", "--jobs", "1")) }
        var seen: [String: String] = [:]
        for file in files {
            let path = URL(fileURLWithPath: file).standardizedFileURL.path
            if let other = seen[path] { throw ValidationError(Console.say("arg_twice", file, other)) }
            seen[path] = file
        }
    }

    /// Each file's path under --out: its name, or, when names repeat (a folder per product,
    /// `TEA-001/1.jpg`, `TEA-002/1.jpg`), its path below the folder the files share.
    static func outputNames(_ inputs: [URL]) -> [String]? {
        let stems = inputs.map { $0.deletingPathExtension().lastPathComponent }
        guard Set(stems).count < stems.count else { return nil }
        let folders = inputs.map { $0.standardizedFileURL.deletingLastPathComponent().pathComponents }
        var common = folders[0]
        for folder in folders.dropFirst() {
            common = Array(zip(common, folder).prefix { $0 == $1 }.map(\.0))
        }
        return inputs.map { $0.standardizedFileURL.pathComponents.dropFirst(common.count).joined(separator: "/") }
    }

    /// The preparation the options ask for.
    private var settings: ImagePrepSettings {
        var settings = ImagePrepSettings()
        settings.maxBytes = maxBytes
        settings.maxDimension = maxDimension
        settings.qualityFloor = qualityFloor
        settings.qualityCeiling = max(qualityFloor, settings.qualityCeiling)
        settings.pixelBudget = pixelBudget * 1_000_000
        settings.chroma = chroma.chroma
        settings.progressive = progressive
        return settings
    }

    func execute() async throws -> ExitStatus {
        let inputs = files.map { URL(fileURLWithPath: $0) }
        let started = Date()
        // One line per file on stdout; on a terminal, the count, rate and time left on stderr.
        let progress = ProgressLine(quiet: inputs.count < 2)
        let done = Counter()
        let failures = Counter()
        progress.update(Console.say("t_phase_shrinking"), done: 0, total: inputs.count, unit: Console.say("t_unit_files"))
        let names = Self.outputNames(inputs)
        if names != nil { Console.line(Console.say("t_images_shared_names", out)) }
        let results = try BatchShrink.run(inputs, outputDirectory: URL(fileURLWithPath: out), names: names, settings: settings,
                                          workers: jobs) { result in
            progress.clear()
            Console.line(Self.describe(result))
            let failed = if case .failure = result.outcome { failures.next() } else { failures.value }
            progress.update(Console.say("t_phase_shrinking"), done: done.next(), total: inputs.count, failed: failed, unit: Console.say("t_unit_files"))
        }
        progress.clear()
        let failed = results.filter { if case .failure = $0.outcome { return true } else { return false } }.count
        let before = results.reduce(0) { $0 + ((try? $1.outcome.get())?.originalBytes ?? 0) }
        let after = results.reduce(0) { $0 + ((try? $1.outcome.get())?.data.count ?? 0) }
        Console.line(Console.say("t_images_done", String(results.count - failed), String(results.count), Self.size(before), Self.size(after),
                                 String(format: "%.2f", Date().timeIntervalSince(started))))
        return failed > 0 ? .someFailed : .ok
    }

    static func describe(_ result: BatchShrink.FileResult) -> String {
        let name = result.input.lastPathComponent
        let time = String(format: "%.0f ms", result.seconds * 1000)
        switch result.outcome {
        case .failure(let error):
            return Console.say("t_image_failed", name, "\(error)")
        case .success(let p):
            var line = "\(name): \(size(p.originalBytes)) \(p.originalWidth)×\(p.originalHeight) → "
            line += "\(size(p.data.count)) \(p.width)×\(p.height)"
            if let quality = p.quality { line += " q\(quality)" }
            if let chroma = p.chroma { line += " \(chroma.rawValue)" }
            line += " " + Console.say("t_image_\(p.action.rawValue)")
            if p.encodes > 0 { line += " " + Console.say("t_image_encodes", count: p.encodes, String(p.encodes)) }
            line += ", \(time)"
            if let output = result.output, output.lastPathComponent != name { line += " " + Console.say("t_image_as", output.lastPathComponent) }
            for warning in p.warnings { line += "\n" + Console.say("t_image_warning", warning.text(Console.language)) }
            return line
        }
    }

    static func size(_ bytes: Int) -> String { ByteCount.text(bytes) }
}

enum ChromaOption: String, ExpressibleByArgument, CaseIterable {
    case auto
    case s444 = "4:4:4"
    case s422 = "4:2:2"
    case s420 = "4:2:0"

    var chroma: Chroma? { Chroma(rawValue: rawValue) }
}
