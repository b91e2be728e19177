// swift-tools-version:6.1
// The sandbox over HTTPS (HTTP/2 by ALPN) as a program of its own, apart from the tool (as the
// benchmarks and the fuzz targets are): swift-nio-ssl's BoringSSL was a quarter of a clean build's
// CPU, built by every `swift build` and `swift test` for this one program. Run it with
// `swift run --package-path SandboxTLS openmarket-sandbox-tls --tls-cert FILE --tls-key FILE`.
// The tests serve HTTPS with nginx in front of the plain sandbox (Tests/TestSupport/TLSFront.swift),
// as a real server behind a TLS front.
import PackageDescription

let package = Package(
    name: "openmarket-sandbox-tls",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "openmarket-sandbox-tls", targets: ["openmarket-sandbox-tls"]),
    ],
    dependencies: [
        .package(name: "openmarket", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.2"),
    ],
    targets: [
        .target(
            name: "SandboxTLS",
            dependencies: [
                .product(name: "Sandbox", package: "openmarket"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .executableTarget(name: "openmarket-sandbox-tls", dependencies: [.product(name: "Sandbox", package: "openmarket"), "SandboxTLS"]),
    ]
)
