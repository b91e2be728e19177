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

    enum Level: String, CaseIterable {
        case ok, warn, fail

        /// The level's word in the reader's language, padded so that the checks line up.
        var word: String {
            let widest = Level.allCases.map { Console.say("doctor_level:\($0.rawValue)").count }.max() ?? 4
            return Console.say("doctor_level:\(rawValue)").padding(toLength: widest, withPad: " ", startingAt: 0)
        }
    }

    func execute() async throws -> ExitStatus {
        var failures = 0
        func say(_ level: Level, _ text: String) {
            if level == .fail { failures += 1 }
            Console.line("\(level.word)  \(text)")
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
                say(.fail, Console.say("d_config_open", configPath, String(info.st_mode & 0o777, radix: 8)))
            } else {
                do {
                    _ = try OpenMarketConfig.load(path: configPath)
                    say(.ok, Console.say("d_config_ok", configPath))
                } catch {
                    say(.fail, Console.say("d_config_bad", configPath, "\(error)"))
                }
            }
        } else if server.client.config != nil {
            say(.fail, Console.say("d_config_missing", configPath))
        } else {
            say(.ok, Console.say("d_config_none", configPath))
        }
    }

    /// libcurl, and the photo formats the server does not take, turned into JPEG here.
    private func checkLibraries(_ say: (Level, String) -> Void) {
        let curl = OpenMarketVersion.libcurlFeatures
        if let tls = curl.tls {
            say(.ok, Console.say("d_curl_ok", OpenMarketVersion.libcurl, tls, curl.http2 ? ", HTTP/2" : ""))
        } else {
            say(.fail, Console.say("d_curl_no_tls", OpenMarketVersion.libcurl))
        }

        if PhotoDecoders.decodesHEIC {
            say(.ok, Console.say("d_photos_ok", PhotoDecoders.libheifVersion, PhotoDecoders.decodesAVIF ? Console.say("d_avif") : "", PhotoDecoders.libwebpVersion))
        } else {
            say(.warn, Console.say("d_photos_no_hevc", PhotoDecoders.libheifVersion))
        }
    }

    /// The shared photo cache, when one is named (--cache or OPENMARKET_CACHE): the bucket answers
    /// and takes the credentials.
    private func checkSharedCache(_ say: (Level, String) -> Void) async {
        guard let address = sharedCache.address else { return }
        do {
            let cache = try await Runner.onThread { [sharedCache] in try sharedCache.imageCache(transport: TransportSettings()) }
            say(.ok, Console.say("d_cache_ok", cache?.shared?.name ?? address))
        } catch {
            say(.fail, "\(error)")
        }
    }

    /// The account's state folder and the photo cache: writable, with room.
    private func checkFolders(_ stateFolder: URL, _ say: (Level, String) -> Void) {
        for (label, folder, fix) in [(Console.say("d_folder_state"), stateFolder, Console.say("d_fix_state")),
                                     (Console.say("d_folder_cache"), ImageCache.defaultDirectory, Console.say("d_fix_cache"))] {
            switch Self.check(folder) {
            case .success(let free):
                if free < Self.lowSpace {
                    say(.warn, Console.say("d_folder_low", label, folder.path, Self.size(free)))
                } else {
                    say(.ok, Console.say("d_folder_ok", label, folder.path, Self.size(free)))
                }
            case .failure(let problem):
                say(.fail, Console.say("d_folder_bad", label, folder.path, problem.reason, fix))
            }
        }
    }

    /// The server answers, the credentials are accepted; returns the account's state folder.
    private func checkServer(_ say: (Level, String) -> Void) async -> URL {
        let connection: Connection
        do {
            connection = try await Connection.connect(server, configure: { _ in })
        } catch {
            say(.fail, Console.say("d_cannot_connect", "\(error)"))
            return StateFolder.url
        }
        let client = connection.client
        let name = connection.sandbox != nil ? Console.say("d_sandbox_name", client.configuration.server.absoluteString) : client.configuration.server.absoluteString
        let started = Date()
        let reachable: Bool
        do {
            let generation = try await client.run { _ = try $0.health(); return try $0.generation() }
            say(.ok, Console.say("d_server_ok", name, String(Int(Date().timeIntervalSince(started) * 1000)), generation.summary,
                                client.configuration.generation != nil ? Console.say("d_as_api") : ""))
            reachable = true
        } catch {
            say(.fail, Console.say("d_server_down", name, "\(error)"))
            reachable = false
        }
        if reachable {
            if client.configuration.credentials == nil {
                say(.warn, Console.say("d_no_credentials"))
            } else {
                do {
                    switch try await client.run({ try $0.checkCredentials() }) {
                    case .accepted:
                        if client.configuration.credentials?.identifier.isEmpty == true {
                            say(.ok, Console.say("d_password_only"))
                        } else {
                            say(.ok, Console.say("d_credentials_ok"))
                        }
                    case .refused(let status): say(.fail, Console.say("d_credentials_refused", String(status)))
                    case .untested where client.configuration.credentials?.identifier.isEmpty == true:
                        say(.ok, Console.say("d_password_only"))
                    case .untested:
                        say(.warn, Console.say("d_credentials_untested"))
                    }
                } catch {
                    say(.warn, Console.say("d_credentials_unchecked", "\(error)"))
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
