// swift-tools-version: 6.1
//
// A package that controls media over Castor's light layer alone: it depends on the CastChannels and
// CastMedia products (and CastCore for the in-memory transport), never on CastTLS, CastDiscovery or
// Castor. InteropTests (`LightLayerPackageTests`) builds it and checks that its build closure holds no
// GnuTLS, SwiftNIO, swift-protobuf, libcurl or Avahi: the layering Package.swift draws.
import Foundation
import PackageDescription

// A path dependency is named after its folder (see Tests/NewUserPackage/Package.swift).
let castorFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

let package = Package(
    name: "LightLayerPackage",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: castorFolder.path),
    ],
    targets: [
        .executableTarget(
            name: "play-in-memory",
            dependencies: ["CastChannels", "CastMedia", "CastCore", "CastJSON"]
                .map { .product(name: $0, package: castorFolder.lastPathComponent) }),
    ]
)
