import ArgumentParser
import Foundation
import OpenMarketAPI
import Support

// Options that several commands take, declared once: the same name, help and check
// wherever they appear (import, migrate, undo, export).

/// `--rate`: one pacer for every request of a run; a 429 seen by one worker slows them all.
struct RateOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("At most this many requests per second to the shop, across workers.", valueName: "R"))
    var rate: Double?

    func validate() throws {
        if let rate, rate <= 0 { throw ValidationError("--rate must be above 0") }
    }

    /// Sets the client's pacer.
    var configure: (inout ClientConfiguration) -> Void {
        { [rate] in $0.pacer = RateLimiter(perSecond: rate) }
    }
}

/// `--links`: the account's link store (merchant key → product), default in its state folder.
struct LinksOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The link store of the account (default: in the state folder).", valueName: "path"))
    var links: String?

    func url(default account: URL) -> URL { links.map { URL(fileURLWithPath: $0) } ?? account }
}

/// `--quiet`: for logs and schedulers.
struct QuietOption: ParsableArguments {
    @Flag(name: .long, help: "No progress line; one line per 10 % and the summary.")
    var quiet = false
}
