@testable import CastMPRIS
import CastTestSupport
import Foundation
import Testing

/// The bus layer against a real `dbus-daemon` (a private bus per test).
@Suite struct DBusConnectionTests {
    static let daemon = ["/usr/bin/dbus-daemon", "/bin/dbus-daemon"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("names are owned once, and closing frees every watch and timeout",
          .enabled(if: ProcessInfo.processInfo.environment["CI"] == "true" || daemon != nil, "needs dbus-daemon (apt-get install dbus)"))
    func ownsNamesAndFreesHandles() async throws {
        let bus = try ChildProcess(try #require(Self.daemon), ["--session", "--nofork", "--nopidfile", "--print-address=1"])
        let line = await bus.waitForLine { $0.hasPrefix("unix:") }
        let address = try #require(line, "dbus-daemon: \(bus.errorOutput)").trimmingCharacters(in: .whitespaces)
        let first = try await DBusBusConnection.connect(to: .address(address), clock: ContinuousClock())
        #expect(first.uniqueName.hasPrefix(":"))
        try await first.requestName("org.mpris.MediaPlayer2.castor.test")
        #expect(await first.handleCounts.watches > 0)

        let second = try await DBusBusConnection.connect(to: .address(address), clock: ContinuousClock())
        await #expect(throws: DBusBusError.self) { try await second.requestName("org.mpris.MediaPlayer2.castor.test") }

        await first.releaseName("org.mpris.MediaPlayer2.castor.test")  // a round trip: done when it returns
        await first.close()
        let counts = await first.handleCounts
        #expect(counts.watches == 0 && counts.timeouts == 0)
        // The name is free again once its owner released it.
        try await second.requestName("org.mpris.MediaPlayer2.castor.test")
        await second.close()
        _ = await bus.terminate()
    }
}
