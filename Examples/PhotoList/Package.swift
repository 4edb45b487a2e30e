// swift-tools-version: 6.0
// The photo list's data layer, as the well-known SwiftUI post writes it, pointed at ListServer's Lorem Picsum
// routes instead of picsum.photos: run it with the server's address.
import PackageDescription

let package = Package(
    name: "PhotoList",
    platforms: [.macOS(.v13)],
    targets: [
        .executableTarget(name: "PhotoList", swiftSettings: [.swiftLanguageMode(.v6)])
    ]
)
