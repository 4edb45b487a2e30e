// swift-tools-version: 6.2
import PackageDescription

/// ListServer: a paged-list JSON backend on libevent's evhttp and Swift concurrency.
///
/// Targets:
/// - `CEvent`: the system libevent 2.1 (Debian `libevent-dev`), with a shim header. Each C library has such a
///   system-library target, and one folder of `ListServer` (its room, `LibEvent/` for this one) alone imports it.
/// - `CSQLite`: the system SQLite 3 (Debian `libsqlite3-dev`), with a shim header; its room is `SQLite/`.
/// - `CPostgres`: libpq, PostgreSQL's C client (Debian `libpq-dev`); its room is `Postgres/`.
/// - `CDeflate`, `CZstd`, `CZlib`: libdeflate, Zstandard and zlib, the compressors of response bodies and event
///   streams; their room is `Compression/`.
/// - `CTurboJPEG`, `CSpng`, `CWebP`: the image codecs; their room is `Codecs/`. `CXXHash`: xxHash, whose room is
///   `Digest/`. `CJemalloc`: jemalloc, linked as the process's malloc; its room, `Allocator/`, reads its statistics.
/// - `CBuiltins`: no library, the C compiler's builtins Swift cannot call (a prefetch); its room is `Memory/`.
/// - `ListDomain`: pure Swift, no dependencies: item generation, the slow store, the detail cache.
/// - `ListServer`: the server as a library: HTTP on evhttp, the routes, configuration, observability.
/// - `ListServerMain`: the `ListServer` executable, a `Main.swift` over the library.
/// - `ListServerFuzz` (`Fuzz/Harness`): the libFuzzer harness over the library (`scripts/fuzz.sh`).
/// - `ListBenchmarks` (`Benchmarks/Micro`): micro-benchmarks of the hot paths.
///
/// Sibling targets reach the library's internals through `package` access, never `@testable`: that works in
/// release builds, and the `package` declarations say what the fuzzer and the benchmarks depend on.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "ListServer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "ListServer", targets: ["ListServerMain"]),
        .library(name: "ListDomain", targets: ["ListDomain"]),
    ],
    dependencies: [
        // No traits: the default JSON trait imports the whole of Foundation (JSONSerialization) and with it ICU's
        // data, most of the binary and the image; ConfigurationFile parses the file itself (issue 16).
        .package(
            url: "https://github.com/apple/swift-configuration",
            from: "1.0.0",
            traits: []
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
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Headers only: libpq is loaded with dlopen when a PostgreSQL store is opened (Postgres/LibPQ.swift), so no
        // pkg-config (it would add -lpq) and no `link` in the module map.
        .systemLibrary(
            name: "CPostgres",
            providers: [.apt(["libpq-dev"])]
        ),
        // The image codecs, each a system library used only by Sources/ListServer/Codecs/.
        .systemLibrary(
            name: "CTurboJPEG",
            pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]
        ),
        .systemLibrary(
            name: "CSpng",
            pkgConfig: "spng",
            providers: [.apt(["libspng-dev"])]
        ),
        .systemLibrary(
            name: "CWebP",
            pkgConfig: "libwebp",
            providers: [.apt(["libwebp-dev"])]
        ),
        // jemalloc, the process's malloc (linked, it replaces glibc's); its room is Sources/ListServer/Allocator/.
        .systemLibrary(
            name: "CJemalloc",
            pkgConfig: "jemalloc",
            providers: [.apt(["libjemalloc-dev"])]
        ),
        // The C compiler's builtins Swift cannot call (a prefetch), header only; its room is
        // Sources/ListServer/Memory/.
        .systemLibrary(name: "CBuiltins"),
        // The compressors of response bodies and event streams, used only by Sources/ListServer/Compression/.
        .systemLibrary(
            name: "CDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        .systemLibrary(
            name: "CZstd",
            pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // xxHash's XXH3, used only by Sources/ListServer/Digest/.
        .systemLibrary(
            name: "CXXHash",
            pkgConfig: "libxxhash",
            providers: [.apt(["libxxhash-dev"])]
        ),
        // Nettle's SHA-1 and Base64 (the WebSocket handshake's accept value), used only by Sources/ListServer/Digest/.
        .systemLibrary(
            name: "CNettle",
            pkgConfig: "nettle",
            providers: [.apt(["nettle-dev"])]
        ),
        // wslay, the WebSocket framing of the change feed, used only by Sources/ListServer/WebSocket/ (no pkg-config
        // file: the module map links it).
        .systemLibrary(
            name: "CWslay",
            providers: [.apt(["libwslay-dev"])]
        ),
        .target(name: "ListDomain", swiftSettings: strict),
        .target(
            name: "ListServer",
            dependencies: [
                "CBuiltins",
                "CDeflate",
                "CEvent",
                "CJemalloc",
                "CNettle",
                "CPostgres",
                "CSQLite",
                "CSpng",
                "CTurboJPEG",
                "CWebP",
                "CWslay",
                "CXXHash",
                "CZlib",
                "CZstd",
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
        .executableTarget(name: "ListServerMain", dependencies: ["ListServer"], swiftSettings: strict),
        // The fuzzer (Fuzz/Harness): a plain build replays inputs given as files; scripts/fuzz.sh links it with
        // libFuzzer. The tests share its head-scanner properties.
        .executableTarget(
            name: "ListServerFuzz",
            dependencies: ["ListServer", "ListDomain"],
            path: "Fuzz/Harness",
            swiftSettings: strict
        ),
        // Micro-benchmarks of the hot paths (Benchmarks/Micro): a plain release-mode harness rather than
        // ordo-one/benchmark, which would add jemalloc, a build plugin and several packages to every build for
        // what a clock and a loop measure well enough here (ns/op of tight loops, medians of several rounds).
        .executableTarget(
            name: "ListBenchmarks",
            dependencies: ["ListDomain", "ListServer"],
            path: "Benchmarks/Micro",
            swiftSettings: strict
        ),
        .testTarget(name: "ListDomainTests", dependencies: ["ListDomain"], swiftSettings: strict),
        .testTarget(
            name: "ListServerTests",
            dependencies: [
                "ListServer", "ListDomain", "ListServerFuzz", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
    ]
)
