import ArgumentParser
import Foundation
import ImagePrep
import OpenMarketAPI
import UserConfig
import ShopState
import Support

struct DoctorCommand: ServerCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check what a run needs, and say what to fix: server, credentials, folders, libcurl, photo decoders, config file.",
        discussion: """
            One line per check: ok, warn (works, but look), or FAIL with what to do. Checks the \
            config file (readable only by you), libcurl (TLS for https servers, HTTP/2), the \
            server (it answers, and how fast), the credentials (the same harmless probe import \
            makes before writing: it asks for the delete key of a product that cannot exist), \
            the state and cache folders (writable, free space), and the shared photo cache when \
            one is named (--cache or OPENMARKET_CACHE: the bucket answers and takes the \
            credentials). With no --server, the built-in sandbox is checked.

            Exit codes: 0 nothing failed; 1 something failed.
            """)

    @OptionGroup var server: ServerOptions

    @OptionGroup var sharedCache: SharedCacheOption

    /// Below this much free space a folder is a warning.
    static let lowSpace: Int64 = 200 * 1024 * 1024

    enum Level: String { case ok = "ok  ", warn = "warn", fail = "FAIL" }

    func execute() async throws -> ExitStatus {
        var failures = 0
        func say(_ level: Level, _ text: String) {
            if level == .fail { failures += 1 }
            Console.line("\(level.rawValue)  \(text)")
        }
        checkConfig(say)
        checkLibraries(say)
        // The server and the credentials.
        let stateFolder = await checkServer(say)
        checkFolders(stateFolder, say)
        await checkSharedCache(say)
        return failures > 0 ? .someFailed : .ok
    }

    /// The config file: it holds a secret.
    private func checkConfig(_ say: (Level, String) -> Void) {
        let configPath = server.client.config ?? OpenMarketConfig.defaultPath
        var info = stat()
        if stat(configPath, &info) == 0 {
            if info.st_mode & 0o077 != 0 {
                say(.fail, "config file \(configPath) can be read by others (mode \(String(info.st_mode & 0o777, radix: 8))): run chmod 600 \(configPath)")
            } else {
                do {
                    _ = try OpenMarketConfig.load(path: configPath)
                    say(.ok, "config file \(configPath): readable only by you, valid")
                } catch {
                    say(.fail, "config file \(configPath): \(error)")
                }
            }
        } else if server.client.config != nil {
            say(.fail, "config file \(configPath) does not exist")
        } else {
            say(.ok, "no config file (\(configPath)): settings come from options and OPENMARKET_* variables")
        }
    }

    /// libcurl, and the photo formats the server does not take, turned into JPEG here.
    private func checkLibraries(_ say: (Level, String) -> Void) {
        let curl = OpenMarketVersion.libcurlFeatures
        if let tls = curl.tls {
            say(.ok, "libcurl \(OpenMarketVersion.libcurl) with \(tls)\(curl.http2 ? ", HTTP/2" : "")")
        } else {
            say(.fail, "libcurl \(OpenMarketVersion.libcurl) has no TLS: https servers cannot be reached; install Debian's libcurl4 (OpenSSL)")
        }

        if PhotoDecoders.decodesHEIC {
            say(.ok, "photos: HEIC (libheif \(PhotoDecoders.libheifVersion)\(PhotoDecoders.decodesAVIF ? ", AVIF too" : "")) and WebP (libwebp \(PhotoDecoders.libwebpVersion)) are turned into JPEG")
        } else {
            say(.warn, "photos: libheif \(PhotoDecoders.libheifVersion) has no HEVC decoder: HEIC photos from a phone will fail; install Debian's libheif1 with libde265")
        }
    }

    /// The shared photo cache, when one is named (--cache or OPENMARKET_CACHE): the bucket answers
    /// and takes the credentials.
    private func checkSharedCache(_ say: (Level, String) -> Void) async {
        guard let address = sharedCache.address else { return }
        do {
            let cache = try await Runner.onThread { [sharedCache] in try sharedCache.imageCache(transport: TransportSettings()) }
            say(.ok, "shared photo cache \(cache?.shared?.name ?? address): the bucket answers and takes the credentials")
        } catch {
            say(.fail, "\(error)")
        }
    }

    /// The account's state folder and the photo cache: writable, with room.
    private func checkFolders(_ stateFolder: URL, _ say: (Level, String) -> Void) {
        for (label, folder, fix) in [("state folder", stateFolder, "set XDG_STATE_HOME to a folder you can write"),
                                     ("image cache", ImageCache.defaultDirectory, "set XDG_CACHE_HOME, or run import with --no-cache")] {
            switch Self.check(folder) {
            case .success(let free):
                let text = "\(label) \(folder.path): writable, \(Self.size(free)) free"
                if free < Self.lowSpace {
                    say(.warn, text + ": a run needs room for its journal, links and reports")
                } else {
                    say(.ok, text)
                }
            case .failure(let problem):
                say(.fail, "\(label) \(folder.path): \(problem.reason): \(fix)")
            }
        }
    }

    /// The server answers, the credentials are accepted; returns the account's state folder.
    private func checkServer(_ say: (Level, String) -> Void) async -> URL {
        let connection: Connection
        do {
            connection = try await Connection.connect(server, configure: { _ in })
        } catch {
            say(.fail, "cannot connect: \(error)")
            return StateFolder.url
        }
        let client = connection.client
        let name = connection.sandbox != nil ? "the built-in sandbox (\(client.configuration.server.absoluteString))" : client.configuration.server.absoluteString
        let started = Date()
        let reachable: Bool
        do {
            let generation = try await client.run { _ = try $0.health(); return try $0.generation() }
            say(.ok, "server \(name) answers (\(Int(Date().timeIntervalSince(started) * 1000)) ms), generation \(generation.summary)\(client.configuration.generation != nil ? ", as --api says" : "")")
            reachable = true
        } catch {
            say(.fail, "server \(name) does not answer: \(error). Check --server (or OPENMARKET_SERVER), the network and any proxy")
            reachable = false
        }
        if reachable {
            if client.configuration.credentials == nil {
                say(.warn, "no credentials: list, show and export work; import, delete and undo need --identifier and --secret (or OPENMARKET_IDENTIFIER and OPENMARKET_SECRET, or the config file)")
            } else {
                do {
                    switch try await client.run({ try $0.checkCredentials() }) {
                    case .accepted:
                        if client.configuration.credentials?.identifier.isEmpty == true {
                            say(.ok, "a password and no identifier: a 2021 server's items are each checked against it when they are written")
                        } else {
                            say(.ok, "credentials accepted")
                        }
                    case .refused(let status): say(.fail, "the server refused the credentials (\(status)): check the identifier and the secret")
                    case .untested where client.configuration.credentials?.identifier.isEmpty == true:
                        say(.ok, "a password and no identifier: a 2021 server's items are each checked against it when they are written")
                    case .untested:
                        say(.warn, "the credentials cannot be checked without writing: this server answers a wrong secret as it answers a right one until a product is written (a run stops at the first refused write, before another photo is sent)")
                    }
                } catch {
                    say(.warn, "the credentials could not be checked: \(error)")
                }
            }
        }
        let stateFolder = connection.account.folder
        await connection.close()
        return stateFolder

    }

    struct FolderProblem: Error { var reason: String }

    /// Creates the folder if needed, writes and removes a file in it; returns the free bytes.
    static func check(_ folder: URL) -> Result<Int64, FolderProblem> {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            return .failure(FolderProblem(reason: "cannot be created (\(why(folder)))"))
        }
        let probe = folder.appendingPathComponent(".openmarket-doctor-\(getpid())")
        guard FileManager.default.createFile(atPath: probe.path, contents: Data("ok".utf8)) else {
            return .failure(FolderProblem(reason: "not writable"))
        }
        try? FileManager.default.removeItem(at: probe)
        var stats = statvfs()
        guard statvfs(folder.path, &stats) == 0 else { return .failure(FolderProblem(reason: "its free space cannot be read")) }
        return .success(Int64(stats.f_bavail) * Int64(stats.f_frsize))
    }

    /// Why a folder cannot be made: the nearest existing parent is a file, or not writable.
    static func why(_ folder: URL) -> String {
        var parent = folder.deletingLastPathComponent()
        while parent.path != "/" {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: parent.path, isDirectory: &isDirectory) {
                if !isDirectory.boolValue { return "\(parent.path) is a file, not a folder" }
                return access(parent.path, W_OK) == 0 ? "unknown reason" : "no permission to write in \(parent.path)"
            }
            parent = parent.deletingLastPathComponent()
        }
        return "unknown reason"
    }

    static func size(_ bytes: Int64) -> String { ByteCount.text(bytes) }
}
