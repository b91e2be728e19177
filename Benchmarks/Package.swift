// swift-tools-version:6.1
// The benchmarks, apart from the tool (as swift-nio keeps them): package-benchmark
// suites run with `swift package --package-path Benchmarks benchmark`, and the two
// drivers the shell benchmarks beside them call (client-throughput.sh and the
// stage timer). The shell scripts compare openmarket with its peers (curl, ImageMagick,
// jpegoptim, Python) in one run and write Benchmarks/results/.
import PackageDescription

let package = Package(
    name: "openmarket-benchmarks",
    dependencies: [
        .package(name: "openmarket", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
    ],
    targets: [
        // Manifest validation and photo preparation, measured by package-benchmark.
        .executableTarget(
            name: "Pipeline",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Manifest", package: "openmarket"),
                .product(name: "ImagePrep", package: "openmarket"),
            ],
            path: "Benchmarks/Pipeline",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Requests per second of one client with N workers (client-throughput.sh).
        .executableTarget(
            name: "openmarket-bench-client",
            dependencies: [.product(name: "OpenMarketAPI", package: "openmarket")],
            path: "ClientBench"
        ),
        // Where the time of validation goes, stage by stage, on one file.
        .executableTarget(
            name: "openmarket-bench-manifest",
            dependencies: [.product(name: "Manifest", package: "openmarket"), .product(name: "CSV", package: "CSV.swift")],
            path: "ManifestBench"
        ),
    ]
)
