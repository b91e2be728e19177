// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "openmarket",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "openmarket", targets: ["openmarket"]),
        .library(name: "Sandbox", targets: ["Sandbox"]),
        .library(name: "OpenMarketAPI", targets: ["OpenMarketAPI"]),
        .library(name: "ImagePrep", targets: ["ImagePrep"]),
        // For the benchmarks package (Benchmarks/Package.swift).
        .library(name: "Manifest", targets: ["Manifest"]),
        // The readers of outside bytes as fuzz targets: built with libFuzzer by `scripts/fuzz`
        // (the package in Fuzz/), read by FuzzChecksTests with every input ever kept.
        .library(name: "FuzzChecks", targets: ["FuzzChecks"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
    ],
    targets: [
        // C libraries from Debian, nothing else in these targets.
        // zlib's inflate, for the workbook's parts (each inflated from exactly its own bytes).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CTurboJPEG",
            pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]
        ),
        .systemLibrary(
            name: "CPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]
        ),
        .systemLibrary(
            name: "CHeif",
            pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]
        ),
        .systemLibrary(
            name: "CWebP",
            pkgConfig: "libwebpdemux",
            providers: [.apt(["libwebp-dev"])]
        ),
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CXLSXWriter",
            pkgConfig: "xlsxwriter",
            providers: [.apt(["libxlsxwriter-dev"])]
        ),
        // The contract (../shared/openmarket-api.md) as types: wire models, the product rules,
        // the body keys, prices and timestamps. No transport: the sandbox and the manifest
        // rules share it without linking libcurl.
        .target(name: "OpenMarketContract", dependencies: ["Support"]),
        // The words a merchant reads outside the terminal, in English and Korean: one table for
        // the console's pages and the run's reports.
        // A phrase: a message's id and values, said later in the reader's language (no words here).
        .target(name: "Phrases"),
        // The catalogue's .po files are read by every process at its start: optimised in debug
        // builds too (the tests start the debug binary some 900 times).
        .target(name: "Words", dependencies: ["OpenMarketContract", "Phrases"], resources: [.copy("Resources/messages")],
                swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        // The libcurl client: transport, retries, errors, credentials (re-exports the contract).
        .target(
            name: "OpenMarketAPI",
            dependencies: [
                "CCurl",
                "OpenMarketContract",
                "Support",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The user's config file (~/.config/openmarket/config.toml): servers, credentials, profiles.
        .target(
            name: "UserConfig",
            dependencies: ["OpenMarketContract", "Support", .product(name: "TOMLKit", package: "TOMLKit")]
        ),
        // Small parts with no dependencies, shared by the modules: the append-only log, FNV,
        // image formats by content, parallel work in order, bounded queues.
        .target(name: "Support", dependencies: ["CCrypto", "CSpawn"]),
        // posix_spawn with the inherited descriptors closed by the C library (see ChildProcess).
        .target(name: "CSpawn"),
        // The one zip reader (workbooks, uploads) and raw deflate/inflate (snapshots): every
        // size and offset checked against the file, a part's end its end. A writer for tests.
        .target(name: "Zip", dependencies: ["CZlib"]),
        // Reading and writing manifests (CSV, JSON, JSON Lines, Excel workbooks), their
        // columns, encodings and validation rules.
        .target(
            name: "Manifest",
            dependencies: [
                "OpenMarketContract", "Support", "Words", "CXLSXWriter", "Zip",
            ]
        ),
        // Supplier feeds: a feed file (TOML) maps a supplier's columns to ours, makes prices
        // from costs, filters rows and protects fields; the manifest reader reads through it.
        .target(
            name: "Feeds",
            dependencies: ["Manifest", "OpenMarketContract", "Support", "Words", .product(name: "TOMLKit", package: "TOMLKit")],
            resources: [.copy("Resources/maps")]
        ),
        // Feeds that run themselves: the source fetched, checks that hold a bad file, one run per
        // account (flock), the import through the feed, the record, notifications.
        .target(
            name: "FeedRuns",
            dependencies: [
                "Feeds", "CatalogSync", "Manifest", "ImagePrep", "OpenMarketAPI", "ShopState", "Support", "Words",
            ]
        ),
        // Backups: a repository of snapshots that keeps each photo once; diff, history,
        // restore (through the import's sync), forget, check.
        .target(
            name: "Backups",
            dependencies: [
                "CatalogExport", "CatalogSync", "Manifest", "OpenMarketAPI", "ShopState", "Support", "Words", "Zip",
            ]
        ),
        // What openmarket remembers of an account: merchant key → product id, and what was last pushed;
        // and of photo files: their hashes by fingerprint.
        .target(
            name: "ShopState",
            dependencies: ["CPostgres", "OpenMarketContract", "Phrases", "Support", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // The one sync: the run request (a door's account, source and choices made into one run),
        // its row sources (a manifest, rows handed over, keys to delete, an undo's record), the
        // run's stages, the product writer, journal, run record, reports.
        .target(
            name: "CatalogSync",
            dependencies: [
                "Manifest", "ImagePrep", "OpenMarketAPI", "ShopState", "Support", "Words",
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            resources: [.copy("Resources/report.html.mustache")]
        ),
        // Another shop's catalog as the rows of a sync (`migrate`): export's scan feeding the one
        // sync, so that neither the engine nor export depends on the other.
        .target(name: "CatalogMigration", dependencies: ["CatalogSync", "CatalogExport", "Manifest", "OpenMarketAPI", "ShopState", "Support"]),
        // Export: paging, detail fetch, image download, manifest output.
        .target(
            name: "CatalogExport",
            dependencies: [
                "Manifest", "OpenMarketAPI", "Support", "Words",
            ]
        ),
        // Every reader of outside bytes with the checks a fuzzer runs on it (`scripts/fuzz`).
        .target(
            name: "FuzzChecks",
            dependencies: [
                "Manifest", "Feeds", "OpenMarketAPI", "OpenMarketContract", "Zip",
            ]
        ),
        // TurboJPEG's environment setting (optimised Huffman tables), made before main.
        .target(
            name: "WebConsole",
            dependencies: [
                "Backups", "CatalogSync", "CatalogExport", "FeedRuns", "Feeds", "ImagePrep", "LocalListener", "Manifest", "OpenMarketAPI", "ShopState", "Support", "Words",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            resources: [.copy("Resources/pages"), .copy("Resources/plain.html.mustache"), .copy("Resources/console.js")]
        ),
        .target(name: "CJPEGSettings"),
        // Photo work: decoding JPEG, PNG, HEIC and WebP, shrinking under the limit, thumbnails, the cache.
        .target(
            name: "ImagePrep",
            dependencies: ["CTurboJPEG", "CJPEGSettings", "CPNG", "CHeif", "CWebP", "OpenMarketContract", "Phrases", "Support"],
            // The pixel loops (resize, colour, the quality search's distance) are optimised in
            // debug builds too: unoptimised, the README's first import took 20 s for 20 photos.
            swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]
        ),
        // A Hummingbird application on 127.0.0.1, returned once it listens: below the sandbox,
        // the console and the tests' servers, so that none of them links another.
        .target(
            name: "LocalListener",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The local Open Market server.
        .target(
            name: "Sandbox",
            dependencies: [
                "LocalListener",
                "OpenMarketContract",
                "ImagePrep",
                "Support",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            resources: [.copy("Resources/pages")]
        ),
        .executableTarget(
            name: "openmarket",
            dependencies: [
                "Sandbox",
                "OpenMarketAPI",
                "UserConfig",
                "WebConsole",
                "ImagePrep",
                "Manifest",
                "CatalogSync",
                "Words",
                "CatalogMigration",
                "CatalogExport",
                "Feeds",
                "FeedRuns",
                "Backups",
                "ShopState",
                "Support",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Helpers shared by the test targets: in-process sandboxes, curl, image fixtures.
        .target(name: "TestSupport", dependencies: [
            "LocalListener", "Sandbox", "OpenMarketAPI", "ImagePrep", "Support",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Tests/TestSupport"),
        // (Not HummingbirdTesting: it brings async-http-client, and with it swift-crypto's
        // BoringSSL, into every test build; the router is tested over loopback HTTP.)
        .testTarget(name: "SandboxTests", dependencies: ["Sandbox", "OpenMarketAPI", "ImagePrep", "Support", "TestSupport"]),
        .testTarget(name: "ManifestTests", dependencies: [
            "Manifest", "OpenMarketContract", "TestSupport", "Zip", .product(name: "CSV", package: "CSV.swift"),
        ]),
        .testTarget(name: "ImagePrepTests", dependencies: ["ImagePrep", "Support", "Words", "CTurboJPEG", "CPNG", "CHeif", "TestSupport"]),
        .testTarget(name: "OpenMarketAPITests", dependencies: [
            "OpenMarketAPI", "Sandbox", "ImagePrep", "TestSupport",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .testTarget(name: "CatalogExportTests", dependencies: [
            "CatalogExport", "CatalogSync", "Manifest", "OpenMarketAPI", "Sandbox", "ShopState", "TestSupport",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The import pipeline driven directly against the in-process sandbox.
        .testTarget(name: "CatalogSyncTests", dependencies: [
            "CatalogSync", "CatalogMigration", "Feeds", "CatalogExport", "ShopState", "Support", "Manifest", "OpenMarketAPI", "Sandbox", "TestSupport", "ImagePrep",
            "Words", .product(name: "Hummingbird", package: "hummingbird"),
        ]),
        .testTarget(name: "ShopStateTests", dependencies: ["ShopState", "OpenMarketContract", "Support", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "SupportTests", dependencies: ["Support"]),
        .testTarget(name: "UserConfigTests", dependencies: ["UserConfig", "OpenMarketContract"]),
        .testTarget(name: "OpenMarketContractTests", dependencies: ["OpenMarketContract"]),
        .testTarget(name: "WebConsoleTests", dependencies: [
            "WebConsole", "Backups", "CatalogSync", "ImagePrep", "OpenMarketAPI", "Sandbox", "TestSupport", "Words", "Zip",
        ]),
        .testTarget(name: "BackupsTests", dependencies: ["Backups", "CatalogSync", "OpenMarketAPI", "Sandbox", "ShopState", "Support", "TestSupport"]),
        .testTarget(name: "FuzzChecksTests", dependencies: ["FuzzChecks"]),
        .testTarget(name: "FeedsTests", dependencies: ["Feeds", "Manifest", "TestSupport"]),
        .testTarget(name: "FeedRunsTests", dependencies: [
            "FeedRuns", "Feeds", "CatalogSync", "OpenMarketAPI", "ShopState", "Sandbox", "Support", "TestSupport",
        ]),
        // Runs the built `openmarket` binary as a user would.
        .testTarget(name: "CLITests", dependencies: [
            "openmarket", "TestSupport", "OpenMarketAPI", "Sandbox", "Support", "Manifest", "Zip",
        ]),
    ],
    swiftLanguageModes: [.v6]
)
