import CastTestSupport
import Foundation
import Testing

/// `Tests/DiscoveryOnlyPackage`: a program that depends on the `CastDiscovery` product alone, the way a
/// discovery tool's package does. `make discovery-only-package` builds it (`make test` does, before the
/// tests); these tests check what went into it: the modules linked into the program (from the build's
/// link file list), the shared libraries it needs (from `ldd`, a tool we did not write), and that it runs.
@Suite(.serialized) struct DiscoveryOnlyPackageTests {
    static let packageRoot = TestPaths.packageRoot.appendingPathComponent("Tests/DiscoveryOnlyPackage")
    static let program = packageRoot.appendingPathComponent(".build/debug/find-cast-devices").path
    static let linkFileList = packageRoot.appendingPathComponent(".build/debug/find-cast-devices.product/Objects.LinkFileList")

    static var isBuilt: Bool { FileManager.default.isExecutableFile(atPath: program) }
    static var runsInCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Modules whose objects would mean TLS, protobuf, XML or SwiftNIO code in a discovery-only program.
    static let forbiddenModules: Set<String> = [
        "CastTLS", "CastCore", "CastChannels", "CGnuTLS", "SwiftProtobuf", "CastXML", "CLibXML2", "CastHTTP", "CastKnownHosts",
        "CastDIAL", "NIOCore", "NIOPosix", "NIOHTTP1", "NIOSSL", "Logging", "CastMediaMetadata", "CCurl",
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

    @Test(.enabled(if: isBuilt || runsInCI, "run `make discovery-only-package` first (make test does)"))
    func linksOnlyDiscovery() throws {
        let modules = try Self.linkedModules()
        #expect(modules.contains("CastDiscovery"))
        #expect(modules.isDisjoint(with: Self.forbiddenModules), "linked: \(modules.sorted())")
        // Nothing but CastDiscovery (Avahi), the protocols and values it implements (CastDiscoveryCore) and
        // the program itself: no Swift package besides this one is built.
        #expect(modules == ["CastDiscovery", "CastDiscoveryCore", "find_cast_devices"], "linked: \(modules.sorted())")
    }

    @Test(.enabled(if: isBuilt || runsInCI, "run `make discovery-only-package` first (make test does)"))
    func needsNoTLSOrXMLLibrary() async throws {
        let ldd = try ChildProcess("/usr/bin/ldd", [Self.program])
        #expect(await ldd.waitForExit() == 0, "ldd: \(ldd.errorOutput)")
        let libraries = ldd.output.compactMap { $0.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) }
        #expect(libraries.contains { $0.hasPrefix("libavahi-client") }, "\(libraries)")
        for forbidden in ["libgnutls", "libxml2", "libcurl", "libprotobuf", "libssl", "libcrypto"] {
            #expect(!libraries.contains { $0.hasPrefix(forbidden) }, "\(forbidden) in \(libraries)")
        }
    }

    @Test(.enabled(if: isBuilt || runsInCI, "run `make discovery-only-package` first (make test does)"))
    func runsAndExplainsWhatItFound() async throws {
        let child = try ChildProcess(Self.program, [])
        #expect(await child.waitForExit() == 0, "stderr: \(child.errorOutput)")
        // A report (devices, or "No Cast devices found." with the diagnostics that say why), then the TXT name.
        #expect(child.output.last == "Den", "\(child.output)")
        #expect(child.output.count >= 2, "\(child.output)")
    }
}
