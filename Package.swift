// swift-tools-version: 6.1
//
// Castor for Linux: a Google Cast (CASTV2) sender suite with an emulated receiver.
// Every library target is a product of its own so a user can depend on one module alone.
//
// The targets are grouped by layer, each depending only on the layers above it in this file:
//   C system libraries (each imported by exactly one Swift target)
//   1 light: values and protocols (CastJSON, CastCore, CastMediaMetadata, CastDiscoveryCore, CastDeviceProfiles)
//   2 the connection (CastChannels)            3 channels (CastMedia, CastQueue, CastMultizone)
//   4 implementations with their C libraries or SwiftNIO (CastTLS, CastDiscovery, CastDownload, CastHTTP,
//     CastKnownHosts, CastDIAL, …), the media plane and the emulated receiver
//   5 the façade (Castor) and what builds on it
// Light interfaces apart from heavy implementations, as NIOCore is apart from NIOPosix.
import PackageDescription

/// Settings every Swift target shares: Swift 6 language mode is the default for tools 6.1.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// The light layer's settings besides: an import is internal unless written `public import` (so a module's
/// public interface names exactly the modules it exposes), and a member is visible only where its module is
/// imported (no member reaches a file through another file's import).
let lightSettings: [SwiftSetting] = strictSettings + [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let nio: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
]

