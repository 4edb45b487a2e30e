// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "NioBench",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/vapor/postgres-nio.git", exact: "1.33.2")
    ],
    targets: [
        .executableTarget(
            name: "NioBench",
            dependencies: [.product(name: "PostgresNIO", package: "postgres-nio")]
        )
    ]
)
