// swift-tools-version: 6.2
import PackageDescription

/// ListServer: a paged-list JSON backend on libevent's evhttp and Swift concurrency.
///
/// Targets (the layout is fixed, see DEVELOPERS.md):
/// - `CEvent`: the system libevent 2.1 (Debian `libevent-dev`), with a shim header.
/// - `ListDomain`: pure Swift, no dependencies: item generation, the slow store, the detail cache.
/// - `ListServer`: the executable; only `Sources/ListServer/LibEvent/` touches C.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "ListServer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "ListServer", targets: ["ListServer"]),
        .library(name: "ListDomain", targets: ["ListDomain"]),
    ],
    dependencies: [
        .package(
            url: "https://github.com/apple/swift-configuration",
            from: "1.0.0",
            traits: [.defaults, "CommandLineArguments"]
        ),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.12.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CEvent",
            pkgConfig: "libevent_core",
            providers: [.apt(["libevent-dev"])]
        ),
        .target(name: "ListDomain", swiftSettings: strict),
        .executableTarget(
            name: "ListServer",
            dependencies: [
                "CEvent",
                "ListDomain",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // Generated/OpenAPIDocument.swift is committed, written by the script beside it (why not a build-tool
            // plugin: measured there).
            exclude: ["Generated/openapi-embed.py"],
            swiftSettings: strict
        ),
        // Micro-benchmarks of the hot paths (Benchmarks/Micro): a plain release-mode harness rather than
        // ordo-one/benchmark, which would add jemalloc, a build plugin and several packages to every build for
        // what a clock and a loop measure well enough here (ns/op of tight loops, medians of several rounds).
        .executableTarget(
            name: "ListBenchmarks",
            dependencies: ["ListDomain"],
            path: "Benchmarks/Micro",
            swiftSettings: strict
        ),
        .testTarget(name: "ListDomainTests", dependencies: ["ListDomain"], swiftSettings: strict),
        .testTarget(
            name: "ListServerTests",
            dependencies: ["ListServer", "ListDomain", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
    ]
)
