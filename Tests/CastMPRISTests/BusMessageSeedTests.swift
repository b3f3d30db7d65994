@testable @_spi(Fuzzing) import CastMPRIS
import Foundation
import Testing

/// The seeds of the FuzzMPRISBusMessage target, marshalled by `make-dbus-seeds.py` (a writer of the
/// D-Bus wire format independent of libdbus), read by libdbus and by the player's rules.
@Suite struct BusMessageSeedTests {
    static let seeds: [URL] = {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Fuzz/Seeds/FuzzMPRISBusMessage").standardizedFileURL
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        return files.filter { $0.pathExtension == "bin" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }()

    @Test func thereAreSeeds() {
        #expect(Self.seeds.count >= 20)
    }

    @Test(arguments: seeds)
    func libdbusReadsTheSeedAsAMethodCallToThePlayer(seed: URL) throws {
        let bytes = try Data(contentsOf: seed)
        let message = try DBusMessage.demarshal(Array(bytes))
        #expect(message.kind == .methodCall)
        #expect(message.path == MPRISNames.objectPath)
        if seed.lastPathComponent == "variant-with-fd.bin" {
            #expect(throws: DBusCodingError.self) { try message.arguments() }
        } else {
            let arguments = try message.arguments()
            #expect(arguments.map(\.signature).joined() == message.signature)
        }
        // The fuzz target's checks (they stop the process on a violation).
        bytes.withUnsafeBytes { CastMPRISFuzzing.fuzzBusMessage($0) }
    }

    @Test func aSeekFromTheSeedsReachesTheRulesAsASeek() throws {
        let seed = try #require(Self.seeds.first { $0.lastPathComponent == "seek.bin" })
        let message = try DBusMessage.demarshal(Array(try Data(contentsOf: seed)))
        let call = MPRISCall(interface: message.interface, member: try #require(message.member),
                             signature: message.signature, arguments: try message.arguments())
        #expect(call.arguments == [.int64(30_000_000)])
        #expect(MPRISRequest.response(to: call, state: Fixtures.state(Fixtures.playing())) == .run(.seek(to: .seconds(40))))
    }
}
