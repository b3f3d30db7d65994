// swift-tools-version: 6.1
//
// A new package built on Castor for Linux, as a new user writes one: it depends on the package by
// path and uses only its products. `make new-user-package` builds it with every warning an error;
// InteropTests runs its programs and checks that their sources are, verbatim, the README's quick
// start and the snippets of the article "Your first Cast program".
import Foundation
import PackageDescription

// A path dependency is named after its folder, which depends on where this clone lives (`castor-linux`,
// `main`, a CI work folder...): read it here. A user's own manifest simply writes the name.
let castorFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
let castor = castorFolder.lastPathComponent

let package = Package(
    name: "NewUserPackage",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: castorFolder.path),
    ],
    targets: [
        // README.md, "Quick start".
        .executableTarget(
            name: "quickstart",
            dependencies: [
                .product(name: "CastChannels", package: castor),
                .product(name: "CastMedia", package: castor),
                .product(name: "CastTLS", package: castor),
            ]),
        // Castor's article "Your first Cast program".
        .executableTarget(
            name: "first-cast-program",
            dependencies: ["Castor", "CastEmulator", "CastDiscovery", "CastKnownHosts", "CastChannels", "CastTLS",
                           "CastMediaMetadata", "CastJSON"]
                .map { .product(name: $0, package: castor) }),
    ]
)
