// swift-tools-version:6.0
// The fuzz targets as one libFuzzer binary: built by `scripts/fuzz` with
// `--sanitize=fuzzer --sanitize=address` in a build folder of its own (Fuzz/.build, out of git).
// The checks themselves live in the main package's FuzzChecks, so the test suite runs every
// kept input through them without a fuzzer.
import PackageDescription

let package = Package(
    name: "openmarket-fuzz",
    dependencies: [.package(name: "openmarket", path: "..")],
    targets: [
        .executableTarget(
            name: "openmarket-fuzz",
            dependencies: [.product(name: "FuzzChecks", package: "openmarket")]
        ),
    ]
)
