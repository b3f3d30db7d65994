import CastJSON
import CastTestSupport
import Foundation
import Testing

/// `castctl cast` against a real `cast-receiver` process that is killed with SIGKILL: a lost device
/// is reported as a loss (exit status 3), a restarted one gets the content back, and playback that
/// finished is still a success.
@Suite("castctl connection loss", .serialized)
struct CastctlConnectionLossTests {
    /// A temporary folder with a small `movie.mp4` and a playlist giving it a 1 s duration.
    func makeFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("castctl-loss-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(CastLocalFilesEndToEndTests.movie).write(to: folder.appendingPathComponent("movie.mp4"))
        try Data("#EXTM3U\n#EXTINF:1,Short one\nmovie.mp4\n".utf8).write(to: folder.appendingPathComponent("short.m3u"))
        return folder
    }

    /// Starts `cast-receiver` on `port` (0: a free one) with device id `id`.
    func startReceiver(port: Int = 0, id: String = UUID().uuidString.lowercased()) async throws -> ReceiverProcess {
        let child = try ChildProcess(
            TestPaths.program("cast-receiver"),
            ["--name", "Loss TV", "--port", String(port), "--id", id, "--eureka-port", "0", "--eureka-tls-port", "0"])
        guard let ready = await child.waitForLine(where: { $0.contains("listening on") }),
            let bound = ready.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
        else {
            _ = await child.terminate()
            throw HarnessError(message: "cast-receiver did not start: \(child.output) \(child.errorOutput)")
        }
        return ReceiverProcess(child: child, port: bound, id: id)
    }

    @Test func aReceiverKilledMidCastIsALossNotTheEndOfPlayback() async throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let receiver = try await startReceiver()
        let castctl = try ChildProcess(TestPaths.program("castctl"), [
            "cast", folder.appendingPathComponent("movie.mp4").path, "--host", "127.0.0.1", "--port", String(receiver.port),
            "--timeout", "60", "--reconnect-timeout", "1",
        ])
        let playing = await castctl.waitForLine { $0.hasPrefix("PLAYING") }
        #expect(playing != nil, "castctl did not start playing: \(castctl.output) \(castctl.errorOutput)")
        _ = await receiver.child.terminate(signal: SIGKILL)
        let status = await castctl.waitForExit()
        let text = castctl.output.joined(separator: "\n")
        #expect(status == 3, "stdout:\n\(text)\nstderr:\n\(castctl.errorOutput)")
        #expect(text.contains("castctl: connection lost"), "\(text)")
        #expect(text.contains("castctl: reconnecting (attempt 1, next in"), "\(text)")
        #expect(!text.contains("playback ended"), "\(text)")
        #expect(castctl.errorOutput.contains("castctl: lost the device: Reconnecting to 127.0.0.1:\(receiver.port) gave up"),
                "\(castctl.errorOutput)")
    }

    @Test func aReceiverRestartedAfterAKillGetsTheSameContentBack() async throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let receiver = try await RestartablePort.start { try await startReceiver(port: $0) }
        let castctl = try ChildProcess(TestPaths.program("castctl"), [
            "cast", folder.appendingPathComponent("movie.mp4").path, "--host", "127.0.0.1", "--port", String(receiver.port),
            "--timeout", "60", "--reconnect-timeout", "120",
        ])
        let playing = await castctl.waitForLine { $0.hasPrefix("PLAYING") }
        #expect(playing?.contains("— movie") == true, "castctl did not start playing: \(castctl.output) \(castctl.errorOutput)")
        _ = await receiver.child.terminate(signal: SIGKILL)
        #expect(await castctl.waitForLine { $0.contains("castctl: connection lost") } != nil, "\(castctl.output)")
        let restarted = try await startReceiver(port: receiver.port, id: receiver.id)
        let resumed = await castctl.waitForLine { $0.contains("resumed at") }
        #expect(resumed?.contains("the device restarted; reloaded “movie”; resumed at 0:00:") == true,
                "\(castctl.output) \(castctl.errorOutput)")
        // The restarted receiver plays the same file, served by the same castctl under the same URL.
        let check = try await runProgram(TestPaths.program("castctl"), ["status", "--host", "127.0.0.1", "--port", String(restarted.port)])
        #expect(check.status == 0)
        let exit = await castctl.terminate(signal: SIGINT)
        #expect(exit == 0, "\(castctl.errorOutput)")
        #expect(castctl.output.contains("castctl: interrupted; stopped the media"), "\(castctl.output)")
        _ = await restarted.child.terminate()
    }

    @Test func playbackThatFinishesIsStillASuccess() async throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let receiver = try await startReceiver()
        let castctl = try ChildProcess(TestPaths.program("castctl"), [
            "cast", folder.appendingPathComponent("short.m3u").path, "--host", "127.0.0.1", "--port", String(receiver.port),
            "--timeout", "60",
        ])
        let status = await castctl.waitForExit()
        #expect(status == 0, "\(castctl.output) \(castctl.errorOutput)")
        #expect(castctl.output.last == "castctl: playback ended", "\(castctl.output)")
        _ = await receiver.child.terminate()
    }

    @Test func exitStatusesAreDocumented() async throws {
        for command in ["cast", "tui"] {
            let help = try await runProgram(TestPaths.program("castctl"), [command, "--help"])
            // Help is wrapped to the terminal's width: compare with the whitespace collapsed.
            let text = help.stdout.joined(separator: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(text.contains("--reconnect-timeout"), "\(command): \(text)")
            for status in ["0 playback finished", "3 the device was lost", "4 another sender took the device over"] {
                #expect(text.contains(status), "\(command) --help lacks “\(status)”")
            }
        }
    }
}