let package = Package(
    name: "Castor",
    platforms: [.macOS(.v15)],
    products: [
        // Layer 1, light: values and protocols, no C library, SwiftNIO or protobuf.
        .library(name: "CastJSON", targets: ["CastJSON"]),
        .library(name: "CastCore", targets: ["CastCore"]),
        .library(name: "CastMediaMetadata", targets: ["CastMediaMetadata"]),
        .library(name: "CastDiscoveryCore", targets: ["CastDiscoveryCore"]),
        .library(name: "CastDeviceProfiles", targets: ["CastDeviceProfiles"]),
        // Layers 2 and 3: the connection and its channels, on the light layer alone.
        .library(name: "CastChannels", targets: ["CastChannels"]),
        .library(name: "CastMedia", targets: ["CastMedia"]),
        .library(name: "CastQueue", targets: ["CastQueue"]),
        .library(name: "CastMultizone", targets: ["CastMultizone"]),
        // Layer 4: implementations, each with its C library or SwiftNIO.
        .library(name: "CastTLS", targets: ["CastTLS"]),
        .library(name: "CastDiscovery", targets: ["CastDiscovery"]),
        .library(name: "CastDownload", targets: ["CastDownload"]),
        .library(name: "CastPodcast", targets: ["CastPodcast"]),
        .library(name: "CastKnownHosts", targets: ["CastKnownHosts"]),
        .library(name: "CastDIAL", targets: ["CastDIAL"]),
        .library(name: "CastIntents", targets: ["CastIntents"]),
        .library(name: "CastMediaServer", targets: ["CastMediaServer"]),
        .library(name: "CastConversion", targets: ["CastConversion"]),
        .library(name: "CastStreaming", targets: ["CastStreaming"]),
        .library(name: "CastMirroring", targets: ["CastMirroring"]),
        .library(name: "CastEmulator", targets: ["CastEmulator"]),
        // Layer 5: the façade and what builds on it.
        .library(name: "Castor", targets: ["Castor"]),
        .library(name: "CastorIntents", targets: ["CastorIntents"]),
        .library(name: "CastMPRIS", targets: ["CastMPRIS"]),
        // For users' tests.
        .library(name: "CastTestSupport", targets: ["CastTestSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // `make docs` (`swift package generate-documentation`); builds nothing into the products.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: C system libraries (each imported by exactly one Swift target)
        .systemLibrary(
            name: "CGnuTLS", path: "Modules/CGnuTLS", pkgConfig: "gnutls",
            providers: [.apt(["libgnutls28-dev"])]),
        // No pkgConfig: avahi-client.pc adds `-D_REENTRANT`, which SwiftPM refuses with a warning on every
        // build. The headers are on the default include path on Debian (/usr/include/avahi-client) and the
        // module map links both libraries, so pkg-config has nothing else to give.
        .systemLibrary(
            name: "CAvahiClient", path: "Modules/CAvahiClient", providers: [.apt(["libavahi-client-dev"])]),
        .systemLibrary(
            name: "CLibXML2", path: "Modules/CLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]),
        // The libcurl FoundationNetworking already links (OpenSSL flavour), called directly for bounded downloads.
        .systemLibrary(
            name: "CCurl", path: "Modules/CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        // Nettle's AES (a dependency of GnuTLS already on every machine that has it) for Cast Streaming's
        // per-frame AES-128-CTR.
        .systemLibrary(
            name: "CNettle", path: "Modules/CNettle", pkgConfig: "nettle", providers: [.apt(["nettle-dev"])]),
        // The field's encoders for Cast Streaming: libvpx (VP8, VP9) and libopus, for CastMirroring only.
        .systemLibrary(
            name: "CVPX", path: "Modules/CVPX", pkgConfig: "vpx", providers: [.apt(["libvpx-dev"])]),
        .systemLibrary(
            name: "COpus", path: "Modules/COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),
        .systemLibrary(
            name: "COpenH264", path: "Modules/COpenH264", pkgConfig: "openh264", providers: [.apt(["libopenh264-dev"])]),
        .systemLibrary(
            name: "CDBus", path: "Modules/CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),

        // MARK: Layer 1, light: values and protocols (no C library, no SwiftNIO, no protobuf)
        // A user package on CastChannels + CastMedia builds only this layer and the next two
        // (Tests/LightLayerPackage checks its build closure).
        .target(name: "CastJSON", path: "Modules/CastJSON", swiftSettings: strictSettings),
        // The message, the CastTransport protocol, the in-memory transport, transport errors, device
        // authentication as a protocol (CastDeviceVerifier) and its values, and the one elapsed-time clock.
        .target(name: "CastCore", dependencies: ["CastJSON"], path: "Modules/CastCore", swiftSettings: lightSettings),
        // Metadata of every Cast type, images, custom data, the 64 KiB rule: values only (downloads are CastDownload).
        .target(name: "CastMediaMetadata", dependencies: ["CastJSON"], path: "Modules/CastMediaMetadata", swiftSettings: lightSettings),
        // What discovery finds and the protocols that find it: devices, TXT records, DeviceBrowser, HTTPFetcher.
        .target(name: "CastDiscoveryCore", path: "Modules/CastDiscoveryCore", swiftSettings: lightSettings),
        // What each model of Cast device decodes, and the vocabulary of media (codecs, streams, containers):
        // shared by the emulated receiver and by senders that plan conversions. No dependencies.
        .target(name: "CastDeviceProfiles", path: "Modules/CastDeviceProfiles", swiftSettings: strictSettings),

        // MARK: Layer 2, the connection (on the light layer alone)
        .target(
            name: "CastChannels",
            dependencies: ["CastCore", "CastJSON", .product(name: "Logging", package: "swift-log")],
            path: "Modules/CastChannels", swiftSettings: lightSettings),

        // MARK: Layer 3, channels: plugins of a connection (on layers 1 and 2 alone)
        .target(
            name: "CastMedia", dependencies: ["CastChannels", "CastCore", "CastMediaMetadata", "CastJSON"],
            path: "Modules/CastMedia", swiftSettings: lightSettings),
        .target(
            name: "CastQueue", dependencies: ["CastMedia", "CastChannels", "CastMediaMetadata", "CastJSON"],
            path: "Modules/CastQueue", swiftSettings: lightSettings),
        .target(
            name: "CastMultizone", dependencies: ["CastChannels", "CastJSON"],
            path: "Plugins/CastMultizone", swiftSettings: lightSettings),

        // MARK: Layer 4, implementations: each brings its C library or SwiftNIO
        // CASTV2 over TLS: the protobuf wire codec, framing, GnuTLS on SwiftNIO (TLSCastTransport,
        // CastTransportServer) and Google's device-authentication checks (CastGenuineDeviceVerifier).
        .target(
            name: "CastTLS",
            dependencies: ["CastCore", "CGnuTLS", "CastJSON", .product(name: "SwiftProtobuf", package: "swift-protobuf")] + nio,
            path: "Modules/CastTLS", exclude: ["Proto"], swiftSettings: strictSettings),
        // mDNS/DNS-SD browsing and publishing over Avahi (no TLS, protobuf, XML or NIO).
        .target(
            name: "CastDiscovery", dependencies: ["CastDiscoveryCore", "CAvahiClient"],
            path: "Modules/CastDiscovery", swiftSettings: strictSettings),
        // Bounded downloads of feeds and images (libcurl) and the image cache.
        .target(name: "CastDownload", dependencies: ["CastCore", "CCurl"], path: "Modules/CastDownload", swiftSettings: strictSettings),
        .target(name: "CastXML", dependencies: ["CLibXML2"], path: "Modules/CastXML", swiftSettings: strictSettings),
        // Podcast RSS feeds (libxml2 through CastXML): apart from CastMediaMetadata so media control needs no XML.
        .target(
            name: "CastPodcast", dependencies: ["CastMediaMetadata", "CastXML"],
            path: "Modules/CastPodcast", swiftSettings: strictSettings),
        // One bounded HTTP/1.1 GET on SwiftNIO (no TLS), shared by the receiver's fetcher, DIAL and known hosts
        // (BoundedHTTPFetcher, their HTTPFetcher).
        .target(
            name: "CastHTTP",
            dependencies: ["CastDiscoveryCore", .product(name: "NIOHTTP1", package: "swift-nio")] + nio,
            path: "Modules/CastHTTP", swiftSettings: strictSettings),
        // Configured hosts probed over TLS + GET_STATUS (the sender stack) and eureka_info (HTTP).
        .target(
            name: "CastKnownHosts", dependencies: ["CastDiscoveryCore", "CastChannels", "CastTLS", "CastJSON", "CastHTTP"],
            path: "Modules/CastKnownHosts", swiftSettings: strictSettings),
        // SSDP M-SEARCH and DIAL device descriptions (XML through CastXML, HTTP through CastHTTP).
        .target(
            name: "CastDIAL", dependencies: ["CastDiscoveryCore", "CastXML", "CastHTTP"] + nio,
            path: "Modules/CastDIAL", swiftSettings: strictSettings),
        .target(
            name: "CastIntents", dependencies: [.product(name: "GRDB", package: "GRDB.swift")],
            path: "Modules/CastIntents", swiftSettings: strictSettings),

        // MARK: Layer 4, the media plane
        // Child processes that cannot outlive this one (fork on a thread that never ends, a process group of
        // their own, PR_SET_PDEATHSIG): how every module drives ffmpeg, ffprobe, espeak-ng and yt-dlp.
        // Nothing in Foundation or swift-subprocess sets the parent-death signal.
        .target(name: "CCastSpawn", path: "Modules/CCastSpawn"),
        .target(name: "CastProcess", dependencies: ["CCastSpawn"], path: "Modules/CastProcess", swiftSettings: strictSettings),
        .target(
            name: "CastMediaServer",
            dependencies: nio + [.product(name: "NIOHTTP1", package: "swift-nio"),
                                 .product(name: "Logging", package: "swift-log")],
            path: "Modules/CastMediaServer", swiftSettings: strictSettings),
        // Probe (ffprobe), plan per device profile, and on-demand HLS conversion (ffmpeg) served through
        // CastMediaServer: drives the field's tools as child processes, links no codec.
        .target(
            name: "CastConversion",
            dependencies: ["CastDeviceProfiles", "CastMediaServer", "CastJSON", "CastProcess",
                           .product(name: "Logging", package: "swift-log")],
            path: "Modules/CastConversion", swiftSettings: strictSettings),
        // Cast Streaming (screen mirroring): the RTP/RTCP wire format, per-frame AES-CTR, OFFER/ANSWER,
        // and the stream receiver and sender state machines. No sockets: the emulated receiver and the
        // mirroring sender run them.
        .target(
            name: "CastStreaming", dependencies: ["CNettle", "CastJSON", "CastCore"],
            path: "Modules/CastStreaming", swiftSettings: strictSettings),
        // Mirroring a screen, a file or the desktop's sound to a device over Cast Streaming: sources,
        // encoders (libvpx, libopus, OpenH264), and the session that launches the mirroring app and streams.
        .target(
            name: "CastMirroring",
            dependencies: ["CastStreaming", "CastChannels", "CastJSON", "CastProcess", "CVPX", "COpus", "COpenH264",
                           .product(name: "Logging", package: "swift-log")] + nio,
            path: "Modules/CastMirroring", swiftSettings: strictSettings),

        // MARK: Layer 4, the emulated receiver (a strict Cast device on the server side of CastTLS)
        .target(
            name: "CastEmulator",
            dependencies: ["CastCore", "CastTLS", "CastJSON", "CastHTTP", "CastStreaming", "CastDeviceProfiles",
                           .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "NIOHTTP1", package: "swift-nio")] + nio,
            path: "Modules/CastEmulator", swiftSettings: strictSettings),

        // MARK: Layer 5, the façade and what builds on it
        // Cast and CastPlayer on the layers below; finds devices through any DeviceBrowser it is given, so it
        // links Avahi only when its user builds an AvahiDeviceBrowser.
        .target(
            name: "Castor",
            dependencies: ["CastChannels", "CastMedia", "CastQueue", "CastMediaMetadata", "CastDiscoveryCore", "CastCore", "CastTLS",
                           "CastJSON", "CastMultizone", .product(name: "Logging", package: "swift-log")],
            path: "Modules/Castor", swiftSettings: strictSettings),
        // Plays resolved media-intent requests on a CastPlayer (a target of its own so Castor does not pull GRDB in).
        .target(
            name: "CastorIntents", dependencies: ["Castor", "CastIntents", "CastQueue"],
            path: "Modules/CastorIntents", swiftSettings: strictSettings),
        // Publishes a Cast session as an MPRIS 2 player on the D-Bus session bus (desktop media controls, playerctl).
        .target(
            name: "CastMPRIS", dependencies: ["CDBus", "Castor", "CastDiscoveryCore", "CastMedia", "CastQueue", "CastMediaMetadata"],
            path: "Modules/CastMPRIS", swiftSettings: strictSettings),

        // MARK: Test support for users' tests (ManualClock, ScriptedCastPeer on the in-memory transport, peers)
        .target(
            name: "CastTestSupport", dependencies: ["CastCore", "CastJSON", "CastProcess"],
            path: "Modules/CastTestSupport", swiftSettings: strictSettings),

        // MARK: Examples
        // `--version` of the programs: the version and commit, generated from git before each build (scripts/version.sh).
        .plugin(name: "CastorVersionPlugin", capability: .buildTool(), path: "Examples/CastorVersionPlugin"),
        .target(
            name: "CastorVersion", path: "Examples/CastorVersion", swiftSettings: strictSettings,
            plugins: ["CastorVersionPlugin"]),
        // castctl's settings, saved states and announcements (a library so CastctlKitTests can test them in-process).
        .target(
            name: "CastctlKit",
            dependencies: ["Castor", "CastDiscoveryCore", "CastMedia", "CastChannels", "CastMediaMetadata", "CastProcess",
                           "CastDeviceProfiles", "CastJSON", "CastConversion"],
            path: "Examples/CastctlKit", swiftSettings: strictSettings),
        .target(
            name: "ChatChannel", dependencies: ["CastChannels", "CastJSON", "CastEmulator"],
            path: "Examples/ChatChannel", swiftSettings: strictSettings),
        .executableTarget(
            name: "castctl",
            dependencies: ["CastDiscoveryCore", 
                "CastCore", "CastTLS", "CastChannels", "CastJSON", "CastMediaMetadata", "CastMedia", "CastQueue",
                "CastEmulator", "ChatChannel", "CastMirroring", "CastStreaming", "CastMediaServer", "CastDiscovery", "CastKnownHosts", "CastDIAL", "Castor",
                "CastMPRIS", "CastctlKit", "CastorVersion", "CastConversion", "CastDeviceProfiles", "CastHTTP",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/castctl", swiftSettings: strictSettings),
        .executableTarget(
            name: "cast-receiver",
            dependencies: ["CastEmulator", "CastDiscovery", "CastJSON", "CastTLS", "CastStreaming", "CastDeviceProfiles", "CastorVersion",
                           .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "Logging", package: "swift-log")],
            path: "Examples/cast-receiver", exclude: ["pychromecast_smoke.py"], swiftSettings: strictSettings),

        // The Audio Cast sample: AudioCastKit holds the library and commands (shared by the program and its tests).
        .target(
            name: "AudioCastKit",
            dependencies: ["CastMedia", "CastDownload", "CastorIntents", "Castor", "CastIntents", "CastMediaMetadata", "CastPodcast", "CastEmulator", "CastDiscovery",
                           "CastJSON",
                           .product(name: "Logging", package: "swift-log")],
            path: "Examples/AudioCast/AudioCastKit", swiftSettings: strictSettings),
        .executableTarget(
            name: "audiocast",
            dependencies: ["AudioCastKit", "CastIntents", "CastJSON", "CastorVersion",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/AudioCast/audiocast", swiftSettings: strictSettings),

        // MARK: Benchmarks (`make bench`, release mode; not part of `make test`)
        .executableTarget(
            name: "castor-bench",
            dependencies: ["CastCore", "CastTLS", "CastChannels", "CastJSON", "CastMediaMetadata", "CastMedia", "CastEmulator"] + nio
                + [.product(name: "NIOEmbedded", package: "swift-nio")],
            path: "Tests/Benchmarks/CastorBench", swiftSettings: strictSettings),

        // MARK: Tests (one target per module)
        .testTarget(
            // Runs the built castctl and cast-receiver programs (found next to the test bundle; `swift build --build-tests`
            // builds them). Not declared as dependencies: a test target that depends on an executable makes SwiftPM
            // build it as a host tool, which drags swift-protobuf's C++ protoc into the build.
            name: "InteropTests", dependencies: ["CastJSON", "CastTestSupport", "CastEmulator", "CastTLS", "CastChannels", "ChatChannel"],
            path: "Tests/InteropTests",
            exclude: ["pychromecast_driver.py", "sender_session_driver.py", "isolated_sender_driver.py", "mpris_other_sender.py",
                      "cast_sender_driver.py", "udp_lossy_relay.py", "announce_peer.py", "cast_convert_driver.py", "page_video_driver.py",
                      "driver_checks.py"]),
        .testTarget(name: "CastJSONTests", dependencies: ["CastTestSupport", "CastJSON"], path: "Tests/CastJSONTests"),
        .testTarget(name: "CastProcessTests", dependencies: ["CastProcess"], path: "Tests/CastProcessTests"),
        .testTarget(name: "CastDeviceProfilesTests", dependencies: ["CastDeviceProfiles"], path: "Tests/CastDeviceProfilesTests"),
        .testTarget(
            name: "CastMirroringTests", dependencies: ["CastMirroring", "CastStreaming", "CastJSON", "CastTestSupport"],
            path: "Tests/CastMirroringTests"),
        .testTarget(
            name: "CastStreamingTests", dependencies: ["CastStreaming", "CastTestSupport"],
            path: "Tests/CastStreamingTests", exclude: ["OpenScreen"]),
        .testTarget(
            name: "CastTLSTests",
            dependencies: ["CastTestSupport", "CastTLS", "CastJSON", .product(name: "SwiftProtobuf", package: "swift-protobuf"), .product(name: "NIOEmbedded", package: "swift-nio")] + nio,
            // OpenScreen/ holds Google's device-authentication test data, read from the source tree by the tests.
            path: "Tests/CastTLSTests", exclude: ["OpenScreen"]),
        .testTarget(
            name: "CastChannelsTests", dependencies: ["CastChannels", "CastCore", "CastTLS", "CastJSON", "CastTestSupport"] + nio,
            path: "Tests/CastChannelsTests"),
        .testTarget(name: "CastXMLTests", dependencies: ["CastTestSupport", "CastXML"], path: "Tests/CastXMLTests"),
        .testTarget(name: "CastDownloadTests", dependencies: ["CastDownload", "CastTestSupport"], path: "Tests/CastDownloadTests"),
        .testTarget(name: "CastMediaMetadataTests", dependencies: ["CastMediaMetadata", "CastJSON"], path: "Tests/CastMediaMetadataTests"),
        .testTarget(name: "CastPodcastTests", dependencies: ["CastPodcast", "CastMediaMetadata", "CastXML"], path: "Tests/CastPodcastTests"),
        .testTarget(name: "CastCoreTests", dependencies: ["CastCore", "CastJSON", "CastTestSupport"], path: "Tests/CastCoreTests"),
        .testTarget(name: "CastTestSupportTests", dependencies: ["CastTestSupport"], path: "Tests/CastTestSupportTests"),
        // A scripted media receiver and harness shared by the media and queue tests.
        .target(
            name: "CastMediaTestSupport",
            dependencies: ["CastMedia", "CastChannels", "CastCore", "CastJSON", "CastTestSupport"],
            path: "Tests/CastMediaTestSupport"),
        .testTarget(name: "CastMediaTests", dependencies: ["CastMedia", "CastChannels", "CastCore", "CastTLS", "CastMediaMetadata", "CastJSON", "CastTestSupport", "CastMediaTestSupport"], path: "Tests/CastMediaTests"),
        .testTarget(name: "CastQueueTests", dependencies: ["CastQueue", "CastMedia", "CastChannels", "CastCore", "CastMediaMetadata", "CastJSON", "CastTestSupport", "CastMediaTestSupport"], path: "Tests/CastQueueTests"),
        .testTarget(
            name: "CastDiscoveryTests", dependencies: ["CastDiscoveryCore", "CastTestSupport"], path: "Tests/CastDiscoveryTests"),
        // A device value, a scripted browser and an error-code check shared by the discovery test targets.
        .target(name: "CastDiscoveryTestSupport", dependencies: ["CastDiscoveryCore"], path: "Tests/CastDiscoveryTestSupport"),
        .testTarget(
            name: "CastDiscoveryCoreTests", dependencies: ["CastDiscoveryCore", "CastDIAL", "CastDiscoveryTestSupport"],
            path: "Tests/CastDiscoveryCoreTests"),
        .testTarget(
            name: "CastDIALTests", dependencies: ["CastDiscoveryTestSupport", "CastDIAL", "CastDiscovery", "CastDiscoveryCore", "CastTestSupport"],
            path: "Tests/CastDIALTests"),
        .testTarget(
            name: "CastHTTPTests", dependencies: ["CastDiscoveryTestSupport", "CastHTTP", "CastDIAL", "CastDiscoveryCore", "CastTestSupport"], path: "Tests/CastHTTPTests"),
        .testTarget(
            name: "CastKnownHostsTests", dependencies: ["CastDiscoveryTestSupport", "CastKnownHosts", "CastDiscoveryCore", "CastTLS", "CastJSON", "CastTestSupport"],
            path: "Tests/CastKnownHostsTests"),
        // A sender on the public Cast façade alone, driven through the fault lab's cases (FaultLabFacadeTests).
        .executableTarget(
            name: "FaultLabDriver", dependencies: ["Castor", "CastDiscovery"], path: "Tests/FaultLabDriver",
            swiftSettings: strictSettings),
        // Runs CastDiscovery inside lab network namespaces for CastDiscoveryTests' lab tests.
        .executableTarget(
            name: "CastDiscoveryLabTool", dependencies: ["CastDiscovery", "CastDIAL"], path: "Tests/CastDiscoveryLabTool",
            swiftSettings: strictSettings),
        .testTarget(
            name: "CastEmulatorTests",
            dependencies: ["CastEmulator", "CastChannels", "CastCore", "CastTLS", "CastStreaming", .product(name: "Logging", package: "swift-log"), "CastJSON", "CastTestSupport",
                           "CastMedia", "CastQueue", "CastHTTP", "CastDeviceProfiles",
                           .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                           .product(name: "NIOEmbedded", package: "swift-nio")] + nio,
            path: "Tests/CastEmulatorTests"),
        .testTarget(
            name: "CastIntentsTests",
            dependencies: ["CastTestSupport", "CastIntents", "castintents-durability-child", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Tests/CastIntentsTests"),
        // Test helper: donates interactions until killed, for CastIntentsTests' durability test.
        .executableTarget(
            name: "castintents-durability-child", dependencies: ["CastIntents"],
            path: "Tests/CastIntentsDurabilityChild", swiftSettings: strictSettings),
        .testTarget(
            name: "CastorTests",
            dependencies: ["Castor", "CastEmulator", "CastDiscoveryCore", "CastChannels", "CastMedia", "CastQueue",
                           "CastMediaMetadata", "CastCore", "CastTLS", "CastJSON", "CastTestSupport"],
            path: "Tests/CastorTests"),
        .testTarget(
            name: "CastorIntentsTests",
            dependencies: ["CastorIntents", "Castor", "CastIntents", "CastEmulator", "CastDiscoveryCore", "CastQueue", "CastMediaMetadata", "CastJSON", "CastTestSupport"],
            path: "Tests/CastorIntentsTests"),
        .testTarget(
            // Also runs the built `audiocast` program (found next to the test bundle, like InteropTests).
            name: "AudioCastKitTests",
            dependencies: ["AudioCastKit", "CastIntents", "CastJSON", "CastTestSupport"],
            path: "Tests/AudioCastKitTests"),
        .testTarget(
            name: "CastMultizoneTests",
            dependencies: ["CastMultizone", "CastChannels", "CastJSON", "CastCore", "CastEmulator", "CastTestSupport"],
            path: "Tests/CastMultizoneTests"),
        .testTarget(
            name: "CastMediaServerTests",
            dependencies: ["CastMediaServer", "CastTestSupport", .product(name: "NIOHTTP1", package: "swift-nio")],
            path: "Tests/CastMediaServerTests"),
        .testTarget(
            name: "CastctlKitTests",
            dependencies: ["CastctlKit", "Castor", "CastEmulator", "CastDiscoveryCore", "CastChannels", "CastMedia", "CastMediaMetadata", "CastTLS", "CastJSON", "CastTestSupport", "CastDeviceProfiles", "CastConversion"],
            path: "Tests/CastctlKitTests", exclude: ["YTDLP"]),
        .testTarget(
            name: "CastConversionTests",
            dependencies: ["CastConversion", "CastDeviceProfiles", "CastMediaServer", "CastTestSupport"],
            path: "Tests/CastConversionTests"),
        .testTarget(
            name: "CastMPRISTests",
            dependencies: ["CastMPRIS", "Castor", "CastMedia", "CastQueue", "CastMediaMetadata", "CastEmulator", "CastDiscoveryCore", "CastCore",
                           "CastTestSupport"],
            path: "Tests/CastMPRISTests"),
    ]
)
