// swift-tools-version: 6.1
//
// libFuzzer targets for Castor's parsers. Not part of the main package: each target has no
// `main` (libFuzzer provides it), so it only links when built with `-sanitize=fuzzer`.
// Build and run through `scripts/fuzz.sh` (`make fuzz`, `make fuzz-short`).
import PackageDescription

let package = Package(
    name: "CastorFuzz",
    dependencies: [.package(name: "Castor", path: "../..")],
    targets: [
        // Seeds for each target live in Seeds/<target>/ (read, never written, by scripts/fuzz.sh).
        .executableTarget(
            name: "FuzzCastFrame",
            dependencies: [.product(name: "CastTransport", package: "Castor")]),
        .executableTarget(
            name: "FuzzMediaStatus",
            dependencies: [.product(name: "CastMedia", package: "Castor")]),
        // MEDIA_STATUS read from bytes (the sender's path) against the tree decoder: traps on any disagreement.
        .executableTarget(
            name: "FuzzMediaStatusBytes",
            dependencies: [.product(name: "CastMedia", package: "Castor")]),
        .executableTarget(
            name: "FuzzPodcastFeed",
            dependencies: [.product(name: "CastMetadata", package: "Castor")]),
        .executableTarget(
            name: "FuzzTXTRecord",
            dependencies: [.product(name: "CastDiscovery", package: "Castor")]),
        .executableTarget(
            name: "FuzzDeviceDescription",
            dependencies: [.product(name: "CastDiscovery", package: "Castor")]),
        .executableTarget(
            name: "FuzzAuthResponse",
            dependencies: [.product(name: "CastTransport", package: "Castor")]),
        .executableTarget(
            name: "FuzzCertificatePath",
            dependencies: [.product(name: "CastTransport", package: "Castor")]),
        // The emulated receiver's parsers: media duration probes and the eureka_info request target.
        .executableTarget(name: "FuzzMovieDuration", dependencies: [.product(name: "CastReceiver", package: "Castor")]),
        .executableTarget(name: "FuzzMatroskaDuration", dependencies: [.product(name: "CastReceiver", package: "Castor")]),
        .executableTarget(name: "FuzzMPEGAudioDuration", dependencies: [.product(name: "CastReceiver", package: "Castor")]),
        .executableTarget(name: "FuzzADTSDuration", dependencies: [.product(name: "CastReceiver", package: "Castor")]),
        .executableTarget(name: "FuzzFLACDuration", dependencies: [.product(name: "CastReceiver", package: "Castor")]),
        .executableTarget(name: "FuzzOggDuration", dependencies: [.product(name: "CastReceiver", package: "Castor")]),
        .executableTarget(name: "FuzzWAVDuration", dependencies: [.product(name: "CastReceiver", package: "Castor")]),
        .executableTarget(name: "FuzzHLSPlaylist", dependencies: [.product(name: "CastReceiver", package: "Castor")]),
        .executableTarget(name: "FuzzDASHManifest", dependencies: [.product(name: "CastReceiver", package: "Castor")]),
        .executableTarget(name: "FuzzEurekaInfo", dependencies: [.product(name: "CastReceiver", package: "Castor")]),
    ]
)
