import ArgumentParser
import CatalogSync
import Foundation
import ImagePrep
import OpenMarketAPI
import ShopState
import Support

// Options that several commands take, declared once: the same name, help and check
// wherever they appear (import, migrate, undo, export).

/// `--rate`: one pacer for every request of a run; a 429 seen by one worker slows them all.
struct RateOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("At most this many requests per second to the shop, across workers.", valueName: "R"))
    var rate: Double?

    func validate() throws {
        if let rate, rate <= 0 { throw ValidationError(Console.say("arg_above_zero", "--rate")) }
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

    /// `--links`, as a run's choice (nil: the account's): a file on this machine.
    var given: StoreAddress? { links.map { .file(URL(fileURLWithPath: $0)) } }

    func address(default account: StoreAddress) -> StoreAddress { given ?? account }
}

/// `--quiet`: for logs and schedulers.
struct QuietOption: ParsableArguments {
    @Flag(name: .long, help: "No progress line; one line per 10 % and the summary.")
    var quiet = false
}

/// `--cache s3://BUCKET/PREFIX`: prepared photos shared by every machine (import, feed run).
struct SharedCacheOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("""
        Prepared photos shared by every machine (or $OPENMARKET_CACHE): S3-compatible storage, \
        s3://BUCKET/PREFIX, with AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION and \
        AWS_ENDPOINT_URL (a server that is not AWS) from the environment. Looked in after this \
        machine's cache; what is prepared here is stored there. Default: this machine's cache only.
        """, valueName: "s3://bucket/prefix"))
    var cache: String?

    /// The address given, or the environment's.
    var address: String? {
        cache ?? ProcessInfo.processInfo.environment["OPENMARKET_CACHE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// This machine's photo cache with the shared store behind it; nil with no address. A
    /// wrong address, missing credentials or storage that refuses them stop the command here.
    func imageCache(transport: TransportSettings) throws -> ImageCache? {
        guard let address else { return nil }
        do {
            let store = try S3ImageStore.open(address, settings: transport)
            return try ImageCache(directory: ImageCache.defaultDirectory, shared: store)
        } catch let failure as S3Failure {
            let exit: ExitStatus = failure.isSetup ? .badInput : .unreachable
            throw CommandFailure(say: "f_photo_cache", failure.description, exitCode: exit)
        }
    }

    /// One line of what the shared cache did, for the end of a run.
    static func summary(_ cache: ImageCache?) -> String? {
        guard let cache, let shared = cache.shared else { return nil }
        let counts = cache.sharedCounts
        var line = "Shared photo cache \(shared.name): \(counts.hits) found there, \(counts.stored) prepared here and stored"
        if counts.storedByOther > 0 { line += ", \(counts.storedByOther) stored meanwhile by another machine" }
        if counts.failures > 0 { line += "; \(counts.failures) failed (first: \(counts.firstFailure ?? "?")): those photos were prepared here" }
        return line
    }
}
