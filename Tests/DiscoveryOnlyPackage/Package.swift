// swift-tools-version: 6.1
//
// A package that only finds Cast devices over mDNS/DNS-SD: it depends on the `CastDiscovery` product
// alone. InteropTests (`DiscoveryOnlyPackageTests`) builds it and checks that its build closure holds
// no TLS (GnuTLS, NIOSSL), protobuf or XML code: the module graph is what the README's table promises.
import Foundation
import PackageDescription

// A path dependency is named after its folder (see Tests/NewUserPackage/Package.swift).
let castorFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

let package = Package(
    name: "DiscoveryOnlyPackage",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: castorFolder.path),
    ],
    targets: [
        .executableTarget(
            name: "find-cast-devices",
            dependencies: [.product(name: "CastDiscovery", package: castorFolder.lastPathComponent)]),
    ]
)
