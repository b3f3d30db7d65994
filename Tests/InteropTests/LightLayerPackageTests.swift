import CastTestSupport
import Foundation
import Testing

/// `Tests/LightLayerPackage`: a program that controls media with the CastChannels and CastMedia products
/// alone (and CastCore's in-memory transport), the way a package with a transport of its own does.
/// `make light-layer-package` builds it (`make test` does, before the tests); these tests check what went
/// into it: the modules whose objects were linked (from the build's link file list), the Swift modules
/// built for it at all (from its build folder), the shared libraries it needs (from `ldd`, a tool we
/// did not write), and that it runs.
@Suite(.serialized) struct LightLayerPackageTests {
    static let packageRoot = TestPaths.packageRoot.appendingPathComponent("Tests/LightLayerPackage")
    static let buildFolder = packageRoot.appendingPathComponent(".build/debug")
    static let program = buildFolder.appendingPathComponent("play-in-memory").path
    static let linkFileList = buildFolder.appendingPathComponent("play-in-memory.product/Objects.LinkFileList")

    static var isBuilt: Bool { FileManager.default.isExecutableFile(atPath: program) }
    static var runsInCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Modules that would mean GnuTLS, SwiftNIO, swift-protobuf, libcurl or Avahi in the build.
    static let forbiddenModules: Set<String> = [
        "CastTLS", "CGnuTLS", "SwiftProtobuf", "NIOCore", "NIOPosix", "NIOHTTP1", "NIOConcurrencyHelpers",
        "CNIOLinux", "CNIOPosix", "CCurl", "CastDownload", "CAvahiClient", "CastDiscovery", "CastDiscoveryCore", "CastHTTP",
        "CastEmulator", "Castor", "CastXML", "CLibXML2",
    ]

    /// Every module the program's closure may hold: the light layer and swift-log.
    static let allowedModules: Set<String> = [
        "play_in_memory", "CastChannels", "CastMedia", "CastMediaMetadata", "CastCore", "CastJSON", "Logging",
    ]

    /// The modules whose object files were linked into the program.
    static func linkedModules() throws -> Set<String> {
        let list = try String(contentsOf: linkFileList, encoding: .utf8)
        var modules: Set<String> = []
        for line in list.split(separator: "\n") {
            // …/debug/<Module>.build/<file>.o
            let parts = line.split(separator: "/")
            if let build = parts.last(where: { $0.hasSuffix(".build") }) { modules.insert(String(build.dropLast(".build".count))) }
        }
        return modules
    }

    /// The modules compiled for the package at all, linked or not: the Swift modules written to
    /// `.build/debug/Modules`, and every `<Module>.build` folder holding an object file (SwiftPM makes a
    /// folder for every module of the graph, compiled or not; only compiled ones hold objects).
    static func builtModules() throws -> Set<String> {
        let files = FileManager.default
        var modules = Set(try files.contentsOfDirectory(atPath: buildFolder.appendingPathComponent("Modules").path)
            .filter { $0.hasSuffix(".swiftmodule") }.map { String($0.dropLast(".swiftmodule".count)) })
        for entry in try files.contentsOfDirectory(atPath: buildFolder.path) where entry.hasSuffix(".build") {
            let contents = (try? files.contentsOfDirectory(atPath: buildFolder.appendingPathComponent(entry).path)) ?? []
            if contents.contains(where: { $0.hasSuffix(".o") }) { modules.insert(String(entry.dropLast(".build".count))) }
        }
        return modules
    }

    @Test(.enabled(if: isBuilt || runsInCI, "run `make light-layer-package` first (make test does)"))
    func linksOnlyTheLightLayer() throws {
        let modules = try Self.linkedModules()
        #expect(modules.isSuperset(of: ["CastChannels", "CastMedia", "CastCore"]), "linked: \(modules.sorted())")
        #expect(modules.isDisjoint(with: Self.forbiddenModules), "linked: \(modules.sorted())")
        #expect(modules.isSubset(of: Self.allowedModules), "linked: \(modules.sorted())")
    }

    @Test(.enabled(if: isBuilt || runsInCI, "run `make light-layer-package` first (make test does)"))
    func buildsNoHeavyModule() throws {
        let built = try Self.builtModules()
        #expect(built.contains("CastChannels"), "built: \(built.sorted())")
        #expect(built.isDisjoint(with: Self.forbiddenModules), "built: \(built.sorted())")
        #expect(built.isSubset(of: Self.allowedModules), "built: \(built.sorted())")
    }

    @Test(.enabled(if: isBuilt || runsInCI, "run `make light-layer-package` first (make test does)"))
    func needsNoTLSCurlOrAvahi() async throws {
        let ldd = try ChildProcess("/usr/bin/ldd", [Self.program])
        #expect(await ldd.waitForExit() == 0, "ldd: \(ldd.errorOutput)")
        let libraries = ldd.output.compactMap { $0.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) }
        #expect(libraries.contains { $0.hasPrefix("libFoundation") }, "\(libraries)")
        for forbidden in ["libgnutls", "libcurl", "libavahi", "libprotobuf", "libssl", "libcrypto", "libxml2", "libFoundationNetworking"] {
            #expect(!libraries.contains { $0.hasPrefix(forbidden) }, "\(forbidden) in \(libraries)")
        }
    }

    @Test(.enabled(if: isBuilt || runsInCI, "run `make light-layer-package` first (make test does)"))
    func playsOverTheInMemoryTransport() async throws {
        let child = try ChildProcess(Self.program, [])
        #expect(await child.waitForExit() == 0, "stderr: \(child.errorOutput)")
        #expect(child.output == ["device authentication: unverified", "PLAYING"], "\(child.output)")
    }
}