/// `castctl watch` against a real `cast-receiver` process: it prints every change, and survives a restart.
@Suite("castctl watch", .serialized)
struct CastctlWatchTests {
    @Test func watchPrintsChangesAndSurvivesAReceiverRestart() async throws {
        let loss = CastctlConnectionLossTests()
        let receiver = try await RestartablePort.start { try await loss.startReceiver(port: $0) }
        let device = ["--host", "127.0.0.1", "--port", String(receiver.port)]
        let watch = try ChildProcess(TestPaths.program("castctl"), ["watch", "--json", "--reconnect-timeout", "120"] + device)
        func event(_ name: String, where extra: @escaping @Sendable (JSONValue) -> Bool = { _ in true }) async -> JSONValue? {
            let line = await watch.waitForLine { line in
                guard let value = try? JSONValue(parsing: line) else { return false }
                return value["event"]?.stringValue == name && extra(value)
            }
            return line.flatMap { try? JSONValue(parsing: $0) }
        }
        #expect(await event("receiverStatus") != nil, "\(watch.output) \(watch.errorOutput)")
        // Another program loads media: watch prints the app and the media status.
        let load = try await runProgram(TestPaths.program("castctl"), ["load", "http://127.0.0.1:9/watched.mp4"] + device)
        #expect(load.status == 0, "\(load.stderr)")
        let playing = await event("mediaStatus") { $0["status"]?["playerState"]?.stringValue == "PLAYING" }
        #expect(playing?["status"]?["media"]?["contentId"] == "http://127.0.0.1:9/watched.mp4", "\(watch.output)")
        // Every line is one JSON object.
        for line in watch.output { #expect((try? JSONValue(parsing: line)) != nil, "not JSON: \(line)") }

        _ = await receiver.child.terminate(signal: SIGKILL)
        #expect(await event("connectionLost") != nil, "\(watch.output)")
        #expect(await event("reconnecting") { $0["attempt"] == 1 } != nil)
        let restarted = try await loss.startReceiver(port: receiver.port, id: receiver.id)
        #expect(await event("connected") { $0["attempt"] != nil } != nil, "\(watch.output) \(watch.errorOutput)")
        // watch follows a new cast on the restarted device.
        let again = try await runProgram(TestPaths.program("castctl"), ["load", "http://127.0.0.1:9/again.mp4"] + device)
        #expect(again.status == 0, "\(again.stderr)")
        let second = await event("mediaStatus") { $0["status"]?["media"]?["contentId"]?.stringValue == "http://127.0.0.1:9/again.mp4" }
        #expect(second != nil, "\(watch.output)")
        let exit = await watch.terminate(signal: SIGINT)
        #expect(exit == 0, "\(watch.errorOutput)")
        _ = await restarted.child.terminate()
    }

    /// pychromecast (Debian's, a sender we did not write) starts a song; `castctl watch` started
    /// afterwards prints it at once. A receiver sends nothing to a sender that only connects, so watch
    /// must ask (GET_STATUS on joining); before it did, it printed `null` until something changed.
    @Test(.enabled(if: Peers.inCI || Peers.hasDebianPychromecast, "needs Debian's python3-pychromecast"))
    func watchPrintsWhatAnotherSenderPlaysWhenItJoins() async throws {
        let receiver = try await CastctlConnectionLossTests().startReceiver()
        let loaded = try await MPRISInteropTests().otherSender("load", receiver: receiver)
        #expect(loaded["status"]?["playerState"] == "PLAYING")
        let watch = try ChildProcess(TestPaths.program("castctl"), [
            "watch", "--json", "--host", "127.0.0.1", "--port", String(receiver.port)])
        let guardTask = watchdog(watch, seconds: 120)
        let line = await watch.waitForLine { line in
            guard let value = try? JSONValue(parsing: line) else { return false }
            return value["event"] == "mediaStatus" && value["status"] != .null
        }
        let status = line.flatMap { try? JSONValue(parsing: $0) }?["status"]
        #expect(status?["playerState"] == "PLAYING", "\(watch.output) \(watch.errorOutput)")
        #expect(status?["media"]?["contentId"] == "http://127.0.0.1:9/song1.mp3", "\(watch.output)")
        guardTask.cancel()
        #expect(await watch.terminate(signal: SIGINT) == 0, "\(watch.errorOutput)")
        _ = await receiver.child.terminate()
    }

    @Test func watchExitsWithTheLossStatusWhenTheDeviceStaysAway() async throws {
        let receiver = try await CastctlConnectionLossTests().startReceiver()
        let watch = try ChildProcess(TestPaths.program("castctl"), [
            "watch", "--host", "127.0.0.1", "--port", String(receiver.port), "--reconnect-timeout", "1"])
        #expect(await watch.waitForLine { $0.hasPrefix("castctl: receiver:") } != nil, "\(watch.output) \(watch.errorOutput)")
        _ = await receiver.child.terminate(signal: SIGKILL)
        let status = await watch.waitForExit()
        #expect(status == 3, "\(watch.output) \(watch.errorOutput)")
        #expect(watch.output.contains { $0.hasPrefix("castctl: connection lost") })
        #expect(watch.errorOutput.contains("castctl: lost the device: gave up"), "\(watch.errorOutput)")
    }
}

/// `castctl tui` is a remote: after a restart of the device, it shows what another sender cast there.
@Suite("castctl tui follows other senders", .serialized)
struct CastctlTuiFollowTests {
    @Test func tuiFollowsAnotherSendersCastAfterTheDeviceRestarted() async throws {
        let loss = CastctlConnectionLossTests()
        let receiver = try await RestartablePort.start { try await loss.startReceiver(port: $0) }
        let device = ["--host", "127.0.0.1", "--port", String(receiver.port)]
        let tui = try ChildProcess(TestPaths.program("castctl"), ["tui", "--interval-ms", "100", "--reconnect-timeout", "60"] + device)
        #expect(await tui.waitForLine { $0.contains("Castor — ") } != nil, "\(tui.errorOutput)")
        _ = await receiver.child.terminate(signal: SIGKILL)
        // While the remote waits seconds before its next attempt, the device comes back and another
        // sender casts there first.
        #expect(await tui.waitForLine { $0.contains("reconnecting (attempt 4") } != nil, "\(tui.output.suffix(8))")
        let restarted = try await loss.startReceiver(port: receiver.port, id: receiver.id)
        let load = try await runProgram(TestPaths.program("castctl"), ["load", "http://127.0.0.1:9/other.mp4", "--title", "Other sender's film"] + device)
        #expect(load.status == 0, "\(load.stderr)")
        let shown = await tui.waitForLine { $0.contains("Other sender's film") }
        #expect(shown != nil, "\(tui.output.suffix(8)) \(tui.errorOutput)")
        let followed = tui.output.contains { $0.contains("following") }
        print("castctl tui: showed the other sender's cast \(followed ? "after a takeover (joined it)" : "in its relaunched session")")
        // It keeps running as the remote of that cast.
        #expect(kill(tui.pid, 0) == 0, "the TUI exited: \(tui.errorOutput)")
        _ = await tui.terminate(signal: SIGKILL)
        _ = await restarted.child.terminate()
    }
}
