import CastJSON
import CastTestSupport
import Foundation
import Testing

/// `audiocast play --listen` against a `cast-receiver` process: a device that vanishes while
/// audiocast listens is a loss (exit 3, said on standard error), not a successful play; one that
/// restarts within --reconnect-timeout gets the episode again and the play succeeds.
@Suite("audiocast --listen loss", .serialized)
struct AudioCastListenLossTests {
    static let feed = TestPaths.packageRoot.appendingPathComponent("Examples/AudioCast/Feeds/swift-by-night.xml").path

    /// A receiver on loopback at `port` (0: any), and the port it listens on.
    static func receiver(port: Int = 0) async throws -> (ChildProcess, Int) {
        let receiver = try ChildProcess(TestPaths.program("cast-receiver"), [
            "--name", "Listen TV", "--host", "127.0.0.1", "--port", String(port), "--eureka-port", "0", "--eureka-tls-port", "0",
        ])
        guard let line = await receiver.waitForLine(where: { $0.contains("listening on") }),
              let bound = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
        else { throw HarnessError(message: "cast-receiver did not start: \(receiver.errorOutput)") }
        return (receiver, bound)
    }

    /// Subscribes a fresh library to the sample feed, then starts `audiocast play EPISODE --listen`
    /// on the receiver at `port`, and waits until the receiver plays it (seen by `castctl watch`).
    static func listen(port: Int, seconds: Int, reconnectTimeout: Int) async throws -> (audiocast: ChildProcess, watch: ChildProcess) {
        let library = FileManager.default.temporaryDirectory.appendingPathComponent("audiocast-listen-\(UUID().uuidString)").path
        let subscribe = try ChildProcess(TestPaths.program("audiocast"), ["subscribe", feed, "--library", library])
        #expect(await subscribe.waitForExit() == 0, "\(subscribe.errorOutput)")
        let watch = try ChildProcess(TestPaths.program("castctl"), ["watch", "--host", "127.0.0.1", "--port", String(port), "--json"])
        _ = await watch.waitForLine { $0.contains("\"connected\"") }
        let audiocast = try ChildProcess(TestPaths.program("audiocast"), [
            "play", "swift-by-night", "--host", "127.0.0.1", "--port", String(port), "--listen", String(seconds),
            "--reconnect-timeout", String(reconnectTimeout), "--library", library, "--json",
        ])
        let playing = await watch.waitForLine { $0.contains("\"mediaStatus\"") && $0.contains("PLAYING") }
        #expect(playing != nil, "\(audiocast.errorOutput)")
        // The receiver's PLAYING broadcast can reach castctl before audiocast has the load's reply: a
        // loss then is a failed load (exit 1), not a loss while listening. Wait for audiocast itself.
        let listening = await audiocast.waitForErrorLine(where: { $0.contains("audiocast: playing; listening for") })
        #expect(listening != nil, "\(audiocast.errorOutput)")
        return (audiocast, watch)
    }

    @Test func aDeviceThatVanishesWhileListeningIsALoss() async throws {
        let (receiver, port) = try await Self.receiver()
        let (audiocast, watch) = try await Self.listen(port: port, seconds: 600, reconnectTimeout: 2)
        _ = await receiver.terminate(signal: SIGKILL)
        let status = await audiocast.waitForExit()
        _ = await watch.terminate(signal: SIGINT)
        #expect(status == 3, "\(audiocast.output) \(audiocast.errorOutput)")
        #expect(audiocast.errorOutput.contains("audiocast: connection lost"), "\(audiocast.errorOutput)")
        #expect(audiocast.errorOutput.contains("audiocast: reconnecting (attempt 1"), "\(audiocast.errorOutput)")
        #expect(audiocast.errorOutput.contains("audiocast: lost the device"), "\(audiocast.errorOutput)")
        #expect(audiocast.output.isEmpty, "no result is printed for a play that was lost: \(audiocast.output)")
    }

    @Test func aDeviceThatRestartsWhileListeningGetsTheEpisodeAgain() async throws {
        var (receiver, port) = try await RestartablePort.start { try await Self.receiver(port: $0) }
        let (audiocast, watch) = try await Self.listen(port: port, seconds: 15, reconnectTimeout: 60)
        _ = await receiver.terminate(signal: SIGKILL)
        (receiver, port) = try await Self.receiver(port: port)
        let status = await audiocast.waitForExit()
        _ = await watch.terminate(signal: SIGINT)
        _ = await receiver.terminate()
        #expect(status == 0, "\(audiocast.errorOutput)")
        #expect(audiocast.errorOutput.contains("audiocast: the device restarted; reloaded the queue; resumed at"), "\(audiocast.errorOutput)")
        let result = audiocast.output.last.flatMap { try? JSONValue(parsing: $0) }
        #expect((result?["position"]?.doubleValue ?? 0) > 0, "\(audiocast.output)")
    }
}
